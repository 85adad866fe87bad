"""remember: keep a note for future sessions in the nearest AGENTS.md / CLAUDE.md."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import Field

from sigit.config.paths import find_repo_root
from sigit.prompt.instructions import INSTRUCTION_NAMES, pick_instruction_file
from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.files import unified_diff
from sigit.tools.subjects import Preview, Subjects

HEADING = "## Remembered notes"


class RememberArgs(ToolArgs):
    note: str = Field(
        description="One short fact worth knowing in future sessions (a command, a convention)."
    )


def memory_file(cwd: Path) -> Path:
    """The nearest instruction file from cwd up to the repository root, else AGENTS.md at that root.

    Uses the same root and file choice as the system prompt, so a note is read back next session.
    """
    start = cwd.resolve()
    stop = find_repo_root(start) or start
    for directory in (start, *start.parents):
        picked = pick_instruction_file(directory)
        if picked is not None:
            return _under(cwd, start, picked)
        if directory == stop:
            break
    return _under(cwd, start, stop / INSTRUCTION_NAMES[0])


def _under(cwd: Path, resolved_cwd: Path, path: Path) -> Path:
    """`path` spelled under `cwd` when inside it (cwd may be a symlink), so it displays relative."""
    try:
        return cwd / path.relative_to(resolved_cwd)
    except ValueError:
        return path


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


def _remember_subjects(args: RememberArgs, ctx: ToolContext) -> Subjects:
    """The instruction file the note goes to, so the policy judges that path (it may lie above cwd)."""
    return Subjects(writes=(ctx.resolve(memory_file(ctx.cwd)),))


async def _remember_preview(args: RememberArgs, ctx: ToolContext) -> Preview:
    path = await asyncio.to_thread(memory_file, ctx.cwd)  # walks up the folders
    return Preview(f"Add to {ctx.display(ctx.resolve(path))}:\n- {' '.join(args.note.split())}")


REMEMBER = Tool(
    name="remember",
    description="Save a short note for future sessions under '## Remembered notes' in AGENTS.md.",
    params=RememberArgs,
    run=remember,
    kind="edit",
    prompt_hint="When the user tells you a lasting fact or preference about this project, save it with remember.",
    subjects_of=_remember_subjects,
    preview_of=_remember_preview,
)
