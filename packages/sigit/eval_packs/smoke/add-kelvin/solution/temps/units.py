"""Temperature conversions, keyed by (from, to)."""


def c_to_f(value):
    return value * 9 / 5 + 32


def f_to_c(value):
    return (value - 32) * 5 / 9


def c_to_k(value):
    return value + 273.15


def k_to_c(value):
    return value - 273.15


CONVERSIONS = {
    ("C", "F"): c_to_f,
    ("F", "C"): f_to_c,
    ("C", "K"): c_to_k,
    ("K", "C"): k_to_c,
}
