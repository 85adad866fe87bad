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
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence

PREFIX = "SIGIT_CMD_"
TERM_GRACE_S = 1.0

# A command's mark, held by its shell's process object (never by pid: a finished shell's pid may be
# handed to another session's command, whose processes must not be taken for this one's).
_marks: weakref.WeakKeyDictionary[asyncio.subprocess.Process, str] = weakref.WeakKeyDictionary()


def marked_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with a new command mark added."""
    return {**env, f"{PREFIX}{uuid.uuid4().hex}": "1"}


def track(shell: asyncio.subprocess.Process, env: dict[str, str]) -> None:
    """Remember the mark of the command run by `shell` (the newest mark in `env`)."""
    marks = [name for name in env if name.startswith(PREFIX)]
    if marks:
        _marks[shell] = marks[-1]


def marked_pids(*marks: str) -> list[int]:
    """Live processes carrying any of `marks` (zombies have no environment left to read); blocking."""
    if not marks:
        return []
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    needles = [f"\0{mark}=".encode() for mark in marks]
    me = os.getpid()
    found = []
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = b"\0" + handle.read()
        except OSError:  # gone, or another user's
            continue
        if any(needle in environ for needle in needles):
            found.append(pid)
    return found


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


async def end_command(shell: asyncio.subprocess.Process, grace: float = TERM_GRACE_S) -> None:
    """Kill whatever the command run by `shell` left running: SIGTERM, then SIGKILL after `grace`
    seconds. A no-op for a command that was never marked or was already ended."""
    await end_commands([shell], grace)


async def end_commands(shells: Sequence[asyncio.subprocess.Process], grace: float = TERM_GRACE_S) -> None:
    """`end_command` for many commands in one sweep and one shared grace period (session end).

    A mark is forgotten only once its sweep is over: a sweep cut short (cancelled) can be run again.
    """
    held = [shell for shell in shells if shell in _marks]
    marks = [_marks[shell] for shell in held]
    await _sweep(marks, grace)
    for shell in held:
        _marks.pop(shell, None)


async def _sweep(marks: Sequence[str], grace: float) -> None:
    await terminate(lambda: marked_pids(*marks), _signal, grace)


async def terminate(
    alive: Callable[[], Collection[int]], send: Callable[[Iterable[int], int], None], grace: float,
) -> None:
    """SIGTERM what `alive()` finds (blocking: run in a thread), SIGKILL what is left after `grace`
    seconds, then wait a moment for it to go: the one ending for processes (`send(pids, sig)`) and for
    process groups alike."""
    left = await asyncio.to_thread(alive)
    if not left:
        return
    send(left, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while left and loop.time() < deadline:
        await asyncio.sleep(0.02)
        left = await asyncio.to_thread(alive)
    if not left:
        return
    send(left, signal.SIGKILL)
    for _ in range(50):  # a SIGKILL is delivered within moments; the caller expects them gone
        await asyncio.sleep(0.02)
        if not await asyncio.to_thread(alive):
            return
