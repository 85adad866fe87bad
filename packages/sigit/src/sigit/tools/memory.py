"""remember: keep a note for future sessions in the nearest AGENTS.md / CLAUDE.md."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import Field

from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.files import unified_diff

HEADING = "## Remembered notes"
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")


class RememberArgs(ToolArgs):
    note: str = Field(
        description="One short fact worth knowing in future sessions (a command, a convention)."
    )


def git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def memory_file(cwd: Path) -> Path:
    """The nearest instruction file from cwd up to the repository root, else AGENTS.md at that root."""
    root = git_root(cwd)
    stop = root or cwd
    for directory in (cwd, *cwd.parents):
        for name in INSTRUCTION_FILES:
            if (directory / name).is_file():
                return directory / name
        if directory == stop:
            break
    return stop / "AGENTS.md"


def add_note(text: str, note: str) -> str:
    """`text` with `- note` appended at the end of the notes section (created at the end if missing)."""
    lines = text.splitlines()
    try:
        at = next(i for i, line in enumerate(lines) if line.strip() == HEADING)
    except StopIteration:
        body = text.rstrip("\n")
        return (body + "\n\n" if body else "") + f"{HEADING}\n\n- {note}\n"
    end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    insert = end
    while insert > at + 1 and not lines[insert - 1].strip():
        insert -= 1
    lines.insert(insert, f"- {note}")
    return "\n".join(lines) + "\n"


async def remember(args: RememberArgs, ctx: ToolContext) -> ToolOutput:
    note = " ".join(args.note.split())
    if not note:
        raise ToolError("note is empty; give the fact to remember.")
    path = await asyncio.to_thread(memory_file, ctx.cwd)
    before = await ctx.fs.read_text(path) if path.exists() else ""
    crlf = "\r\n" in before
    normal = before.replace("\r\n", "\n")
    after = add_note(normal, note)
    await ctx.fs.write_text(path, after.replace("\n", "\r\n") if crlf else after)
    shown = ctx.display(path)
    return ToolOutput(
        f"Remembered in {shown}: - {note}",
        diff=unified_diff(normal, after, shown),
        locations=[path],
        title=f"Remember in {shown}",
    )


REMEMBER = Tool(
    name="remember",
    description="Save a short note for future sessions under '## Remembered notes' in AGENTS.md.",
    params=RememberArgs,
    run=remember,
    kind="edit",
)
