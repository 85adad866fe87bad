"""Calls whose closing tags never came: never runnable, whatever repair could make of them.

A reply that ended at the token limit (finish_reason "length") inside a call leaves a prefix of it:
a half-written file, a command without its last argument. Repair or lenient parsing would turn that
into a call that looks valid, so such a call becomes a `ToolCallError` that says why and what to do.
The same holds, without knowing why the reply ended, for an XML call that stops inside a value.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..calls.tags import CALL_CLOSE
from ..types import ToolCallError
from .toolcalls import guess_name
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


def unclosed_error(raw: str, name: str | None, param: str, new_id: Callable[[], str]) -> ToolCallError:
    """The error for an XML call the reply left inside a value (why it ended is not known)."""
    which = f"the call of {name}" if name else "a tool call"
    message = (
        f"{which} never closed: the reply ended inside the value of {param!r} (no </parameter>, "
        "</function> or </tool_call> came), so nothing was run; write the whole call again"
    )
    return ToolCallError(raw=raw, message=message, name=name, id=new_id())


__all__ = ["CUT_OFF_ADVICE", "call_name", "cut_off_error", "open_xml_value", "unclosed_error"]
