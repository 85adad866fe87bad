from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from onde import ToolDefinition

READ_FILE = ToolDefinition(
    "read_file",
    "Read a text file",
    '{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}',
)

CallTurn = Callable[..., dict[str, Any]]


@pytest.fixture
def tools() -> list[ToolDefinition]:
    return [READ_FILE]


@pytest.fixture
def call_turn() -> CallTurn:
    """Builds a scripted turn that makes one tool call: call_turn(name="read_file", reasoning="", **args)."""

    def build(name: str = "read_file", reasoning: str = "", **arguments: Any) -> dict[str, Any]:
        return {"reasoning": reasoning, "tool_calls": [{"name": name, "arguments": arguments}]}

    return build
