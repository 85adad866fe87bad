"""Read the contacts export (a CSV file with a header line)."""

import csv


def read_contacts(path):
    """A list of dicts, one per row, keyed by the header's column names."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
