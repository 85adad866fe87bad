"""Issue 28, findings 3 and 9, through `sigit -p` with a scripted model: a repository's config folders
and instruction files count only where they lead inside the project. `.claude/skills -> /` does not make
`~/.ssh` readable; `AGENTS.md -> ~/secret` does not put the secret in the prompt."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"
SECRET = "the-secret-in-the-home-directory"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    (home / "secret").write_text(SECRET + "\n")
    return home


def _env(home: Path, config: Path) -> dict[str, str | None]:
    return {"HOME": str(home), "SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}


def _results(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return [block for event in events if event["type"] == "user"
            for block in event["message"]["content"] if block["type"] == "tool_result"]


@pytest.mark.parametrize(("folder", "target", "tool"), [
    (".claude/skills", "/", "read_file"), (".sigit/commands", "HOME", "list_directory"),
    (".claude/agents", "HOME/.ssh", "read_file"), (".sigit/skills", "HOME", "list_directory"),
])
def test_a_linked_config_folder_does_not_open_the_filesystem(tmp_path: Path, home: Path, folder: str,
                                                              target: str, tool: str) -> None:
    work = tmp_path / "work"
    (work / folder).parent.mkdir(parents=True)
    (work / folder).symlink_to(target.replace("HOME", str(home)))
    path = str(home / ".ssh" / ("id_rsa" if tool == "read_file" else ""))
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": tool, "arguments": {"path": path}}]}, {"text": "done"}]}))
    proc = run_sigit_main(["-p", "read it", "--model", f"scripted:{scenario}", "--output-format", "stream-json"],
                          cwd=work, env=_env(home, tmp_path / "config"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert KEY not in proc.stdout and "id_rsa" not in json.dumps(
        [r["content"] for r in _results(proc.stdout) if not r["is_error"]])
    [result] = _results(proc.stdout)
    assert result["is_error"] and "needs permission" in result["content"]


@pytest.mark.parametrize("name", ["AGENTS.md", "CLAUDE.md", "sub/AGENTS.md"])
def test_a_linked_instruction_file_is_not_sent_to_the_model(tmp_path: Path, home: Path, name: str) -> None:
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    (work / name).parent.mkdir(parents=True, exist_ok=True)
    (work / name).symlink_to(home / "secret")
    cwd = (work / name).parent
    with ScriptedServer([{"text": "ok"}]) as server:
        proc = run_sigit_main(["-p", "hi", "--model", f"openai:{server.base_url}#scripted-qwen"], cwd=cwd,
                              env=_env(home, tmp_path / "config"), timeout=120)
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    system = bodies[0]["messages"][0]["content"]
    assert SECRET not in json.dumps(bodies)
    assert "leads outside the project" in system


def test_an_instruction_file_linked_inside_the_project_is_read(tmp_path: Path, home: Path) -> None:
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "agents.md").write_text("Use tabs.\n")
    (work / "AGENTS.md").symlink_to(work / "docs" / "agents.md")
    with ScriptedServer([{"text": "ok"}]) as server:
        proc = run_sigit_main(["-p", "hi", "--model", f"openai:{server.base_url}#scripted-qwen"], cwd=work,
                              env=_env(home, tmp_path / "config"), timeout=120)
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    assert "Use tabs." in bodies[0]["messages"][0]["content"]


@pytest.mark.parametrize(("name", "kind"), [(".sigit/settings.toml", "fifo"), (".mcp.json", "fifo"),
                                            (".sigit/settings.toml", "/dev/zero"), (".mcp.json", "/dev/zero")])
def test_a_fifo_or_device_as_a_project_file_is_skipped_with_the_reason(tmp_path: Path, home: Path, name: str,
                                                                       kind: str) -> None:
    """Issue 28 (LOW): sigit exited 2 in such a folder; it says why and goes on without the file."""
    work = tmp_path / "work"
    (work / ".sigit").mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(work / name)
    else:
        (work / name).symlink_to(kind)
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [{"text": "fine"}]}))
    proc = run_sigit_main(["-p", "hi", "--model", f"scripted:{scenario}"], cwd=work,
                          env=_env(home, tmp_path / "config"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "fine" in proc.stdout
    if name.endswith(".toml"):  # (an untrusted folder's .mcp.json is never read, so nothing to say)
        assert "settings.toml: not read" in proc.stderr, proc.stderr
        assert "FIFO" in proc.stderr or "device" in proc.stderr, proc.stderr
