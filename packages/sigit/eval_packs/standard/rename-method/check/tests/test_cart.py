import pathlib
import unittest

from cart.cart import Cart
from cart.sources import Importer, from_wishlist, quick_buy


def project_files():
    """Every file of the project but this test: "everywhere" means every file, not the package alone."""
    me = pathlib.Path(__file__).resolve()
    for path in sorted(pathlib.Path(".").rglob("*")):
        skip = {".git", "__pycache__", "node_modules"} & set(path.parts)
        if path.is_file() and not skip and path.resolve() != me:
            yield path


class CartTest(unittest.TestCase):
    def test_add(self):
        cart = Cart()
        cart.add("A", 2)
        cart.add("A")
        self.assertEqual(cart.lines, {"A": 3})
        self.assertFalse(hasattr(cart, "add_item"))

    def test_callers(self):
        self.assertEqual(from_wishlist([("A", 1), ("B", 2)]).count(), 3)
        self.assertEqual(quick_buy("Z").lines, {"Z": 1})
        importer = Importer()
        importer.feed("A12 x3")
        importer.feed("B7")
        self.assertEqual(importer.cart.lines, {"A12": 3, "B7": 1})
        for path in project_files():  # all the callers: every file of the project
            self.assertNotIn(b"add_item", path.read_bytes(), path)
