"""The rows of the sales report: dicts with the same keys in the same order."""

ROWS = [
    {"region": "north", "units": 120, "revenue": 1530.5},
    {"region": "south", "units": 80, "revenue": 990.0},
]
