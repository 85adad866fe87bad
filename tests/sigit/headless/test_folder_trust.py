"""Folder trust, headless: a cloned repository's hooks, MCP servers, model and loosened permissions
stay off until the user trusts the folder (`--trust` for one run, `sigit trust DIR` for good)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from qwen_runtime.testing.server import ScriptedServer

from .test_headless_cli import run_sigit

FIXTURE = Path(__file__).resolve().parents[1] / "extensions" / "mcp_server_fixture.py"
TURNS = [
    {"tool_calls": [{"name": "create_file", "arguments": {"path": "made.txt", "content": "x\n"}}]},
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch allowed.txt"}}]},
    {"text": "done"},
]


class Repo:
    """A folder whose project files want a hook, an MCP server, a model endpoint and looser permissions."""

    def __init__(self, tmp_path: Path) -> None:
        self.work = tmp_path / "repo"
        self.config = tmp_path / "config"
        self.work.mkdir()
        self.config.mkdir()
        self.hook_marker = tmp_path / "hook-ran"
        self.mcp_marker = tmp_path / "mcp-ran"
        scenario = tmp_path / "scenario.json"
        scenario.write_text(json.dumps({"turns": TURNS}))
        (self.config / "settings.toml").write_text(f'model = "scripted:{scenario}"\n')
        (self.work / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {
            "command": "sh", "args": ["-c", f"touch {self.mcp_marker}; exec {sys.executable} {FIXTURE}"]}}}))

    def settings(self, base_url: str, hook: str = "") -> None:
        (self.work / ".sigit").mkdir(exist_ok=True)
        (self.work / ".sigit" / "settings.toml").write_text(
            f'model = "openai:{base_url}#scripted-qwen"\n'
            f'[[hooks.session_start]]\ncommand = "touch {self.hook_marker}{hook}"\n'
            '[permissions]\nmode = "accept-edits"\n'
            '[permissions.rules]\nallow = ["run_command(touch *)"]\ndeny = ["web_fetch"]\n'
        )

    def reset(self) -> None:
        for marker in (self.hook_marker, self.mcp_marker, self.work / "made.txt", self.work / "allowed.txt"):
            marker.unlink(missing_ok=True)

    def run(self, *extra: str) -> str:
        """`sigit -p` here; its stderr (the turn itself must succeed, on whichever model applies)."""
        self.reset()
        proc = run_sigit(["-p", "go", "--quiet", *extra], self.work, self.config)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "done"
        return proc.stderr

    def took_effect(self) -> dict[str, bool]:
        return {
            "hook": self.hook_marker.exists(), "mcp": self.mcp_marker.exists(),
            "accept-edits": (self.work / "made.txt").exists(), "allow rule": (self.work / "allowed.txt").exists(),
        }


ALL_ON = {"hook": True, "mcp": True, "accept-edits": True, "allow rule": True}
ALL_OFF = {"hook": False, "mcp": False, "accept-edits": False, "allow rule": False}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path)


def assert_one_trust_line(stderr: str, repo: Repo) -> None:
    """The folder's requests are named once; the only other line may be why the turn changed nothing."""
    lines = [line for line in stderr.splitlines() if "Nothing was changed: permission was refused" not in line]
    assert len(lines) == 1, stderr
    line = lines[0]
    assert "--trust" in line and f"sigit trust {repo.work.resolve()}" in line
    assert "runs `touch" in line and "MCP server `docs`" in line and "allow rules: run_command(touch *)" in line


def test_untrusted_folder_runs_nothing_of_its_own_and_says_so_once(repo: Repo) -> None:
    with ScriptedServer(TURNS) as server:
        repo.settings(server.base_url)
        stderr = repo.run()
        assert server.requests == []  # the project's endpoint never saw the conversation (nor a key)
    assert repo.took_effect() == ALL_OFF
    assert_one_trust_line(stderr, repo)


def test_trust_flag_applies_the_project_for_one_run(repo: Repo) -> None:
    with ScriptedServer(TURNS) as server:
        repo.settings(server.base_url)
        assert repo.run("--trust") == ""
        assert server.requests  # the project's model answered
        assert repo.took_effect() == ALL_ON
        assert not (repo.config / "trusted_folders.json").exists()  # nothing recorded
        before = len(server.requests)
        assert_one_trust_line(repo.run(), repo)
        assert len(server.requests) == before and repo.took_effect() == ALL_OFF


def test_sigit_trust_applies_the_parts_until_they_change(repo: Repo) -> None:
    with ScriptedServer(TURNS * 3) as server:
        repo.settings(server.base_url)
        trust = run_sigit(["trust"], repo.work, repo.config)  # DIR defaults to the current directory
        assert trust.returncode == 0, trust.stderr
        assert "runs `touch" in trust.stdout  # what was trusted is shown
        stored = json.loads((repo.config / "trusted_folders.json").read_text())
        assert list(stored["folders"]) == [str(repo.work.resolve())]
        assert repo.run() == ""
        assert server.requests and repo.took_effect() == ALL_ON

        # harmless keys may change without a question (a top-level key: appended, it would land in
        # `[permissions.rules]`, which the settings model now refuses as an unknown key)
        settings_file = repo.work / ".sigit" / "settings.toml"
        settings_file.write_text("max_tokens = 2048\n" + settings_file.read_text())
        assert repo.run() == "" and repo.took_effect() == ALL_ON

        # a project file that changes after trust (here: its hook) asks again
        repo.settings(server.base_url, hook=" changed")
        before = len(server.requests)
        assert_one_trust_line(repo.run(), repo)
        assert len(server.requests) == before and repo.took_effect() == ALL_OFF


def test_list_and_revoke(repo: Repo) -> None:
    repo.settings("http://127.0.0.1:9/v1")
    assert run_sigit(["trust", str(repo.work)], repo.work, repo.config).returncode == 0
    listing = run_sigit(["trust", "--list"], repo.work, repo.config)
    assert listing.stdout.split("\t")[0] == str(repo.work.resolve())
    revoked = run_sigit(["trust", "--revoke", str(repo.work)], repo.work, repo.config)
    assert revoked.returncode == 0 and "No longer trusted" in revoked.stdout
    empty = run_sigit(["trust", "--list"], repo.work, repo.config)
    assert empty.stdout == "" and "No trusted folders" in empty.stderr
    again = run_sigit(["trust", "--revoke", str(repo.work)], repo.work, repo.config)
    assert again.returncode == 1 and "not a trusted folder" in again.stderr


def test_folder_without_project_parts_is_never_asked_about(tmp_path: Path) -> None:
    work, config = tmp_path / "plain", tmp_path / "config"
    (work / ".sigit").mkdir(parents=True)
    (work / ".sigit" / "settings.toml").write_text('thinking = false\n[permissions.rules]\ndeny = ["glob"]\n')
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": ["hi"]}))
    proc = run_sigit(["-p", "go", "--quiet", "--model", f"scripted:{scenario}"], work, config)
    assert proc.returncode == 0 and proc.stdout.strip() == "hi" and proc.stderr == ""
    said = run_sigit(["trust", str(work)], work, config)
    assert "asks for nothing that needs trust" in said.stdout
