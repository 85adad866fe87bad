"""The incremental reply parser every backend feeds decoded text into, token by token.

It separates reasoning, answer text and tool calls, and absorbs the ways small models damage them:
tags split across tokens, calls written inside `<think>`, a dropped `<tool_call>`, a missing
`</tool_call>`, bare JSON calls, damaged JSON. A `<tool_call>` holds either Qwen 3's JSON or the
XML form of Qwen3-Coder and Qwen 3.5 (`xmlcalls`); one reply may mix them. Prose streams out at
once; only what could still be a tag ("<too"), a run of whitespace, or a JSON object that opens like
a call is held back.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from enum import Enum

from ..calls.tags import CALL_CLOSE, CALL_OPEN, PARTIAL, THINK_CLOSE, THINK_OPEN, match_tag
from ..types import Event, ReasoningDelta, TextDelta, ToolCallError, ToolCallEvent, ToolSpec
from .cutoff import JSON_OPEN_WHERE, call_name, cut_off_error, json_values_whole, open_xml_call, unclosed_error
from .prose import Channel, reasoning_channel, text_channel
from .toolcalls import JsonTracker, call_start_verdict, interpret_call, names_offered_call
from .wrappers import WRAPPER_PARTIAL, wrapper_close, wrapper_open
from .xmlcalls import CallEnds, interpret_xml_call
from .xmlreading import FUNCTION_CLOSE, FUNCTION_OPEN, PARAM_CLOSE, PARAM_OPEN

_PROSE_STOP = re.compile(r"[<{`]")
_CALL_PREFIX_STOP = re.compile(r"[<{\[]")
_CALL_TRAILER = re.compile(r"[\s`}\]]+")  # whitespace, a closing fence, stray closers
_WHITESPACE = re.compile(r"\s+")
_MENTION_STOP = re.compile(r"[\n<]")
_PYTHONIC_CALL = re.compile(r"\s*[\w.-]+\s*\(.*\)\s*", re.DOTALL)


class _State(Enum):
    TEXT = "text"
    THINK = "think"
    CALL = "call"


def new_call_id() -> str:
    """A unique id in OpenAI's style."""
    return "call_" + secrets.token_hex(6)


