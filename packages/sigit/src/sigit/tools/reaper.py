"""Every process a command starts ends with the command, detached or not.

A process group is not enough: `setsid cmd &` leaves it, and `nohup cmd &` or a double fork survive
the shell. So each command's environment carries a mark of its own (`SIGIT_CMD_<id>=1`, inherited by
everything it starts, kept when a nested siGit adds its own), and when the command ends, times out or
is cancelled, the processes whose `/proc/PID/environ` carries the mark are sent SIGTERM, then
SIGKILL after a grace period.

siGit makes itself a child subreaper (Linux `prctl(PR_SET_CHILD_SUBREAPER)`), so orphans of a command
are re-parented to siGit rather than init: they cannot slip out of reach by a double fork, and siGit
reaps them. It reaps only processes it knows to be adopted: marked ones, and zombies in the
command's session, never the command's shell, whose exit status asyncio is waiting for, nor any
process siGit (or the MCP SDK) started itself.

Limits: a process that clears or rewrites its environment and then detaches (leaves the session) is
not found; nor is one that does so and exits before the command ends (it stays a zombie until
siGit exits). Without /proc (not Linux) only the process group is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import uuid
from collections.abc import Iterable

PREFIX = "SIGIT_CMD_"
PR_SET_CHILD_SUBREAPER = 36
TERM_GRACE_S = 1.0

_marks: dict[int, str] = {}  # pid of a command's shell -> its mark
_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; once; False elsewhere)."""
    global _subreaper
    if _subreaper or not sys.platform.startswith("linux"):
        return _subreaper
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _subreaper


def marked_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with a new command mark added (and siGit made a subreaper, so orphans come back to it)."""
    become_subreaper()
    return {**env, f"{PREFIX}{uuid.uuid4().hex}": "1"}


def track(pid: int, env: dict[str, str]) -> None:
    """Remember the mark of the command whose shell is `pid` (the newest mark in `env`)."""
    marks = [name for name in env if name.startswith(PREFIX)]
    if marks:
        _marks[pid] = marks[-1]


def _proc_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _carries(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return needle in b"\0" + handle.read()
    except OSError:  # gone, or another user's
        return False


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, session id) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[1]), int(fields[3])
    except (OSError, IndexError, ValueError):
        return None


def marked_pids(mark: str) -> list[int]:
    """Live processes (not zombies: their environment is gone) that carry `mark`; blocking."""
    needle = f"\0{mark}=".encode()
    me = os.getpid()
    return [pid for pid in _proc_pids() if pid != me and _carries(pid, needle)]


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _reap(shell: int, seen: set[int]) -> set[int]:
    """waitpid the adopted ones: marked processes seen alive, and zombies of the command's session.

    The shell itself is left to asyncio. Returns the seen processes still not reaped.
    """
    me = os.getpid()
    candidates = set(seen)
    for pid in _proc_pids():
        info = _stat(pid)
        if info is not None and info[0] == "Z" and info[1] == me and info[2] == shell:
            candidates.add(pid)
    left: set[int] = set()
    for pid in candidates - {shell}:
        info = _stat(pid)
        if info is None or info[1] != me:
            continue  # gone, or not ours to reap
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            left.add(pid)
    return left


async def end_command(shell: int, grace: float = TERM_GRACE_S) -> None:
    """Kill whatever the command whose shell is `shell` left running, and reap what siGit adopted.

    A no-op for a command that was never marked or was already ended.
    """
    mark = _marks.pop(shell, None)
    if mark is None:
        return
    seen: set[int] = set()
    pids = await asyncio.to_thread(marked_pids, mark)
    if pids:
        seen.update(pids)
        _signal(pids, signal.SIGTERM)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while pids and loop.time() < deadline:
            await asyncio.sleep(0.02)
            pids = await asyncio.to_thread(marked_pids, mark)
            seen.update(pids)
        _signal(pids, signal.SIGKILL)
    left = await asyncio.to_thread(_reap, shell, seen)
    for _ in range(50):  # SIGKILLed ones become zombies within moments
        if not left:
            break
        await asyncio.sleep(0.02)
        left = await asyncio.to_thread(_reap, shell, left)
