"""Roman numerals."""

_VALUES = [
    (1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I"),
]


def to_roman(number):
    """`number` (1 to 3999) in Roman numerals, with subtractive pairs such as IV and CM."""
    if not 0 < number < 4000:
        raise ValueError(number)
    out = []
    for value, letters in _VALUES:
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)
