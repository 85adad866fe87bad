"""Where an XML call's values end: the reading of the whole call that its structure supports.

A string value is raw text, so it may hold call syntax of its own: a test file full of
`</parameter>`, a chat template, a whole nested `<tool_call>`. A value therefore ends only at a
`</parameter>` after which the call's structure really continues: a parameter the tool declares and
has not been given yet, or `</function>` ending the call, with the rest of the call well formed too.
When several readings fit, the one that needs the fewest guesses wins, in this order:

1. no unexpected text outside the values;
2. every required parameter given;
3. no parameter of the schema swallowed: a value holding, at the start of a line, the tag of a
   declared parameter that the call gives nowhere else (not before it, no tag of it after) was ended
   there by a dropped `</parameter>`. Issue 51: `location` "Paris", `<parameter=unit>`, "celsius"
   with no `</parameter>` between is Paris and celsius, as the peers read it (vLLM ends a value at
   any next `<parameter=`), not one location "Paris\\n<parameter=unit>...". A tag the schema does
   not declare, or of a parameter given elsewhere, stays the value's text;
4. fewest dropped closing tags forgiven (a value ended by the next `<parameter=` or `</function>`);
5. fewest parameters the schema does not declare (unless it allows extra ones);
6. fewest structure tags left inside values;
7. fewest repeated parameters (below);
8. fewest ends without the newline the template writes after `</parameter>`;
9. fewest nested calls a value opens without closing them (`<function=...>`, a `<tool_call>`
   of a call);
10. then earlier values as long as possible (the last plausible end), which is what keeps a value
   holding `</parameter>\\n<parameter=path>` whole when `path` comes after it.

A parameter written twice (Qwen3-Coder-Next writes `filePath`, `content`, then `filePath` again)
is a repeat only when the second value is the first one again (trimmed; an empty value, or a first
one that is long or holds tags, is never repeated); then the last one is kept, as llama.cpp's XML
call parser and vLLM keep the last (and it is the same value). A second value that differs is never
taken as a new value: the text is the earlier value's own (a file holding
`</parameter>\\n<parameter=path>\\n/etc/passwd`), which no reading can tell from a model that
changed its mind, and taking it would let a file's content choose where the file is written.

`call_end` uses the same readings to decide, while text still streams, where a call is over.
"""

from __future__ import annotations

import bisect
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..calls.json_repair import JsonRepairError, repair_json
from ..calls.tags import CALL_CLOSE, CALL_OPEN, THINK_CLOSE
from ..calls.toolschema import SchemaError, tool_schema
from ..types import ToolSpec

FUNCTION_OPEN = "<function="
FUNCTION_CLOSE = "</function>"
PARAM_OPEN = "<parameter="
PARAM_CLOSE = "</parameter>"
_FUNCTION = re.compile(r"\s*<function=([^>\n]*)>")
_PARAM = re.compile(r"<parameter=([^>\n]*)>")
_WS = re.compile(r"\s*")
_NESTED = re.compile(r"<tool_call>(?=\s*(?:<function=|\{))|</tool_call>|<function=[^>\n]*>|</function>")
_FAKE = re.compile(r"</parameter>|</function>|</tool_call>|<parameter=")
_LINE_PARAM = re.compile(r"\n(<parameter=([^>\n]*)>)")
_DRIFTED_CLOSE = re.compile(r"</parameter(?!>)[\w-]*>?$")  # `</parameter1>`, `</parameter_x>`, `</parameter`
_DRIFT_SPAN = 64  # how far back from a value's end a drifted close tag is looked for
_FUNCTIONS_PREFIX = "functions."
_MAX_STATES = 4000
_MAX_DEPTH = 48
_MAX_REPEATS = 8
_REPEATABLE = 512  # the longest value whose repeat is looked for (paths, names, short texts)
_FEW = 16

_SLOTS = 10
Score = tuple[int, int, int, int, int, int, int, int, int, int]
_ZERO: Score = (0,) * _SLOTS  # type: ignore[assignment]
STRAY, MISSING, SWALLOWED, FORGIVEN, UNDECLARED, FAKES, REPEATED, LOOSE, UNBALANCED, EXTRA = range(_SLOTS)


def _cost(slot: int, amount: int = 1) -> Score:
    """A score of `amount` in one place."""
    if amount == 1:
        return _UNITS[slot]
    return tuple(amount if index == slot else 0 for index in range(_SLOTS))  # type: ignore[return-value]


