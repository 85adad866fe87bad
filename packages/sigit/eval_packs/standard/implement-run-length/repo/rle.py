"""Run-length encoding for the sprite format."""


def encode(text):
    """"aaabcc" -> "3a1b2c": each run as its length then the character. "" -> "".

    Characters are never digits (the format forbids them): raise ValueError on a digit.
    """
    raise NotImplementedError


def decode(data):
    """The inverse of encode: "3a1b2c" -> "aaabcc"; counts may have several digits ("12x").

    Raises ValueError when a character has no count before it or the data ends in a count.
    """
    raise NotImplementedError
