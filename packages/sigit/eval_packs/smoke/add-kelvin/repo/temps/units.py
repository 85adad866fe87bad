"""Temperature conversions, keyed by (from, to)."""


def c_to_f(value):
    return value * 9 / 5 + 32


def f_to_c(value):
    return (value - 32) * 5 / 9


CONVERSIONS = {
    ("C", "F"): c_to_f,
    ("F", "C"): f_to_c,
}
