"""Budget-aware closing of a constrained tool call: a call that would run past `max_tokens` is closed in time.

A weak model can write a free string (`"ididid..."`), an array or a map forever inside a grammar that
allows it, so the call never reaches its closing tag. The grammar alone cannot know how many tokens are
left, and llguidance cannot change a grammar in the middle of a lexeme; so the budget is kept beside it:

- `CallScanner` follows the call's bytes as they are consumed: whether a JSON string is open, which
  top-level argument is being written (JSON `arguments` key, or XML `<parameter=NAME>`). A few bytes a
  token, no grammar work.
- `closing_plan` asks the grammar itself for the shortest way out: on a copy of the matcher it takes,
  step by step, the first of a fixed list of closers the grammar allows (`"` inside a string;
  `\\n</parameter>`, `</function>`, `}`, `]`, `,` outside one; then the smallest values `0`, `""`, `[]`,
  `{}`, `null`), else the tokens the grammar forces, else the lowest token id it allows (a short one:
  progress through a required key, a `minLength`, a `pattern`). Every token of the plan is one the
  grammar accepted, so the closed call is as schema-valid as any other: the required arguments a
  closed call still lacked are written with their smallest values.
- `BudgetWatch` decides when: once fewer than 2 x `MAX_PLAN` tokens are left it plans, then again as
  the distance to the limit halves, and every token in the last few; when the plan plus
  `CLOSE_MARGIN` reaches the tokens left, the plan is forced. Near the limit (`TIGHT`) each sampled
  token is tried first (`settle`): one after which no plan fits (an optional parameter opened at the
  last moment) is replaced by the plan's first token. Between calls under `required` a new call may
  start only while a whole shortest call still fits. Until a plan can be due a request pays a few
  microseconds a token (counting, following the bytes).

The tried alternative, llguidance `max_tokens` or `maxLength` bounds derived from the budget when the
call opens, bounds each value alone (two strings may each take all that is left), costs a grammar
compile per budget, and the XML lexer gives up on bounds past ~800 (`constrain_xml.MAX_BOUND`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from llguidance import LLMatcher, LLTokenizer

from ..calls.tags import CALL_CLOSE, CALL_OPEN
from .xml_form import PARAM_CLOSE

CLOSE_MARGIN = 8
"""Tokens kept in hand beyond the plan: one sampled token can open a structure that needs more to close."""
TIGHT = 2 * CLOSE_MARGIN
"""Within this many tokens of the reserve, each sampled token is checked: after it, can the call still close?"""
MAX_PLAN = 512
"""The longest plan looked for; a call that cannot be closed in fewer is left as it is (and reported cut)."""

_FIRST_LOOK = 2 * MAX_PLAN  # with more left than this, no plan can be due yet
_CALL_OPEN_B = CALL_OPEN.encode()
_CALL_CLOSE_B = CALL_CLOSE.encode()
_STRING_STOP = re.compile(rb'["\\]')
_XML_EVENT = re.compile(rb"<parameter=([^>\n]{1,64})>\n|" + re.escape(PARAM_CLOSE.encode()))
_TAIL = 96  # longer than `<parameter=NAME>\n` with the longest name and `<tool_call>`
#: what closes a value or a call, best first; the JSON value starts after them are the shortest values
_OUTSIDE = ("}", "]", ",", "0", '""', "[]", "{}", "null", "false", "true")
_XML_FIRST = (PARAM_CLOSE, "</function>")


@dataclass
class CallScanner:
    """Where a call's bytes stand: inside a JSON string or not, and the argument being written.

    `xml`: the XML call format, where a value starts after `<parameter=NAME>\\n` and ends at
    `\\n</parameter>` (which a raw value cannot contain, so the end is never spoofed); inside it the
    JSON lexer runs too (for JSON values; for raw text it is meaningless and only orders closers).
    """

    xml: bool
    in_string: bool = False
    escape: bool = False
    parameter: str | None = None
    calls: int = 0
    between: bool = False
    """A call's closing tag came and no new call opened yet (under `required` another may follow)."""
    _stack: list[str] = field(default_factory=list)
    _keys: list[str | None] = field(default_factory=list)
    _expect_key: bool = False
    _key: bytearray | None = None
    _tail: bytes = b""

    def copy(self) -> CallScanner:
        return CallScanner(
            self.xml,
            self.in_string,
            self.escape,
            self.parameter,
            self.calls,
            self.between,
            list(self._stack),
            list(self._keys),
            self._expect_key,
            None if self._key is None else bytearray(self._key),
            self._tail,
        )

    @property
    def argument(self) -> str | None:
        """The top-level argument whose value is being written (None between arguments)."""
        if self.xml:
            return self.parameter
        if len(self._stack) >= 2 and self._keys[0] == "arguments" and not (len(self._stack) == 2 and self._expect_key):
            return self._keys[1]
        return None

    def feed(self, data: bytes) -> None:
        buf = self._tail + data
        at = buf.rfind(_CALL_OPEN_B, max(0, len(self._tail) - len(_CALL_OPEN_B) + 1))
        if at >= 0:  # a new call (the `required` grammar writes several): start over after its tag
            self._reset()
            self.calls += 1
            self._tail = b""
            self.feed(buf[at + len(_CALL_OPEN_B) :])
            return
        if self.xml:
            self._feed_xml(buf, len(self._tail))
        else:
            self._lex(data)
        if not self.between and buf.find(_CALL_CLOSE_B, max(0, len(self._tail) - len(_CALL_CLOSE_B) + 1)) >= 0:
            self.between = True
        self._tail = buf[-_TAIL:]

    def _reset(self) -> None:
        self.in_string = self.escape = self._expect_key = self.between = False
        self.parameter = self._key = None
        self._stack.clear()
        self._keys.clear()

    def _feed_xml(self, buf: bytes, start: int) -> None:
        last: re.Match[bytes] | None = None
        for match in _XML_EVENT.finditer(buf):
            if match.end() <= start:
                continue
            if match.group(1) is None:
                self.parameter, last = None, match
            elif self.parameter is None:  # an opening tag inside a value is the value's text
                self.parameter, last = match.group(1).decode("utf-8", "replace"), match
        if last is None:
            self._lex(buf[start:])
            return
        self.in_string = self.escape = False
        self._stack.clear()
        self._keys.clear()
        self._lex(buf[last.end() :])

    def _lex(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n:
            if self.in_string:
                if self.escape:
                    self.escape = False
                    i += 1
                    continue
                found = _STRING_STOP.search(data, i)
                end = found.start() if found is not None else n
                if self._key is not None and len(self._key) < 256:
                    self._key += data[i:end]
                if found is None:
                    return
                i = end + 1
                if data[end] == 0x5C:  # backslash
                    self.escape = True
                    continue
                self.in_string = False
                if self._key is not None:
                    self._keys[-1] = self._key.decode("utf-8", "replace")
                    self._key = None
                continue
            c = data[i]
            i += 1
            if c == 0x22:  # "
                self.in_string = True
                if self._stack and self._stack[-1] == "{" and self._expect_key:
                    self._key = bytearray()
            elif c in (0x7B, 0x5B):  # { [
                self._stack.append(chr(c))
                self._keys.append(None)
                self._expect_key = c == 0x7B
            elif c in (0x7D, 0x5D):  # } ]
                if self._stack:
                    self._stack.pop()
                    self._keys.pop()
                self._expect_key = False
            elif c == 0x3A:  # :
                self._expect_key = False
            elif c == 0x2C:  # ,
                self._expect_key = bool(self._stack) and self._stack[-1] == "{"


class _Words:
    """The token sequences of the closers for one tokenizer, built once."""

    def __init__(self, tokenizer: LLTokenizer) -> None:
        def seq(text: str) -> list[int]:
            return list(tokenizer.tokenize_str(text, parse_special=True))

        self.quote = [seq('"')]
        self.outside = [seq(text) for text in _OUTSIDE]
        self.xml_first = [seq(text) for text in _XML_FIRST]
        self.tags = [seq(CALL_OPEN), seq(CALL_CLOSE)]
        self.eos = tokenizer.eos_token


_words: dict[int, tuple[LLTokenizer, _Words]] = {}
_words_lock = threading.Lock()


def _words_for(tokenizer: LLTokenizer) -> _Words:
    with _words_lock:
        hit = _words.get(id(tokenizer))
        if hit is not None and hit[0] is tokenizer:
            return hit[1]
    words = _Words(tokenizer)
    with _words_lock:
        if len(_words) > 16:
            _words.clear()
        _words[id(tokenizer)] = (tokenizer, words)
    return words


def _candidates(scanner: CallScanner, words: _Words) -> list[list[int]]:
    if scanner.in_string:  # `</function>` would be the string's text; `\n</parameter>` ends a raw value
        return [words.xml_first[0], *words.quote] if scanner.xml else words.quote
    first = words.xml_first if scanner.xml else []
    return [*first, *words.outside, *words.tags]


def _lowest_allowed(matcher: LLMatcher) -> int | None:
    mask = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint32)
    words = np.flatnonzero(mask)
    if not words.size:
        return None
    word = int(mask[words[0]])
    return int(words[0]) * 32 + (word & -word).bit_length() - 1


