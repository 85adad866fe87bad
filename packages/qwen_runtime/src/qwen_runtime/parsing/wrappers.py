"""Fences and tags that small models put around a call (```` ```json ````, `<tools>`, `<JSON>`...).

When what they hold is a call (bare JSON, a `<tool_call>` block, or an XML `<function=...>` call
without its `<tool_call>`), the wrapper is no text of the reply: dropped with its closing fence or
tag, so neither the visible text nor the history keeps an empty fence (issue 51: the peers leave no
fence or `<JSON>` tag in the content either). Tag names match in any case (`<JSON>`, `<Tools>`).
Several calls in one wrapper drop it once, around them all.
"""

from __future__ import annotations

import re
from typing import Final

from ..calls.tags import CALL_OPEN
from .xmlreading import FUNCTION_OPEN

WRAPPER_PARTIAL: Final = "partial"
"""`wrapper_open`'s answer when the text ends before it can tell."""

_FENCE = re.compile(r"```[A-Za-z_-]*[ \t]*\n\s*")
_TAG = re.compile(r"<(tools|tool|response|json|xml)>\s*", re.IGNORECASE)
_FENCE_START = re.compile(r"`{1,3}|```[A-Za-z_-]*[ \t]*")
_TAG_NAMES: Final = ("tools", "tool", "response", "json", "xml")
CALL_STARTS: Final = ("{", CALL_OPEN, FUNCTION_OPEN)
"""How what a wrapper holds starts when it is a call."""


def wrapper_open(text: str, index: int, final: bool) -> tuple[int, str] | str | None:
    """At `text[index]` (the start of a line): (length of a wrapper and the whitespace after it,
    the closing fence or tag) when a call may follow it (`CALL_STARTS`); `WRAPPER_PARTIAL` while that
    is unknown."""
    match = _FENCE.match(text, index) or _TAG.match(text, index)
    if match is not None:
        end = match.end()
        rest = text[end:]
        if not rest.startswith(CALL_STARTS):
            if not final and any(start.startswith(rest) for start in CALL_STARTS):
                return WRAPPER_PARTIAL  # (nothing yet, or the start of a tag)
            return None
        closer = "```" if match.re is _FENCE else f"</{match.group(1)}>"
        return end - index, closer
    rest = text[index:]
    if final:
        return None
    if _FENCE_START.fullmatch(rest) or any(f"<{name}>".startswith(rest.lower()) for name in _TAG_NAMES):
        return WRAPPER_PARTIAL
    return None


def wrapper_close(text: str, index: int, closer: str, final: bool) -> tuple[int, bool] | None:
    """Where the text after a wrapped call goes on, and whether the wrapper is still open: past
    `closer` (and the whitespace before it) if it is there; at the next call if one follows (the
    wrapper holds several; the whitespace between them dropped); at `index` if something else comes.
    None while that is unknown."""
    start = index
    while index < len(text) and text[index].isspace():
        index += 1
    rest = text[index:]
    if rest[: len(closer)].lower() == closer.lower():
        return index + len(closer), False
    if rest.startswith(CALL_STARTS):
        return index, True
    if not final and (
        closer.lower().startswith(rest.lower()) or any(start.startswith(rest) for start in CALL_STARTS[1:])
    ):
        return None
    return start, False
