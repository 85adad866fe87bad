"""Every process a command starts ends with the command, detached or not.

Where the sandbox runs commands in a PID namespace of their own (`sandbox/_enforce.py`: Linux with
user namespaces, the default there), the kernel does the work: killing the namespace's init, which
stays in the process group siGit started, kills everything in it, whatever it did to its session,
process group or environment. This module is the fallback for everything else (sandbox off,
macOS, kernels that refuse the namespace), and a second net under the namespace.

A process group is not enough: `setsid cmd &` leaves it, and `nohup cmd &` or a double fork survive
the shell. So when a command ends, times out or is cancelled, one pass over /proc finds its
processes three ways, and they are sent SIGTERM, then SIGKILL after a grace period:
- its session and process group: the shell was started as their leader (`start_new_session`), and
  the number stays theirs while any member lives (the kernel does not hand out a pid still in use
  as a group or session id); the shell's start time tells a reused number from its own;
- a mark of its own in its environment (`SIGIT_CMD_<id>=1`, inherited by everything it starts, kept
  when a nested siGit adds its own), which finds a descendant whoever its parent is now;
- the descendants (children, their children...) of every process found so far.

siGit does not make itself a child subreaper: a subreaper must reap every orphan re-parented to
it, also those of processes it did not start as commands (an MCP server's children, a test's own
subprocesses), and it cannot tell which zombies asyncio or the MCP SDK is still waiting for; a wrong
waitpid steals their exit status, a missing one piles up zombies. Orphans go to init (or the nearest
subreaper), which reaps them once they are killed here, and siGit's own children stay asyncio's to reap.

Limits of the fallback (the PID namespace has none of them): a process that leaves the session and
the process group and clears its environment (`env -i setsid cmd &`) is found only while the chain
of parents that links it to the command lives; once its parent exits it is re-parented to init and
lost. One running as another user (`sudo`) cannot be read or killed; without /proc (macOS) only
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
from dataclasses import dataclass

PREFIX = "SIGIT_CMD_"
TERM_GRACE_S = 1.0


@dataclass(frozen=True)
class Tracked:
    """What finds a command's processes: its mark, and its shell's pid (the session and process group
    it leads) with that process's start time, so the number is not taken for its next owner's."""

    mark: str | None
    leader: int
    started: int | None  # clock ticks since boot (/proc/PID/stat); None without /proc


@dataclass(frozen=True)
class _Stat:
    zombie: bool
    parent: int
    group: int
    session: int
    started: int


# Held by the shell's process object, never looked up by pid (a finished shell's pid may be handed to
# another session's command, whose processes must not be taken for this one's).
_tracked: weakref.WeakKeyDictionary[asyncio.subprocess.Process, Tracked] = weakref.WeakKeyDictionary()


def marked_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with a new command mark added."""
    return {**env, f"{PREFIX}{uuid.uuid4().hex}": "1"}


def track(shell: asyncio.subprocess.Process, env: dict[str, str]) -> None:
    """Remember how to find what the command run by `shell` starts: the newest mark in `env`, and
    the shell as the leader of its session (it must have been started with `start_new_session`)."""
    marks = [name for name in env if name.startswith(PREFIX)]
    stat = _read_stat(shell.pid)
    _tracked[shell] = Tracked(marks[-1] if marks else None, shell.pid, stat.started if stat else None)


def _read_stat(pid: int) -> _Stat | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return _Stat(fields[0] == b"Z", int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
    except (OSError, IndexError, ValueError):
        return None


def _processes() -> dict[int, _Stat]:
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return {}
    table = {}
    for pid in pids:
        stat = _read_stat(pid)
        if stat is not None:
            table[pid] = stat
    return table


def _carries(pid: int, needles: Sequence[bytes]) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = b"\0" + handle.read()
    except OSError:  # gone, or another user's
        return False
    return any(needle in environ for needle in needles)


def command_pids(tracked: Sequence[Tracked], table: dict[int, _Stat] | None = None) -> list[int]:
    """Live processes of the `tracked` commands: their sessions and process groups, their marks, and
    every descendant of those (module docstring); one pass over /proc (or `table`), blocking."""
    if not tracked:
        return []
    table = _processes() if table is None else table
    leaders = set()
    for command in tracked:
        now = table.get(command.leader)
        if now is None or (command.started is not None and now.started == command.started):
            leaders.add(command.leader)  # gone (its number still held by its members), or still it
    needles = [f"\0{command.mark}=".encode() for command in tracked if command.mark]
    me = os.getpid()
    found = {
        pid for pid, stat in table.items()
        if pid != me and (stat.group in leaders or stat.session in leaders or (needles and _carries(pid, needles)))
    }
    children: dict[int, list[int]] = {}
    for pid, stat in table.items():
        children.setdefault(stat.parent, []).append(pid)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found and child != me:
                found.add(child)
                stack.append(child)
    return sorted(pid for pid in found if not table[pid].zombie)


class Sweep:
    """Ending some commands' processes. What one pass finds is remembered (with its start time, against
    pid reuse) for the next: once its parent is killed, an orphan that left the session and the group
    and has no mark is found by nothing else. So look (`alive`) before killing the commands' groups."""

    def __init__(self, shells: Sequence[asyncio.subprocess.Process]) -> None:
        self._held = [shell for shell in shells if shell in _tracked]
        self._tracked = [_tracked[shell] for shell in self._held]
        self._known: dict[int, int] = {}

    def alive(self) -> list[int]:
        """The commands' live processes, those found before included; blocking."""
        table = _processes()
        for pid in command_pids(self._tracked, table):
            self._known[pid] = table[pid].started
        return sorted(pid for pid, started in self._known.items()
                      if (now := table.get(pid)) is not None and now.started == started and not now.zombie)

    async def end(self, grace: float = TERM_GRACE_S) -> None:
        """SIGTERM, then SIGKILL after `grace`. The commands are forgotten only once it is over: a sweep
        cut short (cancelled) can be run again."""
        await terminate(self.alive, _signal, grace)
        for shell in self._held:
            _tracked.pop(shell, None)


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


async def end_command(shell: asyncio.subprocess.Process, grace: float = TERM_GRACE_S) -> None:
    """Kill whatever the command run by `shell` left running: SIGTERM, then SIGKILL after `grace`
    seconds. A no-op for a command that was never marked or was already ended."""
    await end_commands([shell], grace)


async def end_commands(shells: Sequence[asyncio.subprocess.Process], grace: float = TERM_GRACE_S) -> None:
    """`end_command` for many commands in one sweep and one shared grace period (session end)."""
    await Sweep(shells).end(grace)


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
