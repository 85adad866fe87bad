"""`sigit -p` (`sigit.cli.main` in this process): a model that reads a key outside the working directory gets a
refusal naming --add-dir, not the key; with --add-dir the read goes through."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..in_process import run_sigit_main

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    work = tmp_path / "work"
    work.mkdir()
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "~/.ssh/id_rsa"}}]},
        {"text": "done"},
    ]}))
    return {"home": home, "work": work, "scenario": scenario, "config": tmp_path / "config"}


def run(layout: dict[str, Path], *flags: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    env = {"HOME": str(layout["home"]), "SIGIT_CONFIG_DIR": str(layout["config"]), "HF_HUB_OFFLINE": "1",
           "SIGIT_PERMISSION_DEFAULT": None}
    proc = run_sigit_main(
        ["-p", "read my key", "--model", f"scripted:{layout['scenario']}", "--output-format", "stream-json", *flags],
        cwd=layout["work"], env=env, timeout=120,
    )
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    results = [block for event in events if event["type"] == "user"
               for block in event["message"]["content"] if block["type"] == "tool_result"]
    return proc, results


def test_reading_a_key_outside_the_workspace_is_refused_with_the_flag(layout: dict[str, Path]) -> None:
    proc, results = run(layout)
    assert proc.returncode == 0, proc.stderr
    assert KEY not in proc.stdout and KEY not in proc.stderr
    [result] = results
    assert result["is_error"]
    assert "needs permission" in result["content"]
    assert f"--add-dir {layout['home'] / '.ssh'}" in result["content"]


def test_add_dir_lets_the_read_through(layout: dict[str, Path]) -> None:
    proc, results = run(layout, "--add-dir", str(layout["home"] / ".ssh"))
    assert proc.returncode == 0, proc.stderr
    [result] = results
    assert not result["is_error"] and KEY in result["content"]


def test_add_dir_must_be_a_directory(layout: dict[str, Path]) -> None:
    proc, _ = run(layout, "--add-dir", str(layout["home"] / "missing"))
    assert proc.returncode == 2 and "--add-dir" in proc.stderr
