"""Scripted turns: what a scripted model says, shared by `ScriptedRuntime` and the scripted server.

A scenario file is JSON: `{"turns": [turn, ...]}` where a turn is
`{"text": "...", "reasoning": "...", "tool_calls": [{"name": "...", "arguments": {...}}]}`,
or `{"raw": "<think>..</think><tool_call>..."}` to send model-shaped text through the parsers.
Server-only fault fields: `"error": 500`, `"delay": 1.5` (seconds before replying),
`"drop_after": 3` (close the stream after N chunks), `"repeat": N` (fault repeated N times).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .errors import QwenRuntimeError

_N = TypeVar("_N", int, float)


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    notes: tuple[str, ...] = ()
    """What the runtime says about the call (`ToolCall.notes`), e.g. a value cut to fit the token limit."""


@dataclass(frozen=True)
class ScriptedTurn:
    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ScriptedCall, ...] = ()
    raw: str | None = None
    finish_reason: str | None = None
    error: int | None = None
    delay: float = 0.0
    drop_after: int | None = None
    repeat: int = 1

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "scenario turn") -> ScriptedTurn:
        """`where` names the turn in errors ("scenario turn 3")."""
        if not isinstance(data, dict):
            raise QwenRuntimeError(f"{where} must be a string or an object, not {data!r}")
        unknown = set(data) - {
            "text", "reasoning", "tool_calls", "raw", "finish_reason", "error", "delay",
            "drop_after", "repeat",
        }
        if unknown:
            raise QwenRuntimeError(f"{where} has unknown keys {sorted(unknown)}: {data}")
        calls = []
        for raw_call in data.get("tool_calls", []):
            if not isinstance(raw_call, dict) or not isinstance(raw_call.get("name"), str):
                raise QwenRuntimeError(f"{where}: tool call needs a name: {raw_call!r}")
            notes = tuple(str(note) for note in raw_call.get("notes", ()))
            calls.append(ScriptedCall(raw_call["name"], _arguments(raw_call, where), raw_call.get("id"), notes))
        return cls(
            text=str(data.get("text", "")),
            reasoning=str(data.get("reasoning", "")),
            tool_calls=tuple(calls),
            raw=data.get("raw"),
            finish_reason=data.get("finish_reason"),
            error=data.get("error"),
            delay=_number(data, "delay", 0.0, float, where),
            drop_after=data.get("drop_after"),
            repeat=_number(data, "repeat", 1, int, where),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.text:
            out["text"] = self.text
        if self.reasoning:
            out["reasoning"] = self.reasoning
        if self.tool_calls:
            out["tool_calls"] = [
                {"name": c.name, "arguments": c.arguments, **({"id": c.id} if c.id else {})}
                for c in self.tool_calls
            ]
        if self.raw is not None:
            out["raw"] = self.raw
        return out


def _arguments(call: dict[str, Any], where: str) -> dict[str, Any]:
    """A scripted call's arguments: an object, or a string holding a JSON object."""
    args = call.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError as exc:
            raise QwenRuntimeError(
                f"{where}: arguments of tool call {call['name']!r} are not valid JSON: {exc}"
            ) from None
    if not isinstance(args, dict):
        raise QwenRuntimeError(
            f"{where}: arguments of tool call {call['name']!r} must be a JSON object, got {args!r:.80}"
        )
    return dict(args)


def _number(data: dict[str, Any], key: str, default: _N, kind: type[_N], where: str) -> _N:
    value = data.get(key, default)
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise QwenRuntimeError(f"{where}: {key!r} must be a number, got {value!r}") from None


def chunks(text: str, size: int) -> Iterator[str]:
    """`text` in pieces of `size` characters, as a scripted model streams it."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


def load_scenario(path: str | Path) -> list[ScriptedTurn]:
    """Read a scenario file; a clear error names the file and what is wrong with it."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QwenRuntimeError(f"scenario file not found: {p}") from None
    except json.JSONDecodeError as exc:
        raise QwenRuntimeError(f"scenario file {p} is not valid JSON: {exc}") from None
    turns = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list):
        raise QwenRuntimeError(f"scenario file {p} needs a list of turns (or {{\"turns\": [...]}})")
    return [
        ScriptedTurn(text=t) if isinstance(t, str) else ScriptedTurn.from_dict(t, f"scenario file {p}, turn {i}")
        for i, t in enumerate(turns, 1)
    ]