def _next_step(matcher: LLMatcher, scanner: CallScanner, words: _Words) -> list[int]:
    forced = list(matcher.compute_ff_tokens())
    if forced:  # no alternative: a key's name, a tag
        return forced
    for candidate in _candidates(scanner, words):
        if candidate and matcher.validate_tokens(candidate) == len(candidate):
            return candidate
    lowest = _lowest_allowed(matcher)
    return [] if lowest is None or lowest == words.eos else [lowest]


def closing_plan(
    matcher: LLMatcher, scanner: CallScanner, tokenizer: LLTokenizer, limit: int = MAX_PLAN
) -> list[int] | None:
    """The tokens that close the call from here (the end-of-turn token last where the grammar ends the
    reply with it), found on copies; None when no plan of at most `limit` tokens was found."""
    words = _words_for(tokenizer)
    m, s = matcher.deep_copy(), scanner.copy()
    plan: list[int] = []
    limit = min(limit, MAX_PLAN)
    while len(plan) <= limit:
        if m.is_stopped():
            return plan
        if m.is_accepting():
            if m.validate_tokens([words.eos]) == 1:
                plan.append(words.eos)
            return plan if len(plan) <= limit else None
        step = _next_step(m, s, words)
        if not step:
            return None
        for token in step:
            if not m.consume_token(token):
                return None
            s.feed(tokenizer.decode_bytes([token]))
        plan += step
    return None


