"""Fuzzy matching for the command palette."""


def edit_distance(a, b):
    """The Levenshtein distance: fewest single-character insertions, deletions or
    substitutions that turn `a` into `b`."""
    raise NotImplementedError
