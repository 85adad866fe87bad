"""`Edit(...)` means what it means in Claude Code, wherever a rule is written: it covers every tool that
edits files (edit, multi-edit, write, delete), in settings.toml and in the Claude CLI's
`--allowedTools`/`--disallowedTools` alike, because each tool declares the rule names that cover it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..in_process import run_sigit_main

pytestmark = pytest.mark.slow


TURNS: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "create_file", "arguments": {"path": "src/new.py", "content": "new\n"}}]},
    {"tool_calls": [{"name": "multi_edit", "arguments": {"path": "src/a.py",
                                                         "edits": [{"old_text": "a = 1", "new_text": "a = 2"}]}}]},
    {"tool_calls": [{"name": "edit_file",
                     "arguments": {"path": "src/b.py", "old_text": "b = 1", "new_text": "b = 2"}}]},
    {"tool_calls": [{"name": "delete_file", "arguments": {"path": "src/old.py"}}]},
    {"tool_calls": [{"name": "create_file", "arguments": {"path": "src/locked.py", "content": "no\n"}}]},
    {"tool_calls": [{"name": "create_file", "arguments": {"path": "top.py", "content": "no\n"}}]},
    {"text": "done"},
]


def project(tmp_path: Path) -> tuple[Path, Path, str]:
    work, config = tmp_path / "work", tmp_path / "config"
    (work / "src").mkdir(parents=True)
    config.mkdir()
    (work / "src" / "a.py").write_text("a = 1\n")
    (work / "src" / "b.py").write_text("b = 1\n")
    (work / "src" / "old.py").write_text("old\n")
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": TURNS}))
    return work, config, f"scripted:{scenario}"


def run(args: list[str], work: Path, config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`sigit ARGS` (`sigit.cli.main` in this process) in `work`, with `config` as the user's config dir."""
    environ = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None, **env}
    return run_sigit_main(args, cwd=work, env=environ, timeout=120)


def assert_edit_rules_applied(work: Path) -> None:
    """Allowed: every file edit under src/ (each tool), denied: src/locked*; asked (refused): the rest."""
    assert (work / "src" / "new.py").read_text() == "new\n"  # create_file
    assert (work / "src" / "a.py").read_text() == "a = 2\n"  # multi_edit
    assert (work / "src" / "b.py").read_text() == "b = 2\n"  # edit_file
    assert not (work / "src" / "old.py").exists()  # delete_file
    assert not (work / "src" / "locked.py").exists()  # the deny rule wins
    assert not (work / "top.py").exists()  # no rule: asked, and nobody is asked here


def test_edit_rules_in_settings_toml_cover_every_file_edit(tmp_path: Path) -> None:
    work, config, model = project(tmp_path)
    (config / "settings.toml").write_text(
        '[permissions.rules]\nallow = ["Edit(src/*)"]\ndeny = ["Edit(src/locked*)"]\n'
    )
    proc = run(["-p", "edit", "--model", model, "--max-turns", "10"], work, config)
    assert proc.returncode == 0, proc.stderr
    assert_edit_rules_applied(work)


def test_edit_rules_in_claude_s_allowed_and_disallowed_tools_mean_the_same(tmp_path: Path) -> None:
    work, config, model = project(tmp_path)
    proc = run(["--output-format", "stream-json", "--verbose", "--model", model, "--max-turns", "10",
                "--allowedTools", "Edit(src/*)", "--disallowedTools", "Edit(src/locked*)", "-p", "edit"],
               work, config, CLAUDE_CODE_ENTRYPOINT="sdk-py")
    assert proc.returncode == 0, proc.stderr
    assert_edit_rules_applied(work)
