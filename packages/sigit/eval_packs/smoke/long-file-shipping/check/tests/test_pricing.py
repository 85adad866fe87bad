import ast
import hashlib
import unittest
from pathlib import Path

from warehouse import pricing

SAMPLES = [((1, 10), 13.7), ((1, 200), 243.86), ((2, 10), 17.4), ((2, 200), 306.24), ((77, 10), 44.9), ((77, 200), 808.2), ((145, 10), 46.5), ((145, 200), 790.5), ((146, 10), 50.2), ((146, 200), 843.36), ((147, 10), 53.9), ((147, 200), 970.2), ((199, 10), 46.3), ((199, 200), 805.62), ((290, 10), 33.0), ((290, 200), 574.2)]


FILE = Path(__file__).resolve().parents[1] / "warehouse/pricing.py"
TARGET = "shipping_cost"
REST_SHA256 = "760642d01fcf07f81f317751cecbdbd7a8563766f57e79b0e7a41357ebbbe1e3"
"""Every line of the file outside TARGET, blank lines left out, as the task started."""


def rest_of_file(text, target):
    """The file without `target` (its decorators, def and body) and without blank lines: what must not change."""
    tree = ast.parse(text)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == target)
    start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
    lines = text.splitlines()
    return "\n".join(line for line in lines[:start] + lines[node.end_lineno :] if line.strip())


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

    def test_every_other_line_of_the_file_is_as_it_was(self):
        """The whole file, not a sample: every other function, constant and comment byte for byte."""
        text = FILE.read_text(encoding="utf-8")
        self.assertEqual(
            hashlib.sha256(rest_of_file(text, TARGET).encode()).hexdigest(),
            REST_SHA256,
            "a line outside " + TARGET + " was changed",
        )
