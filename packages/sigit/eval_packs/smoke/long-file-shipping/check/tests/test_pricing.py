import unittest

from warehouse import pricing

SAMPLES = [((1, 10), 13.7), ((1, 200), 243.86), ((2, 10), 17.4), ((2, 200), 306.24), ((77, 10), 44.9), ((77, 200), 808.2), ((145, 10), 46.5), ((145, 200), 790.5), ((146, 10), 50.2), ((146, 200), 843.36), ((147, 10), 53.9), ((147, 200), 970.2), ((199, 10), 46.3), ((199, 200), 805.62), ((290, 10), 33.0), ((290, 200), 574.2)]


class ShippingTest(unittest.TestCase):
    def test_light_parcels_pay_the_zone_rate(self):
        self.assertEqual(pricing.shipping_cost(5, "domestic"), 4.90)
        self.assertEqual(pricing.shipping_cost(20, "world"), 24.00)

    def test_heavy_parcels_pay_per_extra_kg(self):
        self.assertEqual(pricing.shipping_cost(21, "domestic"), 6.40)
        self.assertEqual(pricing.shipping_cost(30, "eu"), 24.90)

    def test_the_rest_of_the_file_is_untouched(self):
        names = [n for n in dir(pricing) if n.startswith("unit_price_sku_")]
        self.assertEqual(len(names), 290)
        for (sku, quantity), price in SAMPLES:
            self.assertEqual(getattr(pricing, f"unit_price_sku_{sku:04d}")(quantity), price)
