"""`[hooks]` in settings.toml: shell commands run at points of a session, each entry checked key by key.

Part of the settings model (`schema`); `sigit.extensions.hooks` runs the entries it describes.
"""

from typing import Annotated, Any, NotRequired, Required

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, with_config
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from sigit.config.schema_keys import Key, Text, finite, valid_rule

__all__ = [
    "DEFAULT_HOOK_TIMEOUT_SECS",
    "HOOK_EVENTS",
    "MAX_HOOK_TIMEOUT_SECS",
    "TOOL_HOOK_EVENTS",
    "EventHook",
    "EventHooks",
    "HooksTable",
    "ToolHook",
    "ToolHooks",
    "matcher_alternatives",
]

DEFAULT_HOOK_TIMEOUT_SECS = 30.0
MAX_HOOK_TIMEOUT_SECS = 3600.0


def matcher_alternatives(matcher: str) -> list[str]:
    """`edit_file|create_file` -> two rules; a `|` inside `(...)` belongs to the pattern; `*` (every tool) is
    left out, so an empty list means every tool."""
    parts: list[str] = []
    depth = start = 0
    for i, char in enumerate(matcher):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            parts.append(matcher[start:i])
            start = i + 1
    parts.append(matcher[start:])
    return [part.strip() for part in parts if part.strip() != "*"]


def _matcher(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("string_too_short", "empty")
    for alternative in matcher_alternatives(value):
        valid_rule(alternative)
    return value


def _one_or_many(value: Any) -> Any:
    """`[hooks.stop]` (one table) is the same as `[[hooks.stop]]` (a list of one)."""
    return [value] if isinstance(value, dict) else value


@with_config(ConfigDict(extra="forbid"))
class EventHook(TypedDict, total=False):
    """A `[[hooks.EVENT]]` entry of an event without a tool call (session_start, user_prompt_submit, stop)."""

    command: Required[Annotated[Text, Key("a non-empty shell command")]]
    timeout_secs: NotRequired[
        Annotated[
            float, Field(gt=0, le=MAX_HOOK_TIMEOUT_SECS), AfterValidator(finite),
            Key(f"seconds above 0 and at most {MAX_HOOK_TIMEOUT_SECS:g}"),
        ]
    ]


@with_config(ConfigDict(extra="forbid"))
class ToolHook(EventHook, total=False):
    """A `[[hooks.pre_tool_use]]` or `[[hooks.post_tool_use]]` entry: `matcher` picks the calls it runs for."""

    matcher: NotRequired[
        Annotated[str, AfterValidator(_matcher), Key("a tool name or rule pattern such as `run_command(git *)`")]
    ]


_HOOK_LIST = "a list of tables, each with a `command` (`[[hooks.EVENT]]`)"
EventHooks = Annotated[list[EventHook], BeforeValidator(_one_or_many), Key(_HOOK_LIST)]
ToolHooks = Annotated[list[ToolHook], BeforeValidator(_one_or_many), Key(_HOOK_LIST)]


@with_config(ConfigDict(extra="forbid"))
class HooksTable(TypedDict, total=False):
    """`[hooks]`: shell commands run at points of a session, per event (see `sigit.extensions.hooks`)."""

    session_start: EventHooks
    user_prompt_submit: EventHooks
    pre_tool_use: ToolHooks
    post_tool_use: ToolHooks
    stop: EventHooks


HOOK_EVENTS: tuple[str, ...] = tuple(HooksTable.__annotations__)
TOOL_HOOK_EVENTS = frozenset({"pre_tool_use", "post_tool_use"})
"""The events whose entries are `ToolHook`s (a `matcher` picks the calls)."""
