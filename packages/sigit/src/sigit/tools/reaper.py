"""Every process a command starts ends with the command, detached or not.

A process group is not enough: `setsid cmd &` leaves it, and `nohup cmd &` or a double fork survive
the shell. So each command's environment carries a mark of its own (`SIGIT_CMD_<id>=1`, inherited by
everything it starts, kept when a nested siGit adds its own), and when the command ends, times out or
is cancelled, the processes whose `/proc/PID/environ` carries the mark are sent SIGTERM, then
SIGKILL after a grace period.

The mark finds a descendant whoever its parent is now, so siGit does not make itself a child
subreaper: a subreaper must reap every orphan re-parented to it, also those of processes it did not
start as commands (an MCP server's children, a test's own subprocesses), and it cannot tell which
zombies asyncio or the MCP SDK is still waiting for; a wrong waitpid steals their exit status, a
missing one piles up zombies. Orphans go to init (or the nearest subreaper), which reaps them once
they are killed here, and siGit's own children stay asyncio's to reap.

Limits: a process that clears or rewrites its environment and then leaves the process group is not
found; one running as another user (`sudo`) cannot be read or killed; without /proc (not Linux) only
the process group is killed; if siGit itself is killed, nothing is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import uuid
from collections.abc import Iterable

PREFIX = "SIGIT_CMD_"
TERM_GRACE_S = 1.0

_marks: dict[int, str] = {}  # pid of a running command's shell -> its mark


def marked_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with a new command mark added."""
    return {**env, f"{PREFIX}{uuid.uuid4().hex}": "1"}


def track(pid: int, env: dict[str, str]) -> None:
    """Remember the mark of the command whose shell is `pid` (the newest mark in `env`)."""
    marks = [name for name in env if name.startswith(PREFIX)]
    if marks:
        _marks[pid] = marks[-1]


def marked_pids(mark: str) -> list[int]:
    """Live processes carrying `mark` (zombies have no environment left to read); blocking."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    needle = f"\0{mark}=".encode()
    me = os.getpid()
    found = []
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if needle in b"\0" + handle.read():
                    found.append(pid)
        except OSError:  # gone, or another user's
            continue
    return found


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


async def end_command(shell: int, grace: float = TERM_GRACE_S) -> None:
    """Kill whatever the command whose shell is `shell` left running: SIGTERM, then SIGKILL after
    `grace` seconds. A no-op for a command that was never marked or was already ended."""
    mark = _marks.pop(shell, None)
    if mark is None:
        return
    pids = await asyncio.to_thread(marked_pids, mark)
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while pids and loop.time() < deadline:
        await asyncio.sleep(0.02)
        pids = await asyncio.to_thread(marked_pids, mark)
    if not pids:
        return
    _signal(pids, signal.SIGKILL)
    for _ in range(50):  # a SIGKILL is delivered within moments; the caller expects them gone
        await asyncio.sleep(0.02)
        if not await asyncio.to_thread(marked_pids, mark):
            return
