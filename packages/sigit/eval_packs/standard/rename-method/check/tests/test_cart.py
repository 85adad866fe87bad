import pathlib
import unittest

from cart.cart import Cart
from cart.sources import Importer, from_wishlist, quick_buy


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
        self.assertNotIn("add_item", pathlib.Path("cart/sources.py").read_text())
