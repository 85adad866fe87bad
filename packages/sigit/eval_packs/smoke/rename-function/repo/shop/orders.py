"""Order arithmetic."""


def calc_total(lines):
    """Sum of quantity * unit price over the order lines."""
    return sum(qty * price for qty, price in lines)
