"""Helpers for nested settings."""


def flatten(nested, sep="."):
    """Flatten nested dicts into one level with joined keys.

    >>> flatten({"db": {"host": "x", "port": 5432}, "debug": True})
    {'db.host': 'x', 'db.port': 5432, 'debug': True}

    Empty nested dicts disappear; lists and other values are kept as they are.
    """
    raise NotImplementedError