_UNITS: tuple[Score, ...] = tuple(
    tuple(int(index == slot) for index in range(_SLOTS)) for slot in range(_SLOTS)  # type: ignore[misc]
)


def canonical_name(name: str, names: frozenset[str] | set[str]) -> str:
    """The tool name without OpenAI's `functions.` prefix, which some models write."""
    name = name.strip()
    if name.startswith(_FUNCTIONS_PREFIX) and name not in names:
        bare = name[len(_FUNCTIONS_PREFIX) :]
        if not names or bare in names:
            return bare
    return name


@dataclass(frozen=True)
class Shape:
    """What a tool's schema says about the parameter blocks of its calls."""

    names: frozenset[str] | None  # declared parameters (None: the schema names none, any is fine)
    required: frozenset[str] = frozenset()
    extra_ok: bool = True  # undeclared parameters allowed (`additionalProperties` given)


def shape_of(spec: ToolSpec | None) -> Shape:
    if spec is None:
        return Shape(None)
    try:
        resolved: Any = tool_schema(spec).resolved
    except SchemaError:
        resolved = spec.parameters
    if not isinstance(resolved, dict):
        return Shape(None)
    properties = resolved.get("properties")
    required = resolved.get("required")
    extra = resolved.get("additionalProperties")
    names = frozenset(properties) if isinstance(properties, dict) and properties else None
    needed = frozenset(r for r in required if isinstance(r, str)) if isinstance(required, list) else frozenset()
    return Shape(names, needed, extra is True or (isinstance(extra, dict) and extra != {"not": {}}))


@dataclass(frozen=True)
class Reading:
    """One call as its structure reads: the name, raw values (or one JSON object), and its score."""

    name: str
    values: tuple[tuple[str, str], ...] = ()
    json_arguments: Any = None  # `<function=NAME>{...}</function>`: the decoded object
    stray: str = ""  # text outside any value that does not belong to a call
    score: Score = _ZERO
    open_end: bool = False  # the last value runs to the end of the text: no closing tag came after it


def _add(a: Score, b: Score) -> Score:
    return tuple(map(operator.add, a, b))


_Seen = frozenset[tuple[str, str]]
"""Values given so far (trimmed) that a later tag of their parameter may repeat."""
_Key = tuple[int, frozenset[str], _Seen, int]
_Best = tuple[Score, tuple[int, ...], tuple[tuple[str, int, int], ...], str]


