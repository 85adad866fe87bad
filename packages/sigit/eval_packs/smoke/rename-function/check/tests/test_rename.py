import pathlib
import unittest

from shop import cli, invoice, orders


class RenameTest(unittest.TestCase):
    def test_new_name_works(self):
        self.assertEqual(orders.order_total([(2, 1.5), (1, 4.0)]), 7.0)
        self.assertEqual(invoice.invoice_text("ann", [(1, 2.0)]), "ann: 2.00")
        self.assertIs(cli.order_total, orders.order_total)

    def test_old_name_is_gone(self):
        for path in pathlib.Path("shop").glob("*.py"):
            self.assertNotIn("calc_total", path.read_text(), path)
