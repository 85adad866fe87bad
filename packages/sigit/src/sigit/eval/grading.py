"""Running a task's check: in the grading copy, in the OS sandbox, stopped if it hangs or floods output.

The grader's environment is not the agent's: a fresh HOME and temp dir beside the grading copy,
PATH as sigit was started with (and the toolchains' homes: RUSTUP_HOME, GOPATH... but not the user's
config), nothing of the agent's session. With a sandbox, the check writes only its copy and its
home, and reaches no network. A runner's results come over a pipe opened here before the check
starts (`{fd}` in its argv: checks.FD), read as JSON lines while it runs. The check's peak memory is its
process tree's high-water mark as the kernel counts it (`getrusage` of a small parent, see MEASURE). Blocking:
call it from a thread.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..sandbox import Sandbox

FD = "{fd}"
"""In a check's argv: the descriptor of its result pipe (checks.FD)."""
OUTPUT_LIMIT = 8 * 1024 * 1024
"""Bytes of output past which a check is stopped as flooding."""
TAIL_BYTES = 4000
"""The end of a check's output kept in the result (what a failing test prints last)."""


@dataclass(frozen=True)
class CheckRun:
    returncode: int | None
    """The exit status (negative: killed by that signal); None when it never started."""
    output_tail: str
    seconds: float
    peak_rss_mb: float | None = None
    timed_out: bool = False
    flooded: bool = False
    error: str | None = None
    """Why it could not start (the command is missing...)."""
    records: tuple[dict[str, Any], ...] = ()
    """What the check's runner sent over its result pipe, in order (JSON lines)."""
    output: str = ""
    """All of the output (up to OUTPUT_LIMIT), for the parsers of per-test results; not recorded."""

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not (self.timed_out or self.flooded)

    @property
    def shown(self) -> str:
        """What a reader of the result sees of the run: its output's tail, then (the structured runner
        prints nothing itself) the failures its result pipe reported, with their tracebacks."""
        failures = [f"{r.get('test', '?')}: {r.get('outcome')}\n{r.get('detail', '')}".rstrip()
                    for r in self.records if r.get("outcome") not in (None, "passed", "skipped")]
        if not failures:
            return self.output_tail
        text = "\n".join(part for part in (self.output_tail.rstrip(), *failures) if part)
        return text[-TAIL_BYTES:]

    @property
    def crash(self) -> str | None:
        """Why the check itself broke, rather than failing: None when it ran and answered."""
        if self.error is not None:
            return f"the check could not run: {self.error}"
        if self.timed_out:
            return "the check hung and was stopped at its time limit"
        if self.flooded:
            return f"the check flooded its output (over {OUTPUT_LIMIT // (1024 * 1024)} MB) and was stopped"
        if self.returncode is not None and self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"the check was killed by {name}"
        return None


