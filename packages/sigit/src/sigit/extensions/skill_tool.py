"""The `skill` tool: loads a skill's instructions when the model decides it needs them.

Its description lists every skill (name: description), which is all the model knows of them
until it calls the tool; the reply carries the body and the skill's folder for sibling files.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path

from sigit.extensions.skills import Skill, SkillSet
from sigit.tools.base import Tool, ToolContext, ToolError, ToolOutput
from sigit.tools.files import READ_FILE
from sigit.tools.skill import SKILL_NAME, SkillArgs, skill_tool

MAX_SIBLING_FILES = 30


def make_skill_tool(skills: SkillSet) -> Tool[SkillArgs]:
    """The `skill` tool (declared in `sigit.tools.skill`) over `skills`; register it only when `skills` is not empty."""

    async def run(args: SkillArgs, ctx: ToolContext) -> ToolOutput:
        skill = skills.get(args.name)
        if skill is None:
            raise ToolError(_unknown(args.name, skills))
        siblings = await asyncio.to_thread(_sibling_files, skill)
        parts = [
            f'Skill "{skill.name}" loaded. Its folder is {skill.folder}; files the instructions mention '
            f"are relative to it (read them with {READ_FILE.name} using the full path).",
        ]
        if siblings:
            parts.append("Files in the skill's folder: " + ", ".join(siblings))
        parts.append("")
        parts.append(skill.body.strip())
        return ToolOutput("\n".join(parts), title=f"{SKILL_NAME} {skill.name}", locations=[skill.path])

    return skill_tool(run, [(skill.name, skill.description) for skill in skills.skills])


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
