"""Text helpers shared by the commands."""


def shout(text):
    return text.upper() + "!"


def indent(text, by=2):
    return "\n".join(" " * by + line for line in text.splitlines())