TOOLCHAIN_HOMES = ("RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "GOROOT", "GOPATH", "JAVA_HOME", "GRADLE_USER_HOME")
"""Kept from sigit's environment: where toolchains are installed, not how the user configured them."""


def check_environment(home: Path) -> dict[str, str]:
    """What a check runs with: PATH, locale and toolchain homes from here (rustup's at its default place
    when unset, since HOME changes), its own HOME, temp dir and CARGO_HOME, bytecode off, offline."""
    home.mkdir(parents=True, exist_ok=True)
    keep = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", *TOOLCHAIN_HOMES)
    env = {key: os.environ[key] for key in keep if key in os.environ}
    real_home = Path.home()
    if "RUSTUP_HOME" not in env and (real_home / ".rustup").is_dir():
        env["RUSTUP_HOME"] = str(real_home / ".rustup")
    if "GOPATH" not in env and (real_home / "go").is_dir():
        env["GOPATH"] = str(real_home / "go")
    return {
        **env,
        "CARGO_HOME": str(home / "cargo"),  # the user's cargo config stays out; rustup's proxies find RUSTUP_HOME
        "CARGO_NET_OFFLINE": "true",
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOCACHE": str(home / "go-build"),
        "npm_config_offline": "true",
        "npm_config_update_notifier": "false",
        "HOME": str(home),
        "TMPDIR": str(home),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "NO_COLOR": "1",
        "CI": "1",
    }


MEASURE = """
import os, resource, signal, subprocess, sys
fds = [int(fd) for fd in sys.argv[2].split(",") if fd]
code = subprocess.call(sys.argv[3:], pass_fds=fds)
for fd in fds:
    os.close(fd)
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
if code < 0:
    try:
        signal.signal(-code, signal.SIG_DFL)
    except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default anyway
        pass
    os.kill(os.getpid(), -code)
sys.exit(code)
"""
"""Runs the check as its child and writes the check's peak RSS: a child forked from sigit itself would
count sigit's (the model's) memory at the fork in its high-water mark; one forked from this small
process counts only its own. A check killed by a signal dies of the same signal here."""


def _missing(argv: list[str], cwd: Path, env: dict[str, str]) -> str | None:
    """Why the check's program cannot start, or None."""
    program = argv[0] if argv else ""
    if not program:
        return "the check command is empty"
    if os.sep in program:
        found = (cwd / program).is_file() and os.access(cwd / program, os.X_OK)
    else:
        found = shutil.which(program, path=env.get("PATH")) is not None
    return None if found else f"{program}: not found or not executable"


class _Pipe:
    """The result pipe: the write end goes to the check, the read end is drained by a thread."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.data = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while len(self.data) < OUTPUT_LIMIT:
            ready, _, _ = select.select([self.read_fd], [], [], 0.2)
            if not ready:
                if self._stop.is_set():
                    return
                continue
            chunk = os.read(self.read_fd, 65536)
            if not chunk:
                return
            self.data += chunk

    def started(self) -> None:
        os.close(self.write_fd)  # the check holds it now: EOF comes when the check's last holder ends

    def records(self) -> tuple[dict[str, Any], ...]:
        self._stop.set()
        self._thread.join(5)
        os.close(self.read_fd)
        found: list[dict[str, Any]] = []
        for line in bytes(self.data).decode("utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    found.append(record)
        return tuple(found)


def run_check(
    argv: list[str], cwd: Path, timeout_s: float, env: dict[str, str], *, sandbox: Sandbox | None = None
) -> CheckRun:
    """Run `argv` in `cwd` (wrapped by `sandbox` when given); `{fd}` in it is replaced by a result pipe."""
    started = time.perf_counter()
    missing = _missing(argv, cwd, env)
    if missing is not None:
        return CheckRun(None, "", 0.0, error=missing)
    rss_file = Path(env.get("HOME", str(cwd.parent))) / f".check-rss-{os.getpid()}-{time.monotonic_ns()}"
    pipe = _Pipe() if FD in argv else None
    fds = [pipe.write_fd] if pipe is not None else []
    command = [
        sys.executable,
        "-I",
        "-c",
        MEASURE,
        str(rss_file),
        ",".join(map(str, fds)),
        *(str(fds[0]) if part == FD and fds else part for part in argv),
    ]
    environ = env
    if sandbox is not None:
        wrapped = sandbox.wrap(command, env)
        command, environ = wrapped.argv, wrapped.env
    try:
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=fds,
        )
    except OSError as exc:
        if pipe is not None:
            pipe.started()
            pipe.records()
        return CheckRun(None, "", time.perf_counter() - started, error=f"{argv[0]}: {exc.strerror or exc}")
    if pipe is not None:
        pipe.started()
    stopped: list[str] = []

    def stop(why: str) -> None:
        if not stopped:
            stopped.append(why)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(timeout_s, stop, args=("timeout",))
    timer.daemon = True
    timer.start()
    chunks: list[bytes] = []
    total = 0
    stream = proc.stdout
    assert isinstance(stream, io.BufferedReader)
    try:
        while chunk := stream.read1(65536):
            total += len(chunk)
            chunks.append(chunk)
            if total > OUTPUT_LIMIT:
                stop("flood")
                break
        stream.close()
        returncode = proc.wait()
    finally:
        timer.cancel()
    rss = _read_rss(rss_file)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # what it left running in its group goes with it
    output = b"".join(chunks).decode("utf-8", errors="replace")
    return CheckRun(
        returncode,
        output[-TAIL_BYTES:],
        time.perf_counter() - started,
        rss,
        timed_out="timeout" in stopped,
        flooded="flood" in stopped,
        records=pipe.records() if pipe is not None else (),
        output=output,
    )


def _read_rss(path: Path) -> float | None:
    """The check's peak RSS in MB, as the measuring process wrote it (None if it was killed first)."""
    try:
        peak = int(path.read_text())
    except (OSError, ValueError):
        return None
    finally:
        path.unlink(missing_ok=True)
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB on Linux
