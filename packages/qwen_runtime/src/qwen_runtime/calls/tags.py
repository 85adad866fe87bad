"""The four tags Qwen 3 writes around reasoning and tool calls, and how to spot them mid-stream.

Decoded text arrives a token at a time, so a tag can be split across feeds ("<too" + "l_call>"):
`match_tag` says whether a position holds a whole tag, could still become one, or is plain text.
"""

from __future__ import annotations

from typing import Final

THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"
CALL_OPEN: Final = "<tool_call>"
CALL_CLOSE: Final = "</tool_call>"
TAGS: Final = (THINK_OPEN, THINK_CLOSE, CALL_OPEN, CALL_CLOSE)
PARTIAL: Final = "partial"
"""`match_tag`'s answer when the text ends in what may still become a tag."""

_LONGEST = max(len(tag) for tag in TAGS)


def match_tag(text: str, index: int, final: bool) -> str | None:
    """The tag starting at `text[index]` (a '<'), `PARTIAL` if the text ends inside one, or None.

    With `final` no more text will come, so an incomplete tag is plain text.
    """
    for tag in TAGS:
        if text.startswith(tag, index):
            return tag
    rest = text[index : index + _LONGEST]
    if not final and index + len(rest) == len(text) and any(tag.startswith(rest) for tag in TAGS):
        return PARTIAL
    return None