@dataclass
class _Search:
    text: str
    shape: Shape
    memo: dict[_Key, _Best] = field(default_factory=dict)
    states: int = 0
    fakes: list[int] = field(default_factory=list)
    nested: list[tuple[int, int, bool]] = field(default_factory=list)  # (end, kind, closes)
    nested_ends: list[int] = field(default_factory=list)
    line_tags: dict[str, list[int]] = field(default_factory=dict)  # each parameter's tags at a line start
    last_tag: dict[str, int] = field(default_factory=dict)  # where each parameter's last tag starts
    heads: dict[tuple[str, str], int] = field(default_factory=dict)  # (name, first line of value): last tag

    def __post_init__(self) -> None:
        self.fakes = [m.start() for m in _FAKE.finditer(self.text)]
        for m in _NESTED.finditer(self.text):
            tag = m.group()
            self.nested.append((m.end(), int("function" in tag), tag.startswith("</")))
        self.nested_ends = [end for end, _, _ in self.nested]
        for m in _LINE_PARAM.finditer(self.text):
            self.line_tags.setdefault(m.group(2).strip(), []).append(m.start(1))
        for m in _PARAM.finditer(self.text):
            name = m.group(1).strip()
            self.last_tag[name] = m.start()
            self.heads[(name, _head(self.text, m.end()))] = m.start()

    def fake_count(self, start: int, end: int) -> int:
        """Structure tags inside text[start:end] (starting inside it)."""
        return bisect.bisect_left(self.fakes, end) - bisect.bisect_left(self.fakes, start)

    def tail(self, pos: int, given: frozenset[str]) -> tuple[Score, str]:
        """The call's end from `pos`: optional `</function>`s, then nothing."""
        j = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
        while self.text.startswith(FUNCTION_CLOSE, j):
            j = _WS.match(self.text, j + len(FUNCTION_CLOSE)).end()  # type: ignore[union-attr]
        stray = self.text[j:].strip() if j < len(self.text) else ""
        missing = len(self.shape.required - given)
        return _add(_cost(STRAY, int(bool(stray))), _cost(MISSING, missing)), stray

    def name_cost(self, name: str, given: frozenset[str]) -> Score:
        """What taking `<parameter=name>` as the next parameter costs."""
        names = self.shape.names
        cost = _ZERO if names is None or name in names else _cost(EXTRA if self.shape.extra_ok else UNDECLARED)
        return _add(cost, _cost(REPEATED)) if name in given else cost

    def best(self, pos: int, given: frozenset[str], seen: _Seen = frozenset(), repeats: int = 0) -> _Best:
        """(score, value ends, (key, value start, value end)..., stray text) of the best reading of
        the parameters from `pos` (at a `<parameter=` tag or the call's end)."""
        key = (pos, given, seen, repeats)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.states += 1
        score, stray = self.tail(pos, given)
        result: _Best = (score, (), (), stray)
        j = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
        tag = _PARAM.match(self.text, j)
        if tag is not None:
            name = tag.group(1).strip()
            repeat = name in given
            now = given | {name}
            step = _Step(now, seen, repeats + repeat, name, tag.end())
            if repeat:
                earlier = _earlier(seen, name)
                ends = [] if earlier is None else self._repeat_ends(tag.end(), earlier, step)
            else:
                ends = self._value_ends(tag.end(), step)
            for cost, end, resume in ends:
                known = seen
                # a later tag may repeat this value (one that is long or holds tags is not looked for)
                if not repeat and self.last_tag[name] > end and not self.fake_count(tag.end(), end):
                    value = self.text[tag.end() : end].strip()
                    if 0 < len(value) <= _REPEATABLE and self.heads.get((name, _head(value, 0)), -1) > end:
                        known = seen | {(name, value)}
                if resume >= 0:
                    sub = self.best(resume, now, known, step.repeats)
                else:
                    sub = (self.tail(len(self.text), now)[0], (), (), "")
                value_cost = _add(cost, self._value_cost(tag.end(), end, step))
                total = _add(value_cost, sub[0])
                candidate = (total, (-end, *sub[1]), ((name, tag.end(), end), *sub[2]), sub[3])
                if (candidate[0], candidate[1]) < (result[0], result[1]):
                    result = candidate
        self.memo[key] = result
        return result

    def _value_cost(self, start: int, end: int, step: _Step) -> Score:
        depth = [0, 0]  # (tool_call, function): each closing tag closes only its own kind
        first = bisect.bisect_right(self.nested_ends, start)
        for _end, kind, closes in self.nested[first : bisect.bisect_right(self.nested_ends, end)]:
            depth[kind] = max(0, depth[kind] - 1) if closes else depth[kind] + 1
        score = [0] * _SLOTS
        score[UNBALANCED] = sum(depth)
        score[FAKES] = self.fake_count(start, end)
        score[SWALLOWED] = self._swallowed(start, end, step.given)
        return tuple(score)  # type: ignore[return-value]

    def _swallowed(self, start: int, end: int, given: frozenset[str]) -> int:
        """Tags of declared parameters that start a line inside text[start:end] and that the call gives
        nowhere else: not before, and no tag of them after the value. (A tag of a parameter given
        before, even with its value again, stays text: a dropped `</parameter>` and a repeat at once
        are one guess too many for a value that may hold such text.)"""
        names = self.shape.names
        if names is None:
            return 0
        count = 0
        for name in names - given:
            tags = self.line_tags.get(name)
            if tags and self.last_tag[name] < end:
                count += bisect.bisect_left(tags, end) - bisect.bisect_left(tags, start)
        return count

    def _value_ends(self, start: int, step: _Step) -> list[tuple[Score, int, int]]:
        """(cost, end of the value, where the next parameter or the end starts; -1: the text's end)."""
        text = self.text
        out: list[tuple[Score, int, int]] = []
        exhausted = self.states > _MAX_STATES or len(step.given) > _MAX_DEPTH
        at = text.find(PARAM_CLOSE, start)
        while at >= 0:
            found = self._closed_end(at, step, exhausted)
            if found is not None:
                out.append(found)
            at = text.find(PARAM_CLOSE, at + len(PARAM_CLOSE))
        out = _few(out)
        forgiven = self._forgiven_ends(start, step, exhausted)
        out.extend(_few([end for end in forgiven if not _closed(text, start, end[1])]))
        return out

    def _closed_end(self, at: int, step: _Step, exhausted: bool) -> tuple[Score, int, int] | None:
        """The end of a value at the `</parameter>` at `at`, if the call's structure goes on after it."""
        text = self.text
        after = at + len(PARAM_CLOSE)
        j = _WS.match(text, after).end()  # type: ignore[union-attr]
        while text.startswith(PARAM_CLOSE, j):  # a duplicated `</parameter>` (Qwen 3.6 writes one)
            j = _WS.match(text, j + len(PARAM_CLOSE)).end()  # type: ignore[union-attr]
        # the template writes a newline after `</parameter>` (compact calls, all on one line, exist too)
        loose = _cost(LOOSE) if j < len(text) and "\n" not in text[after:j] else _ZERO
        if j >= len(text) or text.startswith(FUNCTION_CLOSE, j):
            return loose, at, j
        if not exhausted and (tag := _PARAM.match(text, j)) is not None:
            cost = self._next_cost(tag, step, at)
            if cost is not None:
                return _add(cost, loose), at, j
        return None

    def _next_cost(self, tag: re.Match[str], step: _Step, end: int) -> Score | None:
        """What taking the parameter `tag` opens next, after the value that ends at `end`, costs; None
        for a repeat that cannot be one: past `_MAX_REPEATS`, or with another value than the first
        (module docstring)."""
        name = tag.group(1).strip()
        if name in step.given:
            earlier = _earlier(step.seen, name)
            if name == step.name:  # the value just read, written again at once
                earlier = self.text[step.start : end].strip()
            if step.repeats >= _MAX_REPEATS or not earlier or self._repeat_end(tag.end(), earlier) is None:
                return None  # (an empty value is no value to repeat: `<parameter=x>` may be its text)
        return self.name_cost(name, step.given)

    def _repeat_end(self, start: int, earlier: str) -> int | None:
        """Where a repeated value that is `earlier` again (trimmed) ends its whitespace, or None."""
        text = self.text
        j = _WS.match(text, start).end()  # type: ignore[union-attr]
        if not text.startswith(earlier, j):
            return None
        end = _WS.match(text, j + len(earlier)).end()  # type: ignore[union-attr]
        if end == len(text) or text.startswith((PARAM_CLOSE, PARAM_OPEN, FUNCTION_CLOSE), end):
            return end
        return None

    def _repeat_ends(self, start: int, earlier: str, step: _Step) -> list[tuple[Score, int, int]]:
        """The ends of a repeated value that is `earlier` again: only where that text ends."""
        end = self._repeat_end(start, earlier)
        if end is None:
            return []
        text = self.text
        if text.startswith(PARAM_CLOSE, end):
            found = self._closed_end(end, step, self.states > _MAX_STATES)
            return [] if found is None else [found]
        forgiven = _cost(FORGIVEN)  # (the ends `_forgiven_ends` would find there)
        if end == len(text):
            return [(forgiven, end, -1)]
        newline = text[end - 1] == "\n"
        if text.startswith(FUNCTION_CLOSE, end):
            if newline:
                return [(forgiven, end - 1, end)]
            last = text.rstrip().endswith(FUNCTION_CLOSE) and text.rfind(FUNCTION_CLOSE) == end
            return [(forgiven, end, end)] if last else []
        tag = _PARAM.match(text, end)
        cost = self._next_cost(tag, step, end - 1) if newline and tag is not None else None
        return [] if cost is None else [(_add(forgiven, cost), end - 1, end)]

    def _forgiven_ends(self, start: int, step: _Step, exhausted: bool) -> list[tuple[Score, int, int]]:
        """Ends of a value whose `</parameter>` was dropped: the next parameter, `</function>`, the end."""
        text = self.text
        out: list[tuple[Score, int, int]] = []
        forgiven = _cost(FORGIVEN)
        if not exhausted:
            at = text.find(f"\n{PARAM_OPEN}", start)
            while at >= 0:
                tag = _PARAM.match(text, at + 1)
                cost = self._next_cost(tag, step, at) if tag is not None else None
                if cost is not None:
                    out.append((_add(forgiven, cost), _undrifted(text, start, at), at + 1))
                at = text.find(f"\n{PARAM_OPEN}", at + 1)
        at = text.find(f"\n{FUNCTION_CLOSE}", start)
        while at >= 0:
            out.append((forgiven, _undrifted(text, start, at), at + 1))
            at = text.find(f"\n{FUNCTION_CLOSE}", at + 1)
        end = len(text)
        stripped = text.rstrip()
        if stripped.endswith(FUNCTION_CLOSE) and stripped.rfind(FUNCTION_CLOSE) >= start:
            end = stripped.rfind(FUNCTION_CLOSE)
        out.append((forgiven, _undrifted(text, start, end), end if end < len(text) else -1))
        return out


