"""Calls whose closing tags never came: never runnable, whatever repair could make of them.

A reply that ended at the token limit (finish_reason "length") inside a call leaves a prefix of it:
a half-written file, a command without its last argument. Repair or lenient parsing would turn that
into a call that looks valid, so such a call becomes a `ToolCallError` that says why and what to do.

The same holds, without knowing why the reply ended, for an XML call that stops where nothing says it
was complete (`open_xml_call`): inside a value, right after `<function=NAME>` (issue 51:
`<tool_call><function=get_weather>` and the end ran `get_weather({})` when no parameter is required),
or inside `<function=NAME>{...` JSON arguments that never closed; likewise a JSON-form call whose object
never closed (`<tool_call>{"name": "get_weather", "arguments": {` and the end). The one call the reply may end in
without its closing tags is one whose last value `</parameter>` closed: a model that stops there
wrote its arguments whole (issue 33 kept it), and validation still wants every required one.
A backend that knows the reply was cut says so (`truncated`), and then even that one is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from ..calls.tags import CALL_CLOSE
from ..types import ToolCallError
from .toolcalls import JsonTracker, guess_name
from .xmlreading import FUNCTION_CLOSE, FUNCTION_OPEN, PARAM_CLOSE, PARAM_OPEN, canonical_name

CUT_OFF_ADVICE = (
    "write a shorter call: split a long file into several smaller writes or edits, or a long command into steps"
)


def call_name(body: str, names: Collection[str]) -> str | None:
    """The tool a (possibly cut) call body names, JSON or XML, when it names one in full."""
    text = body.lstrip()
    if text.startswith(FUNCTION_OPEN):
        end = min((i for i in (text.find(">"), text.find("\n")) if i >= 0), default=-1)
        if end < 0:
            return None  # cut inside the name itself
        name = canonical_name(text[len(FUNCTION_OPEN) : end], set(names))
        return name or None
    guessed = guess_name(body)
    return canonical_name(guessed, set(names)) if guessed else None


def cut_off_error(raw: str, name: str | None, new_id: Callable[[], str]) -> ToolCallError:
    """The error for a call the token limit cut off before it closed."""
    which = f"the call of {name}" if name else "a tool call"
    message = (
        f"{which} was cut off at the token limit (max_tokens) before it closed, so nothing was run; {CUT_OFF_ADVICE}"
    )
    return ToolCallError(raw=raw, message=message, name=name, id=new_id(), truncated=True)


def open_xml_value(body: str) -> str | None:
    """The parameter whose value an XML call body ends inside (None when something closed it): no
    `</parameter>` after the last `<parameter=NAME>`, and no `</function>` or `</tool_call>` at all."""
    if FUNCTION_CLOSE in body or CALL_CLOSE in body:
        return None
    last = body.rfind(PARAM_OPEN)
    if last < 0 or PARAM_CLOSE in body[last:]:
        return None
    end = body.find(">", last)
    if end < 0:
        return None  # cut inside the parameter's name: not a value (the parser names the stray text)
    return body[last + len(PARAM_OPEN) : end].strip()


def open_xml_call(body: str) -> str | None:
    """Where an XML call body that the reply ended in stopped, when nothing there says the call was
    complete: inside a value, right after `<function=NAME>`, or inside its JSON arguments (None: the
    call closed, or its last value did). Words for `unclosed_error`."""
    if FUNCTION_CLOSE in body or CALL_CLOSE in body:
        return None
    param = open_xml_value(body)
    if param is not None:
        return f"inside the value of {param!r} (no </parameter>, </function> or </tool_call> came)"
    text = body.lstrip()
    if not text.startswith(FUNCTION_OPEN) or ">" not in text:
        return None  # no whole `<function=NAME>`: the parser says what is wrong
    rest = text[text.index(">") + 1 :].strip()
    if not rest:
        return f"right after {text[: text.index('>') + 1]}, before any parameter or </function>"
    if rest.startswith("{") and not _json_closes(rest):
        return "inside its JSON arguments (the object never closed)"
    return None


def _json_closes(text: str) -> bool:
    """Whether the JSON object `text` starts with closes."""
    return _json_state(text).complete


def _json_state(text: str) -> JsonTracker:
    """The tracker after reading the JSON object `text` starts with, up to its end or the text's."""
    tracker = JsonTracker()
    index = 1
    while index < len(text) and not tracker.complete:
        index = tracker.run(text, index, len(text))
        if not tracker.complete and index < len(text):
            index += 1  # a '<' outside any string: not the object's end
    return tracker


JSON_OPEN_WHERE = "inside its JSON, before its arguments were whole (the object never closed and no </tool_call> came)"
"""Where a JSON call the reply left open stopped: repair could make a call of it that was never written."""


_ARGUMENTS_KEY = re.compile(r'"(?:arguments|parameters)"\s*:\s*[{"]')
_LITERAL_END = re.compile(r"(?:\d|true|false|null)$")


def json_values_whole(body: str) -> bool:
    """Whether a JSON call body the reply left open ends after a whole value of its arguments, so only
    closing brackets are missing: the JSON form's counterpart of an XML call whose last `</parameter>`
    came (`{"path": "a.py"` yes; `{"name": "f", "arguments": {`, `{"name": "f"`, `{"x": 1,` or a string
    cut short no)."""
    text = body.rstrip()
    if not _ARGUMENTS_KEY.search(text):
        return False
    if not text.startswith("{") or _json_state(text).quote is not None:
        return False  # not an object, or cut inside a string
    return text.endswith(('"', "}", "]")) or _LITERAL_END.search(text) is not None


def unclosed_error(raw: str, name: str | None, where: str, new_id: Callable[[], str]) -> ToolCallError:
    """The error for a call the reply left open where nothing says it was complete (why it ended is not
    known); `where` from `open_xml_call`, or JSON_OPEN_WHERE."""
    which = f"the call of {name}" if name else "a tool call"
    message = f"{which} never closed: the reply ended {where}, so nothing was run; write the whole call again"
    return ToolCallError(raw=raw, message=message, name=name, id=new_id())


__all__ = ["CUT_OFF_ADVICE", "JSON_OPEN_WHERE", "call_name", "cut_off_error", "json_values_whole", "open_xml_call",
           "open_xml_value", "unclosed_error"]
