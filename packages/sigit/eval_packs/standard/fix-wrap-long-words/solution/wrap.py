"""Wrap text to a width without the textwrap module (the firmware's Python has none)."""


def wrap(text, width):
    """Lines of at most `width` characters, breaking at spaces; a word longer than `width`
    is split into pieces of `width` characters."""
    lines = []
    line = ""
    for word in text.split():
        while len(word) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if not word:
            continue
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines
