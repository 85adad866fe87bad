"""The real `sigit` in a pseudo-terminal: it opens the app, answers from a scripted model, quits."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

SIGIT = Path(sys.executable).parent / "sigit"


def test_sigit_runs_in_a_terminal(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": [{"text": "PONGREPLY"}]}))
    work = tmp_path / "work"
    work.mkdir()
    # the terminal's own size: COLUMNS/LINES (pytest-xdist's workers set 80x24) would override the pty's
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env |= {"TERM": "xterm-256color", "SIGIT_CONFIG_DIR": str(tmp_path / "config")}
    child = pexpect.spawn(
        str(SIGIT), ["--model", f"scripted:{scenario}", "--cwd", str(work)],
        env=env, dimensions=(40, 120), timeout=20, encoding="utf-8",
    )
    try:
        child.expect("mode default")  # the status bar: the session is open
        child.send("ping")
        child.send("\r")
        child.expect("PONGREPLY")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