class ReplyParser:
    """Turns a model's decoded text, fed in any pieces, into reasoning, text and tool-call events."""

    def __init__(
        self,
        tools: Sequence[ToolSpec] = (),
        *,
        starts_in_think: bool = False,
        id_factory: Callable[[], str] | None = None,
    ) -> None:
        self._tools = tuple(tools)
        self._names = frozenset(tool.name for tool in self._tools)
        self._new_id = id_factory or new_call_id
        self._state = _State.THINK if starts_in_think else _State.TEXT
        self._text = text_channel()
        self._reasoning = reasoning_channel()
        self._out: list[Event] = []
        self._t = ""  # the text being processed
        self._i = 0  # position in it
        self._hold = ""  # a possible tag at the end of the last feed
        self._line_blank = True  # only whitespace since the last newline or tag
        self._saw_think = starts_in_think
        self._finished = False
        self._cutting = False  # finish(truncated=True): a call still open now was cut off
        self._ends = CallEnds(self._tools)
        self._drafts: list[Event] = []  # calls written inside <think>, run if no real call follows
        self._wrapper = ""  # a fence or tag before a bare JSON call, dropped if the call is one
        self._closer = ""  # the closing fence or tag still to drop after such a call
        self.saw_stray_think_close = False
        """A `</think>` came with no think block open (Qwen 3 2507 style, see `parse_reply`)."""
        self._reset_call(_State.TEXT, tentative=False)

    # ------------------------------------------------------------ public

    @property
    def in_think(self) -> bool:
        """Inside reasoning (not inside a call written within it)."""
        return self._state is _State.THINK

    @property
    def in_tool_call(self) -> bool:
        """Inside a `<tool_call>` body: the moment to constrain generation to call JSON."""
        return self._state is _State.CALL and not self._tentative and not self._mention and not self._maybe_over

    @property
    def reasoning_chars(self) -> int:
        return self._reasoning.chars

    def feed(self, text: str) -> list[Event]:
        """Events made complete by `text`; anything still ambiguous waits for the next feed."""
        if self._finished:
            raise RuntimeError("ReplyParser.feed() called after finish()")
        if text:
            self._t, self._i, self._hold = self._hold + text, 0, ""
            self._run(final=False)
        return self._take()

    def finish(self, *, truncated: bool = False) -> list[Event]:
        """The reply is over: flush held text and settle any unfinished call.

        `truncated`: it ended at the token limit (finish_reason "length"). Then a call not closed by
        `</tool_call>` (by `</function>` for an XML call whose `<tool_call>` was dropped, by its last
        brace for bare JSON) was cut off: it becomes a `ToolCallError` with `truncated=True`, never a call.
        """
        if self._finished:
            return []
        self._finished = True
        self._cutting = truncated
        self._t, self._i, self._hold = self._hold, 0, ""
        self._run(final=True)
        while self._state is _State.CALL:
            self._end_call_at_eof()
            self._run(final=True)
        self._out.extend(self._drafts)  # no real call came after them: they are the calls
        self._drafts = []
        return self._take()

    # ------------------------------------------------------------ machinery

    def _take(self) -> list[Event]:
        """The events so far, adjacent deltas of one kind joined (one per feed, not one per segment)."""
        events: list[Event] = []
        run: list[str] = []
        for index, event in enumerate(self._out):
            if not isinstance(event, TextDelta | ReasoningDelta):
                events.append(event)
                continue
            run.append(event.text)
            following = self._out[index + 1] if index + 1 < len(self._out) else None
            if type(following) is not type(event):
                events.append(type(event)("".join(run)))
                run = []
        self._out = []
        return events

    def _run(self, final: bool) -> None:
        while self._i < len(self._t) and not self._hold:
            if self._state is _State.CALL:
                self._scan_call(final)
            else:
                self._scan_prose(final)

    def _push_back(self, text: str) -> None:
        """Process `text` again, ahead of what is left."""
        self._t = text + self._t[self._i :]
        self._i = 0

    def _channel(self) -> Channel:
        return self._reasoning if self._state is _State.THINK else self._text

    def _write(self, text: str) -> None:
        self._channel().write(text, self._out)
        newline = text.rfind("\n")
        if newline >= 0:
            self._line_blank = not text[newline + 1 :].strip()
        elif text.strip():
            self._line_blank = False

    # ------------------------------------------------------------ prose (text and reasoning)

    def _scan_prose(self, final: bool) -> None:
        t, i, n = self._t, self._i, len(self._t)
        if self._closer:
            found = wrapper_close(t, i, self._closer, final)
            if found is None:
                self._hold = t[i:]
                self._i = n
                return
            i, still_open = found
            if not still_open:
                self._closer = ""
        while i < n:
            match = _PROSE_STOP.search(t, i)
            end = match.start() if match else n
            if end > i:
                self._write(t[i:end])
                i = end
            if match is None:
                break
            if self._state is _State.TEXT and self._line_blank and t[i] in "`<":
                opened = wrapper_open(t, i, final)
                if opened == WRAPPER_PARTIAL:
                    self._hold = t[i:]
                    i = n
                    break
                if isinstance(opened, tuple):
                    length, self._closer = opened
                    self._wrapper = t[i : i + length]
                    inner = i + length
                    if t.startswith(CALL_OPEN, inner):  # a `<tool_call>` block in a fence or tag
                        self._i = inner + len(CALL_OPEN)
                        self._begin_call(tentative=False)
                        self._wrapped = True
                    elif t.startswith(FUNCTION_OPEN, inner):  # an XML call whose <tool_call> was dropped
                        self._i = inner
                        self._begin_call(tentative=False)
                    else:
                        self._i = inner + 1
                        self._begin_call(tentative=True, opener="{")
                    return
            if t[i] == "`":
                self._write("`")
                i += 1
                continue
            if t[i] == "{":
                if self._line_blank:
                    self._i = i + 1
                    self._begin_call(tentative=True, opener="{")
                    return
                self._write("{")
                i += 1
                continue
            if self._state is _State.TEXT and self._line_blank and t.startswith(FUNCTION_OPEN[:2], i):
                if t.startswith(FUNCTION_OPEN, i):  # an XML call whose <tool_call> was dropped
                    self._i = i
                    self._begin_call(tentative=False)
                    return
                if not final and FUNCTION_OPEN.startswith(t[i:]):
                    self._hold = t[i:]
                    i = n
                    break
            tag = match_tag(t, i, final)
            if tag == PARTIAL:
                self._hold = t[i:]
                i = n
                break
            if tag is None:
                self._write("<")
                i += 1
                continue
            i += len(tag)
            self._line_blank = True
            if tag == CALL_OPEN:
                self._i = i
                self._begin_call(tentative=False)
                self._wrapped = True
                return
            if tag == THINK_OPEN:
                self._state = _State.THINK
                self._saw_think = True
            elif tag == THINK_CLOSE:
                if self._state is _State.TEXT and not self._saw_think:
                    self.saw_stray_think_close = True
                self._state = _State.TEXT
            # a stray </tool_call> or a repeated <think> is dropped
        self._i = i

    # ------------------------------------------------------------ tool calls

    def _reset_call(self, outer: _State, tentative: bool) -> None:
        self._outer = outer
        self._tentative = tentative
        self._committed = not tentative
        self._tracker: JsonTracker | None = None
        self._raw: list[str] = []
        self._raw_len = 0
        self._json_start = -1
        self._json_end = -1
        self._after: list[str] = []
        self._xml = False
        self._wrapped = False  # opened by <tool_call> (not a bare JSON or XML call)
        self._undecided = not tentative  # whether prose follows `<tool_call>` on its line is not known
        self._mention = False  # prose followed: only a mention, unless `</tool_call>` ends a call
        self._maybe_over = False  # an XML call's `</tool_call>` came (the rest may still be its value)
        self._ends.reset()

    def _begin_call(self, tentative: bool, opener: str = "") -> None:
        self._reset_call(self._state, tentative)
        self._state = _State.CALL
        if opener:
            self._start_json(opener)

    def _append(self, text: str) -> None:
        self._raw.append(text)
        self._raw_len += len(text)

    def _start_json(self, opener: str) -> None:
        self._json_start = self._raw_len
        self._append(opener)
        self._tracker = JsonTracker()

    def _scan_call(self, final: bool) -> None:
        if self._xml:
            self._scan_xml(final)
            return
        t, i, n = self._t, self._i, len(self._t)
        while i < n:
            tracker = self._tracker
            if self._undecided:  # the first character after `<tool_call>` and its spaces
                j = i
                while j < n and t[j] in " \t":
                    j += 1
                self._append(t[i:j])
                i = j
                if i >= n:
                    break
                self._undecided = False
                self._mention = t[i] not in "\n{[<`"
            if self._mention:
                stop = _MENTION_STOP.search(t, i)
                end = stop.start() if stop else n
                if end > i:
                    self._append(t[i:end])
                    i = end
                if stop is None:
                    break
                tag = match_tag(t, i, final) if t[i] == "<" else None
                if tag == PARTIAL:
                    self._hold = t[i:]
                    self._i = n
                    return
                if t[i] == "<" and tag is None:
                    self._append("<")
                    i += 1
                    continue
                self._i = i
                if tag == CALL_CLOSE and _PYTHONIC_CALL.fullmatch("".join(self._raw)):
                    self._i = i + len(tag)
                    self._end_call(closed=True)  # a call, in a form that is not JSON: an error says so
                    return
                self._abandon_mention(tag == CALL_CLOSE)
                return
            if tracker is None:  # before the JSON: skip a fence or other junk up to '{' or '['
                match = _CALL_PREFIX_STOP.search(t, i)
                end = match.start() if match else n
                if end > i:
                    self._append(t[i:end])
                    i = end
                if match is None:
                    break
                if t[i] != "<":
                    self._start_json(t[i])
                    i += 1
                    continue
                if not self._tentative and t.startswith(FUNCTION_OPEN[:2], i):
                    if t.startswith(FUNCTION_OPEN, i):
                        self._json_start = self._raw_len
                        self._xml = True
                        self._i = i
                        self._scan_xml(final)
                        return
                    if not final and FUNCTION_OPEN.startswith(t[i:]):
                        self._hold = t[i:]
                        self._i = n
                        return
            elif not tracker.complete:
                end = tracker.run(t, i, n)
                if end > i:
                    self._append(t[i:end])
                    i = end
                if not self._committed:
                    verdict = call_start_verdict("".join(self._raw))
                    if verdict is False:
                        self._abandon_tentative(i)
                        return
                    self._committed = verdict is True
                if tracker.complete:
                    self._json_end = self._raw_len
                    continue
                if i >= n:
                    break
            else:  # the JSON is complete: expect </tool_call>
                match = (_WHITESPACE if self._tentative else _CALL_TRAILER).match(t, i)
                if match:
                    (self._after if self._tentative else self._raw).append(match.group())
                    i = match.end()
                    continue
                if t[i] != "<":
                    self._i = i
                    self._end_call(closed=False)
                    return
            # t[i] is '<' outside any JSON string
            tag = match_tag(t, i, final)
            if tag == PARTIAL:
                self._hold = t[i:]
                self._i = n
                return
            if tag is None:
                if tracker is not None and tracker.complete:
                    if final and CALL_CLOSE.startswith(t[i:]):  # a closing tag the reply cut short
                        self._raw.append(t[i:])
                        i = n
                    self._i = i
                    self._end_call(closed=False)
                    return
                self._append("<")
                i += 1
                continue
            if tag == CALL_OPEN and tracker is None:
                i += len(tag)  # a repeated opening tag
                continue
            if tag == CALL_CLOSE:
                self._i = i + len(tag)
                self._end_call(closed=True)
                return
            self._i = i  # another tag ends the call unclosed; the outer state handles the tag
            self._end_call(closed=False)
            return
        self._i = i

    def _scan_xml(self, final: bool) -> None:
        """An XML call: everything up to its end is the call (values may hold any tags)."""
        self._append(self._t[self._i :])
        self._i = len(self._t)
        raw = "".join(self._raw)
        body = raw[self._json_start :]
        end = self._ends.call_end(body, final, in_think=self._outer is _State.THINK)
        if end is None:
            self._maybe_over = CALL_CLOSE in body
            return
        stop, resume, closed = end
        shown = raw[: self._json_start + (resume if closed else stop)].strip()
        written = CALL_OPEN + raw[: self._json_start + resume]
        unclosed = self._unclosed_xml(body, stop, closed, shown) if final else []  # before the reset below
        outer = self._outer
        self._state = outer
        self._line_blank = True
        self._reset_call(outer, tentative=False)
        self._unwrap(keep=False)
        events = unclosed or interpret_xml_call(body[:stop], shown, self._tools, self._new_id, closed=closed)
        self._emit_call(events, written)
        rest = body[resume:]
        if final and self._cutting and rest.strip() and CALL_CLOSE.startswith(rest.strip()):
            rest = ""  # a closing tag the reply cut short
        if rest:
            self._push_back(rest)

    def _unclosed_xml(self, body: str, stop: int, closed: bool, shown: str) -> list[Event]:
        """At the end of the reply: the error for an XML call that never closed, if this one did not."""
        if self._cutting:
            if closed:  # a </tool_call> inside a value that never closed may have "ended" it
                cut = not _ends_whole(body[:stop])
            else:
                cut = self._wrapped or not body[:stop].rstrip().endswith(FUNCTION_CLOSE)
            if cut:
                return [cut_off_error(shown, call_name(body, self._names), self._new_id)]
        where = None if closed else open_xml_call(body[:stop])
        if where is None and not closed and FUNCTION_CLOSE not in body[:stop]:
            reading = self._ends.reading(body, stop)  # the reading ends inside a value (`</parameter>\n<` cut)
            if reading is not None and reading.open_end:
                where = f"inside the value of {reading.values[-1][0]!r} (no closing tag came after it)"
        if where is not None:
            return [unclosed_error(shown, call_name(body, self._names), where, self._new_id)]
        return []

    def _abandon_mention(self, closed: bool) -> None:
        """`<tool_call>` followed by prose was a mention: it and the prose are text (or reasoning)."""
        raw = "".join(self._raw)
        self._state = self._outer
        self._write(self._unwrap(keep=True) + CALL_OPEN)
        if closed:
            self._write(raw + CALL_CLOSE)
            self._i += len(CALL_CLOSE)
        else:
            self._push_back(raw)
        self._reset_call(self._state, tentative=False)

    def _emit_call(self, events: Sequence[Event], raw: str) -> None:
        """A call's events. One written inside <think> (a draft) becomes a call only if the reply
        makes no real call after it, so a drafted call runs once.

        A draft that reads as a call leaves the reasoning's text, as the peers take a call out of it
        (issue 51): the reasoning holds no call markup, whether the draft runs (it is shown as the call
        it is, not twice) or a real call replaces it (markup left in the reasoning would read as a call
        that ran). Whether a draft runs is known only at the reply's end and the reasoning streams
        before, so both go the same way. A broken draft is thinking aloud: its text stays reasoning and
        it is no error; one the token limit cut is said (nothing ran)."""
        if self._state is _State.THINK:
            drafts = [event for event in events if isinstance(event, ToolCallEvent)
                      or (isinstance(event, ToolCallError) and event.truncated)]
            if not any(isinstance(event, ToolCallEvent) for event in drafts):
                self._write(raw)
            self._line_blank = True
            self._drafts.extend(drafts)
            return
        self._drafts = []
        self._out.extend(events)

    def _abandon_tentative(self, i: int) -> None:
        """A '{' at the start of a line that does not open a call: it was just text."""
        raw = "".join(self._raw)
        self._state = self._outer
        self._i = i
        self._push_back(raw[1:])
        self._write(self._unwrap(keep=True) + raw[0])
        self._reset_call(self._state, tentative=False)

    def _unwrap(self, keep: bool) -> str:
        """The wrapper before a bare JSON object: its text if the object was no call (`keep`), else
        nothing, and its closing fence or tag is dropped once the call is over."""
        wrapper, self._wrapper = self._wrapper, ""
        if keep:
            self._closer = ""
            return wrapper
        return ""

    def _end_call(self, closed: bool, body_end: int | None = None, rest: str = "") -> None:
        raw = "".join(self._raw)
        after = "".join(self._after)
        if self._json_start < 0:
            body = ""
        else:
            stop = body_end if body_end is not None else self._json_end if self._json_end >= 0 else len(raw)
            body = raw[self._json_start : stop]
        outer, tentative = self._outer, self._tentative
        json_done = self._tracker is not None and self._tracker.complete
        cut = self._cutting and not closed and (self._wrapped or not json_done)
        self._state = outer
        self._line_blank = True
        self._reset_call(outer, tentative=False)
        if tentative and not closed and (outer is _State.THINK or not names_offered_call(body, self._names)):
            self._write(self._unwrap(keep=True) + raw)  # an ordinary JSON object in the prose
        else:
            self._unwrap(keep=False)
            shown = raw if body_end is None else raw[:body_end]
            events: list[Event]
            if cut:
                events = [cut_off_error(shown.strip(), call_name(body, self._names), self._new_id)]
            elif not closed and not json_done and body.strip() and not json_values_whole(body):
                # its object never closed, nothing closed the call, and it stopped before a whole value:
                # what repair made of it (`{"name": "get_weather", "arguments": {` as get_weather({})) was
                # not written (issue 51)
                events = [unclosed_error(shown.strip(), call_name(body, self._names), JSON_OPEN_WHERE,
                                         self._new_id)]
            else:
                events = list(interpret_call(body, shown.strip(), self._tools, self._new_id, closed=closed))
            opener = "" if tentative else CALL_OPEN
            self._emit_call(events, opener + shown + (CALL_CLOSE if closed else ""))
        if after or rest:
            self._push_back(rest + after)

    def _end_call_at_eof(self) -> None:
        """Settle a call the reply left open. If its JSON never closed, a string quote probably went
        astray ("it's" in single quotes): then the first </tool_call> is taken as its end, unless the
        reply was cut off at the token limit (then the call was, too)."""
        if self._xml:
            self._t, self._i = "", 0
            self._scan_xml(final=True)
            return
        if self._mention:
            self._t, self._i = "", 0
            self._abandon_mention(closed=False)
            return
        raw = "".join(self._raw)
        tracker = self._tracker
        if tracker is not None and not tracker.complete and not self._cutting:
            cut = raw.find(CALL_CLOSE, self._json_start)
            if cut >= 0:
                self._end_call(closed=True, body_end=cut, rest=raw[cut + len(CALL_CLOSE) :])
                return
        self._end_call(closed=False)


