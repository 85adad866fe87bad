"""Co-author trailer on commits the agent makes.

After a command, if HEAD is a commit made during that command, whose message lacks the trailer and
which no remote branch contains yet, it is amended with `--trailer` (hooks skipped: they already ran).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from sigit.tools.processes import NON_INTERACTIVE_ENV


async def _git(cwd: Path, *args: str) -> tuple[int, str]:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *args,
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, **NON_INTERACTIVE_ENV},
        )
    except OSError as exc:  # no git installed, or cwd gone
        return 127, str(exc)
    out, _ = await proc.communicate()
    return proc.returncode or 0, out.decode("utf-8", errors="replace").strip()


async def head_commit(cwd: Path) -> str | None:
    """HEAD's hash, or None outside a repository or before the first commit."""
    code, out = await _git(cwd, "rev-parse", "--verify", "-q", "HEAD")
    return out if code == 0 and out else None


def _has_trailer(message: str, trailer: str) -> bool:
    lines = {line.strip().lower() for line in message.splitlines()}
    return trailer.strip().lower() in lines


async def add_trailer_if_new_commit(
    cwd: Path, before: str | None, started_at: float, trailer: str
) -> str | None:
    """Amend a fresh local commit with the trailer; returns a note for the tool output, or None."""
    after = await head_commit(cwd)
    if after is None or after == before:
        return None
    code, committed = await _git(cwd, "log", "-1", "--format=%ct", after)
    if code != 0 or not committed.isdigit() or int(committed) < int(started_at) - 1:
        return None  # HEAD moved to an older commit (checkout, reset): not one we made
    code, message = await _git(cwd, "log", "-1", "--format=%B", after)
    if code != 0 or _has_trailer(message, trailer):
        return None
    code, remotes = await _git(cwd, "branch", "-r", "--contains", after)
    if code != 0 or remotes.strip():
        return None
    code, out = await _git(cwd, "commit", "--amend", "--no-edit", "--no-verify", "--trailer", trailer)
    if code != 0:
        return f"[siGit] Could not add the co-author trailer to commit {after[:9]}: {out}"
    new = await head_commit(cwd)
    return f'[siGit] Amended commit {after[:9]} -> {(new or "?")[:9]} to add the trailer "{trailer}".'
