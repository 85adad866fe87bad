"""Issue 49 family 9, the way an attacker would: a planted README and a command's output carry an OSC
52 clipboard write, a device-status query, a title change, a DCS string, a C1 CSI and a `\\r` that
redraws the line; the scripted model reads them, runs the command and repeats them in its answer.
`sigit -p` in text mode writes none of them to stderr (progress) or stdout (the answer): no ESC but
plain SGR colour, no BEL, no C1 control."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .test_headless_cli import run_sigit

PLANTED = (
    "Read me \x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b[6n \x1b]0;owned\x1b\\ \x1bP+q\x1b\\ \x9b2J \x1b[31mred\x1b[0m\rOK"
)
SGR = re.compile(r"\x1b\[[0-9;]*m")


def unsafe(text: str) -> list[str]:
    """The control characters left in `text` once plain SGR colour is taken out."""
    return sorted({c for c in SGR.sub("", text) if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f})


def test_headless_progress_and_answer_carry_no_control_sequences(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    (work / "README.md").write_text(PLANTED + "\n")
    turns = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]},
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "cat README.md"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": PLANTED}}]},  # in the progress title too
        {"text": "The README says: " + PLANTED},
    ]
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": turns}))
    proc = run_sigit(["-p", "summarise the readme", "--model", f"scripted:{scenario}", "--allow-tool",
                      "run_command(cat *)"], work, config)
    assert proc.returncode == 0, proc.stderr
    assert "read_file" in proc.stderr and "cat README.md" in proc.stderr  # the progress lines are there
    assert "The README says" in proc.stdout and "52;c;" in proc.stdout  # shown, as text
    assert unsafe(proc.stderr) == [] and unsafe(proc.stdout) == [], (proc.stderr, proc.stdout)
    assert "\\x1b]52;c;" in proc.stdout  # the sequence reads as text


def test_json_output_escapes_them_as_json_does(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": [{"text": PLANTED}]}))
    proc = run_sigit(["-p", "go", "--model", f"scripted:{scenario}", "--output-format", "json"], work, config)
    assert proc.returncode == 0, proc.stderr
    assert unsafe(proc.stdout) == [] and json.loads(proc.stdout)["result"] == PLANTED
