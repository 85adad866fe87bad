"""What `sigit mcp` offers, without loading the MCP SDK (`sigit doctor` lists it too).

The plain tools are sigit's own declarations from the tool registry, not copies: a tool added to
the registry is offered here with the same name, description and argument schema. Only the tools
that are the model's own bookkeeping stay out.
"""

from __future__ import annotations

from typing import Any, Final

from ...tools import Tool, default_registry
from ...tools.memory import REMEMBER
from ...tools.todos import WRITE_TODOS

TASK_TOOL: Final = "run_task"
WORKSPACE_ARG: Final = "workspace"
"""The argument every plain tool takes besides its own: the folder whose rules, trust and sandbox apply."""
MODEL_ONLY: Final = frozenset({WRITE_TODOS.name, REMEMBER.name})
"""The model's own notes (its todo list, its memory): nothing a caller with its own loop needs."""
MAX_ARGUMENT_BYTES: Final = 2 * 1024 * 1024
"""Arguments of one call, as JSON: more is refused before anything runs."""


def plain_tools() -> list[Tool[Any]]:
    """The registry's tools a caller may call one by one (read, search, edit, run...)."""
    return [tool for tool in default_registry() if tool.name not in MODEL_ONLY]


def workspace_schema(tool: Tool[Any]) -> dict[str, Any]:
    """The tool's own argument schema with the `workspace` argument added."""
    schema = tool.parameters_schema()
    properties = dict(schema.get("properties", {}))
    properties[WORKSPACE_ARG] = {
        "type": "string",
        "description": "Absolute path of the folder to work in: its settings, trust and sandbox apply, and "
        "relative paths resolve against it (default: the folder `sigit mcp` was started in).",
    }
    return {**schema, "properties": properties}


def capabilities() -> dict[str, Any]:
    """`sigit doctor`'s summary of the MCP server mode."""
    return {
        "transports": ["stdio", "streamable HTTP on 127.0.0.1 (--port)"],
        "tools": [TASK_TOOL, *(tool.name for tool in plain_tools())],
        "permission_requests": "MCP form elicitation where the client declares it (elicitation/create on "
        "2025-11-25, inside the call's input_required result on 2026-07-28); otherwise the server's "
        "--permission-mode and --allow-tool rules (anything that would ask is refused)",
        "progress": True,
        "cancellation": True,
    }
