"""Issue 49 family 2 the way the attacker did it: `sigit -p` (a scripted model, default sandbox) runs a
planter that clears its environment and leaves the session (`env -i setsid`), to plant a git key that
runs a program in a repository it creates once siGit is gone, where the user's next `git status`
runs it. Every process siGit started ends with the command (foreground) or the session (background),
and the repository guard looks last, after they have: what the planter writes while being ended is
quarantined, and nothing is left to write later.

The planter is found by a token on its command line (its pid is its PID namespace's). It plants on
gates, not on the clock: once while the session runs, after the step's own repository check (so only
the session's last look can catch it), once when it is being ended (SIGTERM), and once after `sigit -p`
has returned, which no process of the session may live to do.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main
from ..proc_table import alive_with, token

PLANTER = """\
# $1: a token on this command line, $2: what the user's git would run, $3: the gates' prefix
plant() { git init -q "$1" && git -C "$1" config core.fsmonitor "touch $MARKER; true"; }
MARKER=$2
trap 'plant planted-at-kill; exit 0' TERM HUP INT
: > ready
while [ ! -e "$3-in-session" ]; do sleep 0.05; done
plant planted-in-session && : > planted
while [ ! -e "$3-later" ]; do sleep 0.05; done
plant planted-later
"""


class _Watching(ScriptedServer):
    """Notes, as each request comes in, which processes carry the planter's token. With `work` (a
    background planter), the reply to the model's second request, which comes after the step's
    repository check, waits until the planter has started and then planted (`<gate>-in-session`)."""

    def __init__(self, turns: list[dict[str, Any]], needle: str, gate: Path, work: Path | None) -> None:
        super().__init__(turns)
        self.needle, self.gate, self.work = needle, gate, work
        self.alive_at_request: list[list[int]] = []

    def log_request(self, body: dict[str, Any]) -> None:
        if self.work is not None and self.requests:
            _wait_for((self.work / "ready").exists)
            Path(f"{self.gate}-in-session").touch()
            _wait_for((self.work / "planted").exists)
        self.alive_at_request.append(alive_with(self.needle))
        super().log_request(body)


def _wait_for(check: Callable[[], bool]) -> None:
    """Until `check()` holds (on the event; the deadline only keeps a broken run from hanging)."""
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.01)


def _users_git_status(repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "status"], cwd=repo, env=env, capture_output=True, check=False,
                   stdin=subprocess.DEVNULL, timeout=30)


def _run(tmp_path: Path, command: str, background: bool) -> tuple[subprocess.CompletedProcess[str], _Watching,
                                                                    str, Path, Path, Path]:
    work, marker, gate = tmp_path / "work", tmp_path / "RAN", tmp_path / "go"
    work.mkdir()
    (work / "plant.sh").write_text(PLANTER)
    needle = token()
    line = command.format(args=f"{needle} {marker} {gate}")
    call = {"name": "run_command", "arguments": {"command": line, "run_in_background": background}}
    turns: list[dict[str, Any]] = [{"tool_calls": [call]}, {"text": "done"}]
    env = {"SIGIT_CONFIG_DIR": str(tmp_path / "config"), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}
    server = _Watching(turns, needle, gate, work if background else None)
    with server:
        proc = run_sigit_main(["-p", "go", "--model", f"openai:{server.base_url}#scripted-qwen",
                               "--permission-mode", "bypass"], cwd=work, env=env, timeout=120)
    return proc, server, needle, work, marker, gate


def _nothing_runs_later(work: Path, marker: Path, gate: Path, needle: str) -> None:
    assert alive_with(needle) == []  # nothing of the session outlives `sigit -p`
    Path(f"{gate}-later").touch()  # a survivor would plant now
    assert not (work / "planted-later").exists()
    for repo in work.glob("planted-*"):
        _users_git_status(repo)
    assert not marker.exists()


def test_a_background_planter_that_left_the_session_ends_with_it(tmp_path: Path) -> None:
    proc, server, needle, work, marker, gate = _run(
        tmp_path, "env -i setsid sh plant.sh {args} > /dev/null 2>&1 & echo started", background=True)
    assert proc.returncode == 0, proc.stderr
    assert server.alive_at_request[1] != []  # a background command runs on while the session lasts
    # planted after the step's check: the session's last look, after the planter has ended, removes it
    assert "[warning] siGit removed core.fsmonitor from planted-in-session/.git/config" in proc.stderr, proc.stderr
    _nothing_runs_later(work, marker, gate, needle)
    if (work / "planted-at-kill").exists():  # planted while being ended: the last look comes after that too
        assert "siGit removed core.fsmonitor from planted-at-kill/.git/config" in proc.stderr, proc.stderr


def test_a_foreground_commands_detached_grandchild_ends_with_the_command(tmp_path: Path) -> None:
    proc, server, needle, work, marker, gate = _run(
        tmp_path, "env -i setsid sh plant.sh {args} > /dev/null 2>&1 & while [ ! -e ready ]; do sleep 0.01; done; "
        "echo started", background=False)
    assert proc.returncode == 0, proc.stderr
    assert "Exit code 0" in server.requests[1]["messages"][-1]["content"] and (work / "ready").exists()
    assert server.alive_at_request[1] == []  # gone before the model hears the command ended
    _nothing_runs_later(work, marker, gate, needle)
