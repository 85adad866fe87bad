"""Descriptive statistics."""


def mean(values):
    return sum(values) / len(values)


def median(values):
    """The middle value of `values` (the mean of the two middle ones when there are an even number)."""
    if not values:
        raise ValueError("median of no values")
    ordered = values
    middle = len(ordered) // 2
    return ordered[middle]
