"""Invoices."""

from shop.orders import order_total


def invoice_text(customer, lines):
    return f"{customer}: {order_total(lines):.2f}"
