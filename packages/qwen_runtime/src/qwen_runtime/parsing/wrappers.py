"""Fences and tags that small models put around a bare JSON call (```` ```json ````, `<tools>`...).

When the JSON inside is a call, the wrapper is no text of the reply: dropped with its closing
fence or tag, so neither the visible text nor the history keeps an empty fence.
"""

from __future__ import annotations

import re
from typing import Final

WRAPPER_PARTIAL: Final = "partial"
"""`wrapper_open`'s answer when the text ends before it can tell."""

_FENCE = re.compile(r"```[A-Za-z_-]*[ \t]*\n\s*")
_TAG = re.compile(r"<(tools|tool|response|json|xml)>\s*")
_FENCE_START = re.compile(r"`{1,3}|```[A-Za-z_-]*[ \t]*")
_TAG_NAMES: Final = ("tools", "tool", "response", "json", "xml")


def wrapper_open(text: str, index: int, final: bool) -> tuple[int, str] | str | None:
    """At `text[index]` (the start of a line): (length of a wrapper and the whitespace after it,
    the closing fence or tag) when a '{' follows it; `WRAPPER_PARTIAL` while that is unknown."""
    match = _FENCE.match(text, index) or _TAG.match(text, index)
    if match is not None:
        end = match.end()
        if end >= len(text):
            return None if final else WRAPPER_PARTIAL
        if text[end] != "{":
            return None
        closer = "```" if match.re is _FENCE else f"</{match.group(1)}>"
        return end - index, closer
    rest = text[index:]
    if final:
        return None
    if _FENCE_START.fullmatch(rest) or any(f"<{name}>".startswith(rest) for name in _TAG_NAMES):
        return WRAPPER_PARTIAL
    return None


def wrapper_close(text: str, index: int, closer: str, final: bool) -> int | None:
    """Where the text after a wrapped call goes on: past `closer` (and the whitespace before it) if
    it is there, at `index` if something else comes; None while that is unknown."""
    start = index
    while index < len(text) and text[index].isspace():
        index += 1
    rest = text[index:]
    if rest.startswith(closer):
        return index + len(closer)
    if not final and closer.startswith(rest):
        return None
    return start
