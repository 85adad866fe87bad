"""Read the contacts export (a CSV file with a header line)."""


def read_contacts(path):
    """A list of dicts, one per row, keyed by the header's column names."""
    with open(path, newline="", encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        return [dict(zip(header, line.strip().split(","))) for line in f if line.strip()]
