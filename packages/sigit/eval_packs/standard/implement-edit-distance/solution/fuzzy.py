"""Fuzzy matching for the command palette."""


def edit_distance(a, b):
    """The Levenshtein distance: fewest single-character insertions, deletions or
    substitutions that turn `a` into `b`."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def closest(word, choices):
    """The choice with the smallest edit distance to `word` (the first such in `choices`
    on a tie); None when there are no choices."""
    return min(choices, key=lambda choice: edit_distance(word, choice), default=None)
