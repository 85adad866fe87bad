"""Run-length encoding for the sprite format."""


def encode(text):
    """"aaabcc" -> "3a1b2c": each run as its length then the character. "" -> "".

    Characters are never digits (the format forbids them): raise ValueError on a digit.
    """
    if any(ch.isdigit() for ch in text):
        raise ValueError("digits cannot be encoded")
    out = []
    for ch in text:
        if out and out[-1][1] == ch:
            out[-1][0] += 1
        else:
            out.append([1, ch])
    return "".join(f"{n}{ch}" for n, ch in out)


def decode(data):
    """The inverse of encode: "3a1b2c" -> "aaabcc"; counts may have several digits ("12x").

    Raises ValueError when a character has no count before it or the data ends in a count.
    """
    out, count = [], ""
    for ch in data:
        if ch.isdigit():
            count += ch
        else:
            if not count:
                raise ValueError(f"no count before {ch!r}")
            out.append(ch * int(count))
            count = ""
    if count:
        raise ValueError("trailing count")
    return "".join(out)
