"""Co-author trailer on commits the agent makes.

After a command, if HEAD is a commit made during that command, whose message lacks the trailer and
which no remote branch contains yet, it is amended with `--trailer` (no hook runs: they already ran).
"""

from __future__ import annotations

from pathlib import Path

from sigit.git import run_git_async
from sigit.sandbox import Sandbox


async def _git(cwd: Path, sandbox: Sandbox | None, *args: str) -> tuple[int, str]:
    """Exit code and output (stdout; with stderr when it failed), through the session's sandbox."""
    try:
        result = await run_git_async(cwd, *args, sandbox=sandbox)
    except OSError as exc:  # no git installed, or cwd gone
        return 127, str(exc)
    except TimeoutError:
        return 124, f"git {args[0]} timed out"
    if result.code != 0:
        return result.code, (result.stdout + result.stderr).strip()
    return 0, result.stdout.strip()


async def head_commit(cwd: Path, sandbox: Sandbox | None = None) -> str | None:
    """HEAD's hash, or None outside a repository or before the first commit."""
    code, out = await _git(cwd, sandbox, "rev-parse", "--verify", "-q", "HEAD")
    return out if code == 0 and out else None


def _has_trailer(message: str, trailer: str) -> bool:
    lines = {line.strip().lower() for line in message.splitlines()}
    return trailer.strip().lower() in lines


async def add_trailer_if_new_commit(
    cwd: Path, before: str | None, started_at: float, trailer: str, sandbox: Sandbox | None = None,
) -> str | None:
    """Amend a fresh local commit with the trailer; returns a note for the tool output, or None.

    Every git command here runs hardened and in `sandbox` (see `sigit.git`): the command that made
    the commit may have planted hooks or config in the repository.
    """
    after = await head_commit(cwd, sandbox)
    if after is None or after == before:
        return None
    code, shown = await _git(cwd, sandbox, "log", "-1", "--format=%ct%n%B", after)  # one sandboxed git, not two
    committed, _, message = shown.partition("\n")
    if code != 0 or not committed.isdigit() or int(committed) < int(started_at) - 1:
        return None  # HEAD moved to an older commit (checkout, reset): not one we made
    if _has_trailer(message, trailer):
        return None
    code, remotes = await _git(cwd, sandbox, "branch", "-r", "--contains", after)
    if code != 0 or remotes.strip():
        return None
    code, out = await _git(cwd, sandbox, "commit", "--amend", "--no-edit", "--no-verify", "--trailer", trailer)
    if code != 0:
        return f"[siGit] Could not add the co-author trailer to commit {after[:9]}: {out}"
    new = await head_commit(cwd, sandbox)
    return f'[siGit] Amended commit {after[:9]} -> {(new or "?")[:9]} to add the trailer "{trailer}".'
