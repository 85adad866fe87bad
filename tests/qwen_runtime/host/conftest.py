"""Model hosts for tests: a private runtime folder of the test's own (short, a socket path has a length
limit), host logs in tmp, and every host the test started killed at teardown."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def host_pids(folder: Path) -> list[int]:
    """The pids the hosts in `folder` wrote beside their sockets."""
    pids = []
    for info in folder.glob("*.json"):
        try:
            pids.append(int(json.loads(info.read_text())["pid"]))
        except (OSError, ValueError, KeyError):
            continue
    return pids


def alive(pid: int) -> bool:
    """Whether `pid` is still a running process (a zombie, exited but not reaped, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture
def host_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The runtime folder hosts put their sockets in (`XDG_RUNTIME_DIR/qwen-runtime`); hosts killed after."""
    base = Path(tempfile.mkdtemp(prefix="qrh", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    folder = base / "qwen-runtime"
    try:
        yield folder
    finally:
        for pid in host_pids(folder) if folder.is_dir() else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)
