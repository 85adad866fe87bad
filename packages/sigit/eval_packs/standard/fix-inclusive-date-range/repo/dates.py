"""Date ranges for reports."""

import datetime as dt


def days_between(start, end):
    """Every date from `start` to `end`, both included; empty when end is before start."""
    days = []
    day = start
    while day < end:
        days.append(day)
        day += dt.timedelta(days=1)
    return days
