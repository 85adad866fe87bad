"""Iteration helpers."""


def chunked(items, size):
    """Split `items` (any iterable) into lists of `size` items; the last one may be shorter.

    >>> chunked([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]

    Raises ValueError when size is less than 1.
    """
    raise NotImplementedError
