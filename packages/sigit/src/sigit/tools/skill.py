"""The `skill` tool's declaration: its name, arguments, description, permission class and Claude name.

What it runs (loading a skill's body from the skills found on disk) lives in
`sigit.extensions.skill_tool`, above this layer, which passes its `run` to `skill_tool`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from pydantic import Field

from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolOutput
from sigit.tools.claude import ClaudeForm

SKILL_NAME = "skill"
MAX_LISTED_SKILLS = 60
MAX_DESCRIPTION_CHARS = 240


class SkillArgs(ToolArgs):
    name: str = Field(description="The skill's name, exactly as listed in this tool's description.")


def skill_description(skills: Sequence[tuple[str, str]]) -> str:
    """The description the model reads: every skill (name, description), which is all it knows of them."""
    lines = [
        "Load a skill: expert instructions for one kind of task, written by the user or the project. "
        "When the request matches a skill below, call this first and follow what it returns.",
        "Available skills:",
    ]
    for name, text in skills[:MAX_LISTED_SKILLS]:
        text = " ".join(text.split())
        if len(text) > MAX_DESCRIPTION_CHARS:
            text = text[: MAX_DESCRIPTION_CHARS - 3] + "..."
        lines.append(f"- {name}: {text}" if text else f"- {name}")
    hidden = len(skills) - MAX_LISTED_SKILLS
    if hidden > 0:
        lines.append(f"- ... and {hidden} more (ask for one by name)")
    return "\n".join(lines)


def skill_tool(
    run: Callable[[SkillArgs, ToolContext], Awaitable[ToolOutput]], skills: Sequence[tuple[str, str]]
) -> Tool[SkillArgs]:
    """The `skill` tool running `run`; read-only (it reads the user's and the project's skill files)."""
    return Tool(
        name=SKILL_NAME,
        description=skill_description(skills),
        params=SkillArgs,
        run=run,
        read_only=True,
        kind="read",
        aliases=("Skill",),
        claude=ClaudeForm(keys=(("skill", "name"),)),
    )
