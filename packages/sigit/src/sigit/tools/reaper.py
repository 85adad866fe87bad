"""Every process a command starts ends with the command, detached or not.

A process group is not enough: `setsid cmd &` leaves it, and `nohup cmd &` or a double fork survive
the shell. So each command's environment carries a mark of its own (`SIGIT_CMD_<id>=1`, inherited by
everything it starts, kept when a nested siGit adds its own), and when the command ends, times out or
is cancelled, the processes whose `/proc/PID/environ` carries the mark are sent SIGTERM, then
SIGKILL after a grace period.

siGit makes itself a child subreaper (Linux `prctl(PR_SET_CHILD_SUBREAPER)`), so orphans of a command
are re-parented to siGit rather than init: they cannot slip out of reach by a double fork, and siGit
reaps them. It reaps only processes it knows descend from a command: every marked process any scan
has seen (a scan runs whenever a command ends), and zombies in the ended command's session; never a
command's shell, whose exit status asyncio is waiting for, nor any process siGit or the MCP SDK
started itself, nor a reused pid (the start time must match).

Limits: a process that clears or rewrites its environment and then leaves the session is not found;
a detached one that exits on its own before any scan saw it stays a zombie until siGit exits;
without /proc (not Linux) only the process group is killed; if siGit itself is killed, nothing is.
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
from dataclasses import dataclass

PREFIX = "SIGIT_CMD_"
PR_SET_CHILD_SUBREAPER = 36
TERM_GRACE_S = 1.0

_marks: dict[int, str] = {}  # pid of a running command's shell -> its mark
_descendants: dict[int, int] = {}  # pid -> start time of every descendant seen, until reaped or gone
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


@dataclass(frozen=True)
class _Stat:
    state: str
    parent: int
    session: int
    started: int  # clock ticks after boot: with the pid, it names one process, not a reused pid


def _stat(pid: int) -> _Stat | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return _Stat(fields[0].decode(), int(fields[1]), int(fields[3]), int(fields[19]))
    except (OSError, IndexError, ValueError):
        return None


def _scan(marks: Iterable[str]) -> dict[str, list[int]]:
    """For each mark, the live processes (zombies have no environment left) carrying it; blocking."""
    needles = {mark: f"\0{mark}=".encode() for mark in marks}
    found: dict[str, list[int]] = {mark: [] for mark in needles}
    me = os.getpid()
    prefix = f"\0{PREFIX}".encode()
    for pid in _proc_pids():
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = b"\0" + handle.read()
        except OSError:  # gone, or another user's
            continue
        if prefix not in environ:
            continue
        for mark, needle in needles.items():
            if needle in environ:
                found[mark].append(pid)
    return found


def marked_pids(mark: str) -> list[int]:
    """Live processes that carry `mark`; blocking."""
    return _scan([mark])[mark]


def _note(found: dict[str, list[int]], shell: int) -> None:
    """Remember every descendant seen (not the shells, which asyncio reaps), to reap it once adopted."""
    shells = {shell, *_marks}
    for pids in found.values():
        for pid in pids:
            if pid not in shells and pid not in _descendants and (info := _stat(pid)) is not None:
                _descendants[pid] = info.started


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _reap(shell: int, killed: Iterable[int] = ()) -> int:
    """waitpid the adopted zombies: descendants seen alive, and zombies of the command's session.

    Never a shell (asyncio waits for those) nor a reused pid (the start time must match). Returns how
    many of `killed` are still alive and siGit's children (about to die: worth waiting for).
    """
    killed = set(killed)
    me = os.getpid()
    shells = {shell, *_marks}
    for pid in _proc_pids():
        info = _stat(pid)
        if info is not None and info.state == "Z" and info.parent == me and info.session == shell:
            _descendants.setdefault(pid, info.started)
    pending = 0
    for pid, started in list(_descendants.items()):
        info = _stat(pid)
        if info is None or info.started != started or pid in shells:
            del _descendants[pid]  # gone (reaped by its own parent), or a different process now
            continue
        if info.parent != me:
            continue  # not adopted (yet)
        if info.state != "Z":
            pending += pid in killed
            continue
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        del _descendants[pid]
    return pending


async def end_command(shell: int, grace: float = TERM_GRACE_S) -> None:
    """Kill whatever the command whose shell is `shell` left running, and reap what siGit adopted
    (its descendants, and those of other commands seen on the way).

    A no-op for a command that was never marked or was already ended.
    """
    mark = _marks.pop(shell, None)
    if mark is None:
        return
    found = await asyncio.to_thread(_scan, [mark, *_marks.values()])
    _note(found, shell)
    pids = killed = found[mark]
    if pids:
        _signal(pids, signal.SIGTERM)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while pids and loop.time() < deadline:
            await asyncio.sleep(0.02)
            pids = await asyncio.to_thread(marked_pids, mark)
        _signal(pids, signal.SIGKILL)
    for _ in range(50):  # SIGKILLed ones become zombies within moments
        if not await asyncio.to_thread(_reap, shell, killed):
            break
        await asyncio.sleep(0.02)
