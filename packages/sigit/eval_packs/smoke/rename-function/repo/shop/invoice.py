"""Invoices."""

from shop.orders import calc_total


def invoice_text(customer, lines):
    return f"{customer}: {calc_total(lines):.2f}"
