"""Agent types for the `task` tool: a markdown file whose body is the subagent's system prompt.

Subagents only ever get read-only tools. A `tools` list naming others (or Claude Code's names for
mutating tools, such as Bash or Edit: each tool declares its Claude Code aliases) is cut down to the
read-only ones, with a warning per tool.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigit.extensions.frontmatter import (
    ExtensionWarning,
    FrontmatterError,
    read_document,
    text_field,
)
from sigit.extensions.locations import Scope, extension_files, markdown_files
from sigit.tools import Tool, ToolRegistry, default_registry


def subagent_tools(tools: Iterable[Tool[Any]]) -> list[Tool[Any]]:
    """The tools any subagent may have: read-only ones that declare themselves fit for a subagent
    (not `task`: no recursion; not `write_todos`: the list would be thrown away; not MCP tools)."""
    return [tool for tool in tools if tool.read_only and tool.subagent_ok]


@dataclass(frozen=True)
class AgentType:
    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None
    """The tools it may use; None means every read-only tool."""
    path: Path | None = None
    scope: Scope = "project"


@dataclass
class AgentTypeSet:
    agent_types: list[AgentType] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentType | None:
        wanted = name.strip()
        found = next((a for a in self.agent_types if a.name == wanted), None)
        return found or next((a for a in self.agent_types if a.name.lower() == wanted.lower()), None)

    def names(self) -> list[str]:
        return [agent.name for agent in self.agent_types]

    def __bool__(self) -> bool:
        return bool(self.agent_types)

    def __len__(self) -> int:
        return len(self.agent_types)


def discover_agent_types(
    cwd: Path, config_dir: Path, *, tools: ToolRegistry | None = None, home: Path | None = None
) -> AgentTypeSet:
    """Every `*.md` under the agent roots; the first of a name wins. Blocking I/O.

    `tools` is what the session offers (default: the built-in tools); each type's list is checked
    against its read-only part.
    """
    registry = tools if tools is not None else default_registry()
    result = AgentTypeSet()
    seen: set[str] = set()
    for root, path in extension_files("agents", cwd, config_dir, home, markdown_files, result.warnings):
        loaded = load_agent_type(path, registry, result.warnings, root.scope)
        if loaded is None or loaded.name in seen:
            continue
        seen.add(loaded.name)
        result.agent_types.append(loaded)
    result.agent_types.sort(key=lambda a: a.name)
    return result


def load_agent_type(
    path: Path, registry: ToolRegistry, warnings: list[str], scope: Scope = "project"
) -> AgentType | None:
    """One agent file; its `tools` may use Claude Code's names (any case), cut to subagent tools."""
    document = read_document(path)
    if isinstance(document, ExtensionWarning):
        warnings.append(document)
        return None
    try:
        name = text_field(document.metadata, "name") or path.stem
        description = text_field(document.metadata, "description") or ""
        requested = _tool_list(document.metadata.get("tools"))
    except FrontmatterError as exc:
        warnings.append(ExtensionWarning(path, str(exc)))
        return None
    if not document.body.strip():
        warnings.append(ExtensionWarning(path, "the agent type has no system prompt after its frontmatter"))
        return None
    tools: tuple[str, ...] | None = None
    if requested is not None:
        allowed = subagent_tools(registry)
        kept: list[str] = []
        for raw in requested:
            base = raw.split("(", 1)[0].strip()  # Claude Code's `Bash(git log:*)` names the tool Bash
            tool = _named(registry, base)
            if tool is not None and tool in allowed:
                if tool.name not in kept:
                    kept.append(tool.name)
            elif tool is not None:
                warnings.append(ExtensionWarning(
                    path, f"tool {raw!r} dropped: subagents may only use read-only tools "
                    f"({', '.join(sorted(t.name for t in allowed))})",
                ))
            else:
                warnings.append(ExtensionWarning(path, f"tool {raw!r} dropped: no such tool"))
        tools = tuple(kept)
    return AgentType(name, description, document.body.strip(), tools, path, scope)


def _named(registry: ToolRegistry, name: str) -> Tool[Any] | None:
    found = registry.get(name)
    if found is not None:
        return found
    wanted = name.lower()
    return next((t for t in registry if t.name.lower() == wanted or wanted in map(str.lower, t.aliases)), None)


def _tool_list(value: object) -> list[str] | None:
    """`tools: Read, Grep` or `tools: [Read, Grep]`; absent means all read-only tools."""
    if value is None:
        return None
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, list):
        items = [str(item) for item in value]
    else:
        raise FrontmatterError(f"'tools' must be a comma-separated string or a list, got {value!r}")
    names = [item.strip() for item in items if item.strip()]
    return names or None