@dataclass(frozen=True)
class Cut:
    """A call the budget closed early: the argument whose value was cut (None: closed between arguments)."""

    argument: str | None

    def note(self) -> str:
        if self.argument is None:
            return "the call was closed early to fit the token limit"
        return f"the value of `{self.argument}` was cut to fit the token limit"


class BudgetWatch:
    """When to close: plans as the distance to the limit halves; forces the plan once it is due."""

    def __init__(self, tokenizer: LLTokenizer, budget: int, *, xml: bool) -> None:
        self.tokenizer = tokenizer
        self.budget = budget
        self.used = 0
        self.xml = xml
        self.scanner = CallScanner(xml)
        self.plan: list[int] | None = None
        self.reserve = CLOSE_MARGIN
        self._next_check = min(budget, _FIRST_LOOK)
        self._gave_up = False
        self._fresh: int | None = None
        #: a plan `settle` made from after the token it let through, and what is left of it once consumed
        self._settled: tuple[int, list[int]] | None = None
        self._known: list[int] | None = None

    @property
    def left(self) -> int:
        return self.budget - self.used

    def restart(self) -> None:
        """A grammar (re)starts: a new call, or the reply that must open with one."""
        self.scanner = CallScanner(self.xml)
        self.plan = None
        self._next_check = min(self.budget, _FIRST_LOOK)
        self._gave_up = False
        self._settled = self._known = None

    def consumed(self, token: int, *, counted: bool, tracking: bool) -> None:
        """`token` went through the grammar (`tracking`) or not; `counted`: one of the reply's tokens."""
        if counted:
            self.used += 1
        if not tracking:
            return
        if self.plan:
            if self.plan[0] == token:
                self.plan.pop(0)
            else:  # something else was appended: plan again before the next token
                self.plan = None
                self._next_check = self.budget
        if self._settled is not None:  # `settle` planned from after this token already
            self._known = self._settled[1] if self._settled[0] == token else None
            self._settled = None
        elif self._known:
            self._known = self._known[1:] if self._known[0] == token else None
        self.scanner.feed(self.tokenizer.decode_bytes([token]))

    def due(self, matcher: LLMatcher) -> list[int] | None:
        """The plan to force now (None: the model may choose). True once due, until the call ends."""
        if self.plan is not None or self._gave_up:
            return self.plan
        left = self.left
        if left > self._next_check and not (self.scanner.between and matcher.is_accepting()):
            return None  # (between calls a look every token: a new call would need a whole one to close)
        known, self._known = self._known, None
        plan = known if known is not None else closing_plan(matcher, self.scanner, self.tokenizer, limit=max(left, 0))
        if plan is None:
            self._gave_up = True  # nothing closes in time: the call stays open and is reported cut
            return None
        self.reserve = len(plan) + CLOSE_MARGIN
        if plan == [self.tokenizer.eos_token]:  # between calls: another one may start only if it can end
            self.reserve += self._call_cost(matcher)
        if self.reserve >= left:
            self.plan = plan
            return plan
        self._next_check = left - max(1, (left - self.reserve) // 2)
        return None

    def tight(self) -> bool:
        """Close enough to the limit that one free token could leave the call no way to close in time."""
        return self.plan is None and not self._gave_up and self.left <= self.reserve + TIGHT

    def settle(self, matcher: LLMatcher, token: int) -> int:
        """`token` (sampled, not yet consumed), or the plan's first token when after `token` no plan
        would fit in what is left: near the limit one token can open more than the margin can close
        (an optional parameter, an object with required keys)."""
        after = matcher.deep_copy()
        if not after.consume_token(token):
            return token
        scanner = self.scanner.copy()
        scanner.feed(self.tokenizer.decode_bytes([token]))
        left = self.left - 1
        if after.is_stopped():
            return token
        plan_after = closing_plan(after, scanner, self.tokenizer, limit=left)
        if plan_after is not None:
            self._settled = (token, plan_after)  # the next look at the budget starts from it
            return token
        plan = closing_plan(matcher, self.scanner, self.tokenizer, limit=self.left)
        if not plan:
            return token
        self.plan = plan  # closing is due now: this token was the last free one
        return plan[0]

    def _call_cost(self, matcher: LLMatcher) -> int:
        """The tokens of the shortest whole call the grammar allows (planned from its start, once)."""
        if self._fresh is None:
            fresh = matcher.deep_copy()
            fresh.reset()
            plan = closing_plan(fresh, CallScanner(self.xml), self.tokenizer)
            self._fresh = MAX_PLAN if plan is None else len(plan)
        return self._fresh

    def draft_room(self) -> int:
        """How many drafted tokens may be taken before the next look at the budget."""
        return max(0, self.left - self._next_check) + 1


def plan_prefix(plan: Sequence[int], draft: Sequence[int]) -> int:
    """How many leading draft tokens the forced plan agrees with."""
    n = 0
    for want, got in zip(plan, draft, strict=False):
        if want != got:
            break
        n += 1
    return n


__all__ = ["CLOSE_MARGIN", "BudgetWatch", "CallScanner", "Cut", "closing_plan", "plan_prefix"]
