"""Iteration helpers."""


def chunked(items, size):
    """Split `items` (any iterable) into lists of `size` items; the last one may be shorter.

    >>> chunked([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]

    Raises ValueError when size is less than 1.
    """
    if size < 1:
        raise ValueError("size must be at least 1")
    out, chunk = [], []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            out.append(chunk)
            chunk = []
    if chunk:
        out.append(chunk)
    return out
