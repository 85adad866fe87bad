"""Build carts from saved wish lists and from the quick-buy button."""

from cart.cart import Cart


def from_wishlist(items):
    cart = Cart()
    for sku, qty in items:
        cart.add_item(sku, qty)
    return cart


def quick_buy(sku):
    cart = Cart()
    cart.add_item(sku)
    return cart


class Importer:
    """Lines such as "A12 x3"."""

    def __init__(self):
        self.cart = Cart()

    def feed(self, line):
        sku, _, qty = line.partition(" x")
        self.cart.add_item(sku.strip(), int(qty or 1))
