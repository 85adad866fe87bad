"""Shell processes: spawning in their own process group, bounded output capture, background jobs.

Output is read while the command runs (a chatty command never blocks on a full pipe), and only a
head and a tail are kept, so 10 MB of output costs 50 KB of memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sigit.sandbox import Sandbox

from sigit.tools import reaper

OUTPUT_LIMIT = 50_000
KILL_GRACE_S = 1.0

# Keep commands from waiting on a pager, an editor or a password prompt nobody can see.
NON_INTERACTIVE_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
}


# Variables through which bash (or sh) would run code before the line or change how it reads it.
SHELL_STARTUP_ENV = ("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "CDPATH", "GLOBIGNORE", "PROMPT_COMMAND")


@functools.cache
def run_shell() -> str:
    """The shell that runs command lines: bash, whose grammar the permission rules read them with
    (`sh` is dash on Debian, which reads `$'...'` otherwise); plain `sh` only where there is no bash,
    and then the policy refuses lines with bash-only syntax. Found once per process, in the system's
    places first (a `bash` a command left in a PATH directory inside the workspace is not taken)."""
    for known in ("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"):
        if os.access(known, os.X_OK):
            return known
    return shutil.which("bash") or "sh"


def runs_bash() -> bool:
    return os.path.basename(run_shell()) == "bash"


def shell_argv(command: str) -> list[str]:
    """The argv that runs a command line."""
    return [run_shell(), "-c", command]


def shell_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without what would make the shell run code before the line (`BASH_ENV`, exported functions)."""
    return {k: v for k, v in env.items() if k not in SHELL_STARTUP_ENV and not k.startswith("BASH_FUNC_")}


def _utf8_head(data: bytes) -> bytes:
    """Cut trailing bytes of an unfinished UTF-8 character."""
    end = len(data)
    back = 0
    while back < 4 and end - back - 1 >= 0 and (data[end - back - 1] & 0xC0) == 0x80:
        back += 1
    lead_at = end - back - 1
    if lead_at < 0:
        return data[: end - back]
    lead = data[lead_at]
    need = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
    if lead < 0x80:
        need = 1
    return data if back + 1 >= need else data[:lead_at]


def _utf8_tail(data: bytes) -> bytes:
    """Drop leading continuation bytes (the end of a character whose start was cut)."""
    start = 0
    while start < min(len(data), 3) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:]


@dataclass
class OutputBuffer:
    """Keeps the first and last `limit // 2` bytes of a stream and counts the rest."""

    limit: int = OUTPUT_LIMIT
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        half = self.limit // 2
        room = half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.limit - half:
                del self.tail[: len(self.tail) - (self.limit - half)]

    def render(self) -> str:
        kept = len(self.head) + len(self.tail)
        if self.total <= self.limit or kept == self.total:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", errors="replace")
        head = _utf8_head(bytes(self.head))
        tail = _utf8_tail(bytes(self.tail))
        omitted = self.total - len(head) - len(tail)
        note = f"\n\n... [{omitted:,} bytes of output omitted; showing the first and last part] ...\n\n"
        return head.decode("utf-8", errors="replace") + note + tail.decode("utf-8", errors="replace")

    def take(self) -> str:
        """Render and reset (background polling returns only what is new)."""
        text = self.render()
        self.head.clear()
        self.tail.clear()
        self.total = 0
        return text


async def spawn(command: str, cwd: Path, sandbox: Sandbox | None = None, *,
                background: bool = False) -> asyncio.subprocess.Process:
    """`bash -c command` (`shell_argv`) in a new session (its own process group), stdout and stderr combined.

    With a `sandbox`, the command (and everything it starts) runs confined by it, in a PID namespace
    of its own where the machine allows (`Sandbox.wrap`): then what it starts ends with it, or, for a
    `background` command, when its process group is killed (`kill_group`, session end).
    Cancellation while the pipes are being connected still ends the already running command.
    """
    starting = asyncio.ensure_future(_create(command, cwd, sandbox, background))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await kill_group(await starting)
        raise


async def _create(command: str, cwd: Path, sandbox: Sandbox | None, background: bool
                  ) -> asyncio.subprocess.Process:
    # the mark finds the command's descendants at its end, wherever they moved
    argv, env = shell_argv(command), reaper.marked_env(shell_env({**os.environ, **NON_INTERACTIVE_ENV}))
    pass_fds: tuple[int, ...] = ()
    if sandbox is not None and sandbox.active:  # stats the git dirs: off the loop
        wrapped = await asyncio.to_thread(functools.partial(sandbox.wrap, argv, env, background=background))
        argv, env, pass_fds = wrapped.argv, wrapped.env, wrapped.pass_fds
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        env=env,
        pass_fds=pass_fds,
    )
    reaper.track(proc, env)
    return proc


async def pump(stream: asyncio.StreamReader | None, buffer: OutputBuffer) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        buffer.feed(chunk)


def _signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _live_groups(pgids: Iterable[int]) -> set[int]:
    """Those of `pgids` with a non-zombie process left (zombies of orphans may never be reaped);
    one pass over /proc for all of them. Blocking."""
    wanted = {pgid for pgid in pgids if _signal_group(pgid, 0)}
    if not wanted:
        return set()
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return wanted
    live: set[int] = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) in wanted:
            live.add(int(fields[2]))
            if live == wanted:
                break
    return live


