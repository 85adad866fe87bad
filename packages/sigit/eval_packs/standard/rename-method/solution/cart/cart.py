"""The shopping cart."""


class Cart:
    def __init__(self):
        self.lines = {}

    def add(self, sku, qty=1):
        """Add `qty` of `sku` (again: the quantities add up)."""
        if qty < 1:
            raise ValueError("qty must be positive")
        self.lines[sku] = self.lines.get(sku, 0) + qty

    def count(self):
        return sum(self.lines.values())
