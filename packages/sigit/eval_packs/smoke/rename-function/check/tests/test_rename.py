import pathlib
import unittest

from shop import cli, invoice, orders


def project_files():
    """Every file of the project but this test: "everywhere" means every file, not the package alone."""
    me = pathlib.Path(__file__).resolve()
    for path in sorted(pathlib.Path(".").rglob("*")):
        skip = {".git", "__pycache__", "node_modules"} & set(path.parts)
        if path.is_file() and not skip and path.resolve() != me:
            yield path


class RenameTest(unittest.TestCase):
    def test_new_name_works(self):
        self.assertEqual(orders.order_total([(2, 1.5), (1, 4.0)]), 7.0)
        self.assertEqual(invoice.invoice_text("ann", [(1, 2.0)]), "ann: 2.00")
        self.assertIs(cli.order_total, orders.order_total)

    def test_old_name_is_gone(self):
        for path in project_files():
            self.assertNotIn(b"calc_total", path.read_bytes(), path)