async def wait_exit(proc: asyncio.subprocess.Process) -> int:
    """Wait for the process itself to exit.

    Python 3.11's `Process.wait()` also waits for its pipes to close, which never happens while a
    child left in the background holds them; the return code is set as soon as the process exits.
    """
    delay = 0.005
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return proc.returncode


async def kill_group(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE_S) -> None:
    """SIGTERM the whole process group, then SIGKILL whatever is left after `grace` seconds; then
    the descendants that left the group (`setsid`, `nohup`, a double fork) go the same way."""
    await kill_groups([proc], grace)


async def kill_groups(procs: Sequence[asyncio.subprocess.Process], grace: float = KILL_GRACE_S,
                      *, finished: Sequence[asyncio.subprocess.Process] = ()) -> None:
    """`kill_group` for many commands at once: one SIGTERM to every group, one shared grace period,
    SIGKILL for what is left, then one reaper sweep, which also covers the descendants of the
    `finished` commands (whose groups are not signalled: their pids may belong to others by now)."""
    sweep = reaper.Sweep([*procs, *finished])
    await asyncio.to_thread(sweep.alive)  # while their parents still tie detached descendants to a command
    await _end_groups([proc.pid for proc in procs], grace)
    await asyncio.gather(*(wait_exit(proc) for proc in procs))
    await sweep.end(grace)


async def _end_groups(pgids: list[int], grace: float) -> None:
    await reaper.terminate(lambda: _live_groups(pgids), _signal_groups, grace)


def _signal_groups(pgids: Iterable[int], sig: int) -> None:
    for pgid in pgids:
        _signal_group(pgid, sig)


class UnknownTaskError(LookupError):
    pass


@dataclass
class BackgroundProcess:
    task_id: str
    command: str
    proc: asyncio.subprocess.Process
    buffer: OutputBuffer
    reader: asyncio.Task[None]

    @property
    def running(self) -> bool:
        return self.proc.returncode is None


@dataclass(frozen=True)
class Poll:
    output: str
    running: bool
    exit_code: int | None


class ProcessManager:
    """A session's background commands, addressed by task id ("bg1", "bg2", ...).

    A job is dropped once its end has been reported (a poll that saw it finished, a kill), so a long
    session does not keep every finished process and its output; only its exit code is remembered.
    """

    def __init__(self) -> None:
        self._jobs: dict[str, BackgroundProcess] = {}
        self._ended: dict[str, int | None] = {}  # task id -> exit code, for a clear error later
        self._lingering: list[asyncio.subprocess.Process] = []  # finished jobs' shells: their descendants may still run
        self._ids = itertools.count(1)

    async def start(self, command: str, cwd: Path, sandbox: Sandbox | None = None) -> str:
        proc = await spawn(command, cwd, sandbox, background=True)
        buffer = OutputBuffer()
        reader = asyncio.get_running_loop().create_task(pump(proc.stdout, buffer))
        task_id = f"bg{next(self._ids)}"
        self._jobs[task_id] = BackgroundProcess(task_id, command, proc, buffer, reader)
        return task_id

    def ids(self) -> list[str]:
        return list(self._jobs)

    def get(self, task_id: str) -> BackgroundProcess | None:
        return self._jobs.get(task_id)

    async def poll(self, task_id: str) -> Poll:
        """New output; once it reports the command finished, the job is dropped."""
        job = self._require(task_id)
        running = job.running
        if not running:
            # let the reader drain what the process wrote before exiting
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(job.reader), 0.5)
            self._drop(job)
        else:
            await asyncio.sleep(0)
        return Poll(job.buffer.take(), running, job.proc.returncode)

    async def kill(self, task_id: str) -> Poll:
        job = self._require(task_id)
        await kill_group(job.proc)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(job.reader), 0.5)
        self._drop(job)
        return Poll(job.buffer.take(), False, job.proc.returncode)

    async def kill_all(self) -> None:
        """End every background command and what finished ones left running (session end), all at
        once: the caller gives the whole session a few seconds, not each job."""
        jobs = list(self._jobs.values())
        live = await asyncio.to_thread(_live_groups, [job.proc.pid for job in jobs if not job.running])
        groups = [job.proc for job in jobs if job.running or job.proc.pid in live]
        for job in jobs:
            self._drop(job)
        finished = [proc for proc in self._lingering if proc not in groups]
        await kill_groups(groups, finished=finished)
        self._lingering.clear()

    def _drop(self, job: BackgroundProcess) -> None:
        job.reader.cancel()
        if self._jobs.pop(job.task_id, None) is not None:
            self._ended[job.task_id] = job.proc.returncode
            self._lingering.append(job.proc)  # what it started in the background ends with the session

    def _require(self, task_id: str) -> BackgroundProcess:
        job = self._jobs.get(task_id)
        if job is not None:
            return job
        if task_id in self._ended:
            raise UnknownTaskError(
                f"Background command {task_id} already ended (exit code {self._ended[task_id]}) "
                "and its final output was returned."
            )
        known = ", ".join(self._jobs) or "none"
        ended = f"; ended: {', '.join(self._ended)}" if self._ended else ""
        raise UnknownTaskError(f"No background command with task_id {task_id!r} (known: {known}{ended}).")
