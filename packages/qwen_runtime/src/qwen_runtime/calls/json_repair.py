"""Lenient JSON for tool-call arguments: fix only damage whose intent is unambiguous.

Small models write trailing commas, single quotes, Python literals, raw newlines in code strings,
`//` and `/* */` comments, and drop the last brace. Those are repaired (and named, so callers can
log them); anything that needs a guess (unquoted prose, missing commas, truncated strings) is an
error that says what and where, so the model can be told precisely what to fix.
"""

from __future__ import annotations

import json
import re
from typing import Any

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS: dict[str, tuple[Any, bool]] = {
    "true": (True, False),
    "false": (False, False),
    "null": (None, False),
    "True": (True, True),
    "False": (False, True),
    "None": (None, True),
}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "'": "'"}
_MAX_DEPTH = 200


class JsonRepairError(ValueError):
    """JSON that cannot be repaired without guessing; the message says what and where."""


def repair_json(text: str) -> tuple[Any, list[str]]:
    """Parse `text` as JSON, repairing unambiguous damage; returns the value and the repairs made."""
    try:
        return json.loads(text), []
    except (ValueError, RecursionError):
        pass
    start, end, fenced = _strip_fence(text)
    parser = _Parser(text, start, end)
    if fenced:
        parser.repairs.append("removed code fence")
    value = parser.parse()
    return value, parser.repairs


def _strip_fence(text: str) -> tuple[int, int, bool]:
    """The span of `text` inside a ``` fence (with an optional language tag), or the whole text."""
    stripped = text.strip()
    if not stripped.startswith("```"):
        return 0, len(text), False
    start = text.index("```") + 3
    newline = text.find("\n", start)
    if newline < 0 or not re.fullmatch(r"[\w+-]*\s*", text[start:newline]):
        return 0, len(text), False
    end = text.rstrip().rfind("```")
    if end < newline:  # opening fence only
        end = len(text)
    return newline + 1, end, True


def _position(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line} column {column}"


class _Parser:
    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.i = start
        self.end = end
        self.repairs: list[str] = []

    # ------------------------------------------------------------ helpers

    def _note(self, repair: str) -> None:
        if repair not in self.repairs:
            self.repairs.append(repair)

    def _error(self, what: str, index: int | None = None) -> JsonRepairError:
        at = self.i if index is None else index
        return JsonRepairError(f"{what} at {_position(self.text, at)}")

    def _unexpected(self, expected: str) -> JsonRepairError:
        if self.i >= self.end:
            return self._error(f"unexpected end of input, expected {expected}")
        return self._error(f"unexpected {self.text[self.i]!r}, expected {expected}")

    def _skip_ws(self) -> None:
        """Skip whitespace and comments (`// to the end of the line`, `/* to the closing */`)."""
        text, end = self.text, self.end
        while self.i < end:
            char = text[self.i]
            if char in " \t\r\n":
                self.i += 1
            elif char == "/" and text.startswith("//", self.i):
                newline = text.find("\n", self.i, end)
                self.i = end if newline < 0 else newline + 1
                self._note("removed comment")
            elif char == "/" and text.startswith("/*", self.i):
                close = text.find("*/", self.i + 2, end)
                self.i = end if close < 0 else close + 2
                self._note("removed comment")
            else:
                return

    # ------------------------------------------------------------ grammar

    def parse(self) -> Any:
        self._skip_ws()
        if self.i >= self.end:
            raise JsonRepairError("empty input: expected a JSON value")
        value = self._value(0)
        self._skip_ws()
        if self.i < self.end:
            raise self._error(f"unexpected {self.text[self.i]!r} after the JSON value")
        return value

    def _value(self, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise self._error(f"nesting deeper than {_MAX_DEPTH} levels")
        self._skip_ws()
        if self.i >= self.end:
            raise self._unexpected("a value")
        char = self.text[self.i]
        if char == "{":
            return self._object(depth)
        if char == "[":
            return self._array(depth)
        if char in "\"'":
            return self._string()
        match = _NUMBER.match(self.text, self.i, self.end)
        if match:
            self.i = match.end()
            number = match.group()
            return float(number) if any(c in number for c in ".eE") else int(number)
        for word, (value, pythonic) in _LITERALS.items():
            if self.text.startswith(word, self.i) and not self._word_continues(self.i + len(word)):
                if pythonic:
                    self._note(f"Python literal {word}")
                self.i += len(word)
                return value
        raise self._unexpected("a value")

    def _word_continues(self, index: int) -> bool:
        return index < self.end and (self.text[index].isalnum() or self.text[index] == "_")

    def _object(self, depth: int) -> dict[str, Any]:
        self.i += 1
        result: dict[str, Any] = {}
        while not self._closed("}"):
            if self.text[self.i] not in "\"'":
                raise self._unexpected("a string key or '}'")
            key = self._string()
            self._skip_ws()
            if self.i >= self.end or self.text[self.i] != ":":
                raise self._unexpected(f"':' after key {key!r}")
            self.i += 1
            result[key] = self._value(depth + 1)
            if self._item_ends("}"):
                break
        return result

    def _array(self, depth: int) -> list[Any]:
        self.i += 1
        result: list[Any] = []
        while not self._closed("]"):
            result.append(self._value(depth + 1))
            if self._item_ends("]"):
                break
        return result

    def _closed(self, close: str) -> bool:
        """Past `close`, or at the end of a cut-off reply (the bracket is taken as given)."""
        self._skip_ws()
        if self.i >= self.end:
            self._note(f"added missing '{close}'")
            return True
        if self.text[self.i] == close:
            self.i += 1
            return True
        return False

    def _item_ends(self, close: str) -> bool:
        """After a member: True when the container ended (a trailing comma is forgiven), past a ',' if not."""
        if self._closed(close):
            return True
        if self.text[self.i] != ",":
            raise self._unexpected(f"',' or '{close}'")
        self.i += 1
        self._skip_ws()
        if self.i < self.end and self.text[self.i] == close:
            self._note("removed trailing comma")
            self.i += 1
            return True
        return False

    def _string(self) -> str:
        quote = self.text[self.i]
        if quote == "'":
            self._note("single-quoted string")
        opened = self.i
        self.i += 1
        out: list[str] = []
        text, end = self.text, self.end
        while True:
            if self.i >= end:
                raise self._error("unterminated string (the input ends inside it)", opened)
            char = text[self.i]
            if char == quote:
                self.i += 1
                return "".join(out)
            if char == "\\":
                out.append(self._escape())
                continue
            if char in "\n\r\t" or char < " ":
                self._note("escaped raw control character in string")
            out.append(char)
            self.i += 1

    def _escape(self) -> str:
        if self.i + 1 >= self.end:
            raise self._error("unterminated string (the input ends after a backslash)")
        code = self.text[self.i + 1]
        if code == "u":
            digits = self.text[self.i + 2 : self.i + 6]
            if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
                self.i += 6
                value = int(digits, 16)
                if 0xD800 <= value < 0xDC00 and self.text.startswith("\\u", self.i):
                    low_digits = self.text[self.i + 2 : self.i + 6]
                    if re.fullmatch(r"[dD][c-fC-F][0-9a-fA-F]{2}", low_digits):
                        self.i += 6
                        low = int(low_digits, 16)
                        return chr(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))
                return chr(value)
        elif code in _ESCAPES:
            self.i += 2
            return _ESCAPES[code]
        # An invalid escape such as "\d" in a regex or "C:\Users": the backslash was meant literally.
        self._note("kept invalid escape as a literal backslash")
        self.i += 1
        return "\\"
