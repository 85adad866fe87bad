"""Running a task's check: in the copy, in the pack's environment, stopped if it hangs or floods output.

The grader's environment is not the agent's: a fresh HOME and temp dir inside the task's folder,
PATH as sigit was started with, nothing of the agent's session. The check's peak memory is its
process tree's high-water mark as the kernel counts it (`getrusage` of a small parent, see MEASURE). Blocking:
call it from a thread.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

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

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not (self.timed_out or self.flooded)

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


def check_environment(home: Path) -> dict[str, str]:
    """What a check runs with: PATH and locale from here, its own HOME and temp dir, bytecode off."""
    home.mkdir(parents=True, exist_ok=True)
    keep = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    return {
        **env,
        "HOME": str(home),
        "TMPDIR": str(home),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "NO_COLOR": "1",
        "CI": "1",
    }


MEASURE = """
import os, resource, signal, subprocess, sys
code = subprocess.call(sys.argv[2:])
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


def run_check(argv: list[str], cwd: Path, timeout_s: float, env: dict[str, str]) -> CheckRun:
    started = time.perf_counter()
    missing = _missing(argv, cwd, env)
    if missing is not None:
        return CheckRun(None, "", 0.0, error=missing)
    rss_file = Path(env.get("TMPDIR", str(cwd.parent))) / f".check-rss-{os.getpid()}-{time.monotonic_ns()}"
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", MEASURE, str(rss_file), *argv],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return CheckRun(None, "", time.perf_counter() - started, error=f"{argv[0]}: {exc.strerror or exc}")
    stopped: list[str] = []

    def stop(why: str) -> None:
        if not stopped:
            stopped.append(why)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(timeout_s, stop, args=("timeout",))
    timer.daemon = True
    timer.start()
    tail: deque[bytes] = deque()
    kept = total = 0
    stream = proc.stdout
    assert isinstance(stream, io.BufferedReader)
    try:
        while chunk := stream.read1(65536):
            total += len(chunk)
            tail.append(chunk)
            kept += len(chunk)
            while kept - len(tail[0]) >= TAIL_BYTES:
                kept -= len(tail.popleft())
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
    text = b"".join(tail)[-TAIL_BYTES:].decode("utf-8", errors="replace")
    return CheckRun(
        returncode, text, time.perf_counter() - started, rss, timed_out="timeout" in stopped, flooded="flood" in stopped
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
