"""Merge booked time slots."""


def merge(intervals):
    """Merge overlapping or touching (start, end) intervals; the result is sorted by start."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
