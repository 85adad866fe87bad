"""The grader on its own: the check's peak memory is its own (not sigit's), a missing program and a
signal are told apart from a failing check."""

from __future__ import annotations

import sys
from pathlib import Path

from sigit.eval.grading import CheckRun, check_environment, run_check


def check(tmp_path: Path, *argv: str, timeout: float = 30) -> CheckRun:
    return run_check(list(argv), tmp_path, timeout, check_environment(tmp_path / "home"))


def test_peak_memory_is_the_checks_own(tmp_path: Path) -> None:
    big = bytearray(200 * 1024 * 1024)  # this process is large; a check forked from it must not look so
    small = check(tmp_path, sys.executable, "-c", "pass")
    grows = check(tmp_path, sys.executable, "-c", "x = bytearray(150 * 1024 * 1024); x[::4096] = b'1' * len(x[::4096])")
    del big
    assert small.passed and small.peak_rss_mb is not None and small.peak_rss_mb < 100
    assert grows.passed and grows.peak_rss_mb is not None and grows.peak_rss_mb > 150


def test_missing_program_and_signal_are_crashes(tmp_path: Path) -> None:
    missing = check(tmp_path, "no-such-program-here", "x")
    assert missing.crash == "the check could not run: no-such-program-here: not found or not executable"
    killed = check(tmp_path, sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert killed.returncode == -15 and killed.crash == "the check was killed by SIGTERM"
    failing = check(tmp_path, "sh", "-c", "echo nope; exit 3")
    assert failing.returncode == 3 and failing.crash is None and failing.output_tail == "nope\n"
