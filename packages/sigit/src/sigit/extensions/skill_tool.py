"""The `skill` tool: loads a skill's instructions when the model decides it needs them.

Its description lists every skill (name: description), which is all the model knows of them
until it calls the tool; the reply carries the body and the skill's folder for sibling files.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path

from pydantic import Field

from sigit.extensions.skills import Skill, SkillSet
from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.claude import ClaudeForm

MAX_LISTED_SKILLS = 60
MAX_DESCRIPTION_CHARS = 240
MAX_SIBLING_FILES = 30


class SkillArgs(ToolArgs):
    name: str = Field(description="The skill's name, exactly as listed in this tool's description.")


def skill_tool_description(skills: SkillSet) -> str:
    lines = [
        "Load a skill: expert instructions for one kind of task, written by the user or the project. "
        "When the request matches a skill below, call this first and follow what it returns.",
        "Available skills:",
    ]
    for skill in skills.skills[:MAX_LISTED_SKILLS]:
        description = " ".join(skill.description.split())
        if len(description) > MAX_DESCRIPTION_CHARS:
            description = description[: MAX_DESCRIPTION_CHARS - 3] + "..."
        lines.append(f"- {skill.name}: {description}" if description else f"- {skill.name}")
    hidden = len(skills.skills) - MAX_LISTED_SKILLS
    if hidden > 0:
        lines.append(f"- ... and {hidden} more (ask for one by name)")
    return "\n".join(lines)


def make_skill_tool(skills: SkillSet) -> Tool[SkillArgs]:
    """The `skill` tool over `skills`; register it only when `skills` is not empty."""

    async def run(args: SkillArgs, ctx: ToolContext) -> ToolOutput:
        skill = skills.get(args.name)
        if skill is None:
            raise ToolError(_unknown(args.name, skills))
        siblings = await asyncio.to_thread(_sibling_files, skill)
        parts = [
            f'Skill "{skill.name}" loaded. Its folder is {skill.folder}; files the instructions mention '
            "are relative to it (read them with read_file using the full path).",
        ]
        if siblings:
            parts.append("Files in the skill's folder: " + ", ".join(siblings))
        parts.append("")
        parts.append(skill.body.strip())
        return ToolOutput("\n".join(parts), title=f"skill {skill.name}", locations=[skill.path])

    return Tool(
        name="skill",
        description=skill_tool_description(skills),
        params=SkillArgs,
        run=run,
        read_only=True,
        kind="read",
        aliases=("Skill",),
        claude=ClaudeForm(keys=(("skill", "name"),)),
    )


def _unknown(name: str, skills: SkillSet) -> str:
    names = skills.names()
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"No skill named {name!r}.{hint} Available skills: {', '.join(names) or 'none'}."


def _sibling_files(skill: Skill) -> list[str]:
    found: list[str] = []
    try:
        for path in sorted(skill.folder.rglob("*")):
            if path.is_file() and path != skill.path and not _hidden(path.relative_to(skill.folder)):
                found.append(str(path.relative_to(skill.folder)))
                if len(found) >= MAX_SIBLING_FILES:
                    found.append("...")
                    break
    except OSError:
        return found
    return found


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)