def _ends_whole(body: str) -> bool:
    """Whether an XML call body ends as the template closes one: its last value closed by
    `</parameter>`, then `</function>` (no tag forgiven, which a reply cut off could not be trusted with)."""
    rest = body.rstrip()
    if not rest.endswith(FUNCTION_CLOSE):
        return False
    rest = rest[: -len(FUNCTION_CLOSE)].rstrip()
    return PARAM_OPEN not in body or rest.endswith(PARAM_CLOSE)


def parse_reply(
    text: str,
    tools: Sequence[ToolSpec] = (),
    *,
    starts_in_think: bool = False,
    id_factory: Callable[[], str] | None = None,
    truncated: bool = False,
) -> list[Event]:
    """The events of a whole reply: the same as feeding `ReplyParser` in any chunking.

    `truncated`: the reply ended at the token limit; a call it left open is an error (`ReplyParser.finish`).

    One difference: a `</think>` with no think block open makes everything before it reasoning (Qwen
    3 2507 templates open `<think>` in the prompt). A stream cannot take back text it already sent,
    so `ReplyParser` needs `starts_in_think=True` for that; here the whole text is known.
    """
    if not starts_in_think and THINK_CLOSE in text:
        probe = ReplyParser(tools, id_factory=lambda: "")
        probe.feed(text)
        probe.finish(truncated=truncated)
        starts_in_think = probe.saw_stray_think_close
    parser = ReplyParser(tools, starts_in_think=starts_in_think, id_factory=id_factory)
    return parser.feed(text) + parser.finish(truncated=truncated)
