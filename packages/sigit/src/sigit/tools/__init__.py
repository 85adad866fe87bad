"""siGit's tools: each declared once (name, description, typed arguments, read-only flag, implementation)."""

from __future__ import annotations

from typing import Any

from sigit.tools.base import (
    DEFAULT_ATTRIBUTION,
    FileSystem,
    LocalFileSystem,
    Todo,
    Tool,
    ToolArgs,
    ToolContext,
    ToolError,
    ToolOutput,
    ToolRegistry,
)
from sigit.tools.edit import EDIT_FILE, MULTI_EDIT
from sigit.tools.files import CREATE_DIRECTORY, CREATE_FILE, DELETE_FILE, LIST_DIRECTORY, READ_FILE
from sigit.tools.memory import REMEMBER
from sigit.tools.processes import ProcessManager
from sigit.tools.search import GLOB, SEARCH_FILES
from sigit.tools.shell import COMMAND_OUTPUT, KILL_COMMAND, RUN_COMMAND
from sigit.tools.todos import WRITE_TODOS
from sigit.tools.web import READ_WEBSITE

__all__ = [
    "DEFAULT_ATTRIBUTION",
    "FileSystem",
    "LocalFileSystem",
    "ProcessManager",
    "Todo",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "ToolRegistry",
    "all_tools",
    "default_registry",
    "file_write_rules",
]


def all_tools() -> list[Tool[Any]]:
    """The built-in tools, in the order they are offered to the model."""
    return [
        READ_FILE,
        CREATE_DIRECTORY,
        LIST_DIRECTORY,
        SEARCH_FILES,
        GLOB,
        READ_WEBSITE,
        CREATE_FILE,
        EDIT_FILE,
        MULTI_EDIT,
        DELETE_FILE,
        RUN_COMMAND,
        COMMAND_OUTPUT,
        KILL_COMMAND,
        WRITE_TODOS,
        REMEMBER,
    ]


def file_write_rules(path: str) -> tuple[str, ...]:
    """Rules that let the tools which write or edit a file do so on `path` (and nothing else)."""
    return tuple(f"{tool.name}({path})" for tool in (CREATE_FILE, EDIT_FILE, MULTI_EDIT))


def default_registry() -> ToolRegistry:
    """A fresh registry of the built-in tools (others register `task`, `skill`, MCP tools on it)."""
    return ToolRegistry(all_tools())
