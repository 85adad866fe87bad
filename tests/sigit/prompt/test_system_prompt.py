import os
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from sigit.config.settings import DEFAULT_ATTRIBUTION
from sigit.prompt import system_prompt
from sigit.prompt.system_prompt import build_system_prompt, git_summary
from sigit.tools import all_tools

TOOLS = ["read_file", "edit_file", "create_file", "run_command", "write_todos", "search_files", "glob"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "trunk")
    (root / "a.py").write_text("x = 1\n")
    git(root, "add", "a.py")
    git(root, "commit", "-q", "-m", "init")
    return root


def offered(names: list[str]) -> list[object]:
    return [tool for tool in all_tools() if tool.name in names]


def build(cwd: Path, tmp_path: Path, **kwargs: object) -> str:
    options: dict[str, object] = {
        "tools": offered(TOOLS),
        "config_dir": tmp_path / "config",
        "attribution": DEFAULT_ATTRIBUTION,
        "now": datetime(2025, 3, 14, 9, 26),
    }
    options.update(kwargs)
    return build_system_prompt(cwd, **options)  # type: ignore[arg-type]


def test_prompt_has_environment_and_git_state(repo: Path, tmp_path: Path) -> None:
    (repo / "a.py").write_text("x = 2\n")
    (repo / "new.txt").write_text("n")
    prompt = build(repo, tmp_path)
    assert f"Working directory: {repo}" in prompt
    assert "Date: 2025-03-14 (Friday)" in prompt
    assert "Platform: " in prompt
    assert "branch trunk" in prompt
    assert "2 uncommitted changes" in prompt
    assert " M a.py" in prompt and "?? new.txt" in prompt


def test_clean_repo_says_so(repo: Path, tmp_path: Path) -> None:
    assert "no uncommitted changes" in build(repo, tmp_path)


def test_long_status_is_cut(repo: Path) -> None:
    for i in range(30):
        (repo / f"f{i}.txt").write_text("x")
    summary = git_summary(repo)
    assert "30 uncommitted changes" in summary and "... and 10 more" in summary


def test_not_a_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    cwd = tmp_path / "plain"
    cwd.mkdir()
    assert "not in a git repository" in build(cwd, tmp_path)


def test_no_git_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert git_summary(tmp_path) == "Git: git is not installed."


def test_slow_git_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 5\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(system_prompt, "GIT_TIMEOUT_S", 0.2)
    assert "took over 0.2 s" in git_summary(tmp_path)


def test_the_summary_runs_no_fsmonitor_the_repository_names(repo: Path, tmp_path: Path) -> None:
    # without a sandbox (`--sandbox off`, or the TUI's Repo tab before the session opened)
    marker = tmp_path / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {marker}; false")
    (repo / "b.py").write_text("y = 2\n")
    summary = git_summary(repo)
    assert not marker.exists()
    assert "1 uncommitted change" in summary and "?? b.py" in summary


def test_attribution_on_and_off(repo: Path, tmp_path: Path) -> None:
    assert DEFAULT_ATTRIBUTION in build(repo, tmp_path)
    off = build(repo, tmp_path, attribution=None)
    assert "Co-Authored-By" not in off
    assert "Commit only when the user asks" in off


def test_guidance_only_mentions_offered_tools(repo: Path, tmp_path: Path) -> None:
    prompt = build(repo, tmp_path, tools=offered(["read_file", "search_files"]))
    assert "write_todos" not in prompt and "edit_file" not in prompt and "run_command" not in prompt
    assert "# Git" not in prompt
    full = build(repo, tmp_path)
    assert "old_text exactly" in full and "write_todos" in full and "answer in plain text" in full


def test_instruction_files_are_included_nearest_last(repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "AGENTS.md").write_text("GLOBAL RULE")
    (repo / "CLAUDE.md").write_text("ROOT RULE")
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("PKG RULE")
    prompt = build(sub, tmp_path)
    assert prompt.index("GLOBAL RULE") < prompt.index("ROOT RULE") < prompt.index("PKG RULE")
    assert f"at {repo.resolve()}" in prompt