@dataclass(frozen=True)
class _Step:
    """The value being read: the parameters given with it, the values a later tag may repeat, the
    repeats so far, its parameter and where it starts (what may follow its end)."""

    given: frozenset[str]
    seen: _Seen
    repeats: int
    name: str
    start: int


def _undrifted(text: str, start: int, end: int) -> int:
    """The end of a value whose `</parameter>` never came, before a close tag that drifted at its end
    (`</parameter1>`, `</parameter_x>`, a bare `</parameter`): the tag is the close the model meant,
    not the value's text, as SGLang reads it. Only an unclosed value is trimmed: one closed by a real
    `</parameter>` keeps an ending such as `</parameters>` (XML a coder model writes)."""
    last = _trimmed(text, start, end)
    window = max(start, last - _DRIFT_SPAN)  # a short window: a long value is not searched again per end
    drift = _DRIFTED_CLOSE.search(text, window, last)
    return end if drift is None else _trimmed(text, start, drift.start())


def _trimmed(text: str, start: int, end: int) -> int:
    """`end` moved back over the whitespace before it (not past `start`)."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _earlier(seen: _Seen, name: str) -> str | None:
    return next((value for key, value in seen if key == name), None)


def _head(text: str, start: int) -> str:
    """The first line of the value starting at `start` (after its whitespace), up to a `</parameter>`:
    the same for a value and the text after a tag that repeats it."""
    start = _WS.match(text, start).end()  # type: ignore[union-attr]
    newline = text.find("\n", start)
    line = text[start : newline if newline >= 0 else len(text)]
    close = line.find(PARAM_CLOSE)
    return (line if close < 0 else line[:close]).rstrip()


def read_xml_call(body: str, tools: Sequence[ToolSpec]) -> Reading | None:
    """The best reading of one XML call body (None when it has no `<function=NAME>`)."""
    match = _FUNCTION.match(body)
    if match is None:
        return None
    name = canonical_name(match.group(1), frozenset(tool.name for tool in tools))
    spec = next((tool for tool in tools if tool.name == name), None)
    shape = shape_of(spec)
    start = _WS.match(body, match.end()).end()  # type: ignore[union-attr]
    if body.startswith("{", start):  # arguments as one JSON object inside the XML form
        inner = body[start:].rstrip()
        while inner.endswith(FUNCTION_CLOSE):
            inner = inner[: -len(FUNCTION_CLOSE)].rstrip()
        try:
            value, _ = repair_json(inner)
        except (JsonRepairError, RecursionError):
            value = None
        if isinstance(value, dict):
            return Reading(name, json_arguments=value)
    search = _Search(body, shape)
    score, _ends, values, stray = search.best(match.end(), frozenset())
    open_end = bool(values) and not body[values[-1][2] :].strip()
    return Reading(name, tuple((key, body[begin:end]) for key, begin, end in values), None, stray, score, open_end)


class CallEnds:
    """Where an XML call ends while its text streams in; readings are kept per possible end, since
    the body only grows."""

    def __init__(self, tools: Sequence[ToolSpec] = ()) -> None:
        self._tools = tuple(tools)
        self._cache: dict[int, Reading | None] = {}

    def reset(self) -> None:
        self._cache.clear()

    def reading(self, body: str, stop: int) -> Reading | None:
        if stop not in self._cache:
            self._cache[stop] = read_xml_call(body[:stop], self._tools)
        return self._cache[stop]

    def _next_call_reads(self, inner: str) -> bool:
        """Whether the call `inner` (from `_next_call`) reads perfectly."""
        nested = CallEnds(self._tools)
        end = nested.call_end(inner, final=True)
        reading = nested.reading(inner, end[0]) if end is not None else None
        return reading is not None and not any(_key(reading))

    def call_end(self, body: str, final: bool, in_think: bool = False) -> tuple[int, int, bool] | None:
        """(end of the call, start of what follows it, whether `</tool_call>` closed it), or None
        while it may still go on.

        An end is a `</tool_call>`, or a `</function>` followed by something else (its `</tool_call>`
        dropped). Whatever follows an end may still be the rest of a value (a file holding a whole
        call and more), so the end is settled when the reply is over: the first end where the call
        reads perfectly and another call that reads perfectly follows, else the last end after which
        the call reads best (`_key`). A call
        drafted inside `<think>` is settled sooner, at an end followed by `</think>` where nothing is
        stray or forgiven, so the reasoning and answer after it stream.
        """
        if not final and not in_think:
            return None
        ends: list[tuple[int, int, bool]] = []
        for at in _positions(body, CALL_CLOSE):
            ends.append((at, at + len(CALL_CLOSE), True))
        for at in _positions(body, FUNCTION_CLOSE):
            after = at + len(FUNCTION_CLOSE)
            skip = _WS.match(body, after).end()  # type: ignore[union-attr]
            rest = body[skip : skip + len(CALL_CLOSE)]
            if rest.startswith(CALL_CLOSE) or (not final and CALL_CLOSE.startswith(rest)):
                continue  # its `</tool_call>` follows (or may)
            ends.append((after, after, False))
        ends.sort()
        for stop, resume, closed in ends:
            follow = body[resume:].lstrip()
            if not in_think or final:
                break
            if THINK_CLOSE.startswith(follow):
                return None  # cannot tell yet what follows
            if follow.startswith(THINK_CLOSE):
                reading = self.reading(body, stop)
                if reading is not None and not reading.score[STRAY] and not reading.score[FORGIVEN]:
                    return stop, resume, closed
        if not final:
            return None
        if not ends:
            return len(body), len(body), False
        for stop, resume, closed in ends:  # an end followed by another call that reads perfectly
            inner = _next_call(body[resume:])
            if inner is None:
                continue
            reading = self.reading(body, stop)
            if reading is not None and not any(_key(reading)) and self._next_call_reads(inner):
                return stop, resume, closed
        best: tuple[int, ...] | None = None
        choice = ends[0]
        for stop, resume, closed in reversed(ends):  # (ties: the later end)
            reading = self.reading(body, stop)
            if reading is None:
                continue
            key = _key(reading)
            if best is None or key < best:
                best, choice = key, (stop, resume, closed)
            if not any(key):
                break  # nothing reads better than a perfect reading
        return choice


def _next_call(rest: str) -> str | None:
    """The next XML call's body in `rest` when nothing but prose comes before it: no closing tag
    (the rest of a value would end in closing tags). None when there is none."""
    rest = rest.lstrip()
    if rest.startswith(FUNCTION_OPEN):
        return rest
    at = rest.find(CALL_OPEN)
    if at < 0 or any(tag in rest[:at] for tag in (PARAM_CLOSE, FUNCTION_CLOSE, CALL_CLOSE)):
        return None
    inner = rest[at + len(CALL_OPEN) :]
    return inner if _FUNCTION.match(inner) else None


def _key(reading: Reading) -> tuple[int, ...]:
    """What decides between a call's possible ends: nothing stray, nothing required missing, no
    parameter swallowed, no dropped tag forgiven, no nested call left open."""
    return tuple(reading.score[slot] for slot in (STRAY, MISSING, SWALLOWED, FORGIVEN, UNBALANCED))


def _few(ends: list[tuple[Score, int, int]]) -> list[tuple[Score, int, int]]:
    """The first and last `_FEW` candidate ends of a value: a value holding hundreds of closing tags
    ends at one of its first few (a short value) or last few (the real end) in every real reply."""
    return ends if len(ends) <= 2 * _FEW else ends[:_FEW] + ends[-_FEW:]


def _closed(text: str, start: int, end: int) -> bool:
    """Whether the value text[start:end] ends in `</parameter>` (then that tag is its end, not text)."""
    return text[start:end].rstrip().endswith(PARAM_CLOSE)


def _positions(text: str, tag: str) -> list[int]:
    out: list[int] = []
    at = text.find(tag)
    while at >= 0:
        out.append(at)
        at = text.find(tag, at + 1)
    return out
