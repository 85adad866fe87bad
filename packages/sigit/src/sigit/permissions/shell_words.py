"""A shell word's value as bash sees it: quote removal, backslash escapes, `$'...'` decoding.

The text-level half of reading a word, with no syntax tree in sight: `shell_grammar` hands it the
characters of each word, string or `$'...'` the grammar found, and gets back the value and whether
a glob or brace expansion makes it built at run time. Imports nothing from sigit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Word", "ansi_c", "ansi_c_length", "bare_newline", "dq_unescape", "expands", "unquoted"]


@dataclass
class Word:
    """A word after quote removal: `static` is False when an expansion, a substitution or a glob builds it."""

    text: str
    static: bool = True
    plain: str | None = None  # the unquoted characters (quoted ones as spaces): where globs and braces act


_GLOB_CHARS = frozenset("*?[")
_BRACE_RE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")


def expands(plain: str) -> bool:
    """Whether unquoted text holds a glob or a brace expansion."""
    return bool(_GLOB_CHARS & set(plain)) or _BRACE_RE.search(plain) is not None


def unquoted(text: str) -> Word:
    """An unquoted word: backslashes removed; a glob or brace expansion makes it run-time built."""
    if "\\" not in text:
        return Word(text, static=not expands(text), plain=text)
    out: list[str] = []
    plain: list[str] = []  # the unescaped characters only, to spot globs and braces
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
                plain.append(" ")
            i += 2
            continue
        out.append(char)
        plain.append(char)
        i += 1
    unescaped = "".join(plain)
    return Word("".join(out), not expands(unescaped), unescaped)


def bare_newline(text: bytes) -> int | None:
    """The offset of the first newline not escaped by a backslash (a line continuation), or None."""
    i = 0
    while i < len(text):
        if text[i : i + 1] == b"\\":
            i += 2
            continue
        if text[i : i + 1] == b"\n":
            return i
        i += 1
    return None


def dq_unescape(text: str) -> str:
    """Inside double quotes a backslash escapes only `$`, a backquote, `"`, `\\` and a newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


_ANSI_C_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                  "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_C_RE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL)


def ansi_c_length(text: str) -> int:
    """How much of `text` (starting `$'`) bash reads as the `$'...'` string: a backslash escapes the
    next character, the first unescaped `'` ends it."""
    i = 2
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "'":
            return i + 1
        i += 1
    return len(text)


def ansi_c(body: str) -> str:
    """The value of `$'...'`: escapes as bash decodes them (`\\x41`, `\\101`, `\\u0041`, `\\n`, ...)."""

    def decode(match: re.Match[str]) -> str:
        escape = match.group(1)
        head = escape[0]
        if head in "xuU" and len(escape) > 1:
            return chr(min(int(escape[1:], 16), 0x10FFFF))
        if head.isdigit() and head in "01234567":
            return chr(int(escape, 8) & 0xFF)
        if head == "c" and len(escape) == 2:
            return chr(ord(escape[1].upper()) & 0x1F)
        return _ANSI_C_SIMPLE.get(escape, "\\" + escape)

    return _ANSI_C_RE.sub(decode, body)
