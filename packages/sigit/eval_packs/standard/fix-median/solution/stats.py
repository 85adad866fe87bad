"""Descriptive statistics."""


def mean(values):
    return sum(values) / len(values)


def median(values):
    """The middle value of `values` (the mean of the two middle ones when there are an even number)."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
