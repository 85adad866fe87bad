"""Merge booked time slots."""


def merge(intervals):
    """Merge overlapping or touching (start, end) intervals; the result is sorted by start."""
    merged = []
    for start, end in intervals:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged
