"""The `task` tool's declaration: its name, arguments, description, permission class and Claude name.

What it runs (a subagent on a fork of the parent's engine) lives in `sigit.agent.subagent`, above this
layer, which passes its `run` to `task_tool`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from pydantic import Field

from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolOutput

TASK_NAME = "task"
MAX_TYPE_DESCRIPTION = 200


class TaskArgs(ToolArgs):
    description: str = Field(description="A short (3-5 word) label for the task, shown to the user.")
    prompt: str = Field(
        description="The complete task for the subagent. It sees nothing of this conversation, so "
        "include every detail it needs and say what its answer should contain."
    )
    subagent_type: str | None = Field(
        default=None, description="Which kind of agent to use (one listed in this tool's description)."
    )


def task_description(agent_types: Sequence[tuple[str, str]] = ()) -> str:
    """The description the model reads: what a subagent can do, and the agent types (name, description)."""
    lines = [
        "Hand a self-contained research task to a subagent that works with read-only tools "
        "(read, list, search files) in its own fresh context, and returns one written answer. Use it "
        "for open-ended searches across many files, to keep your own context small. It cannot edit "
        "files or run commands.",
    ]
    if agent_types:
        lines.append("Agent types (subagent_type):")
        for name, text in agent_types:
            text = " ".join(text.split())
            text = text if len(text) <= MAX_TYPE_DESCRIPTION else text[: MAX_TYPE_DESCRIPTION - 3] + "..."
            lines.append(f"- {name}: {text}" if text else f"- {name}")
        lines.append("Leave subagent_type out for a general explorer.")
    return "\n".join(lines)


def task_tool(
    run: Callable[[TaskArgs, ToolContext], Awaitable[ToolOutput]], agent_types: Sequence[tuple[str, str]] = ()
) -> Tool[TaskArgs]:
    """The `task` tool running `run`; read-only (it asks nobody: its subagent only reads), never given
    to a subagent (no recursion)."""
    return Tool(
        name=TASK_NAME,
        description=task_description(agent_types),
        params=TaskArgs,
        run=run,
        read_only=True,
        kind="other",
        aliases=("Task",),
        subagent_ok=False,
        prompt_hint="For a broad search of a large codebase, hand it to a read-only subagent with task.",
    )
