"""Issue 35 item 1 the strong way: `sigit -p` (`sigit.cli.main` in this process, a scripted model) runs commands that
plant config or hooks making git run a program, in new nested repositories, a linked worktree, a
submodule, a bare repository, and (sandbox off) the user's own repository; afterwards the user's own
git, a plain subprocess outside any sandbox, runs in each and nothing it would have run runs. What
the user's repository held before the session is kept; the model is told what was removed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main

IDENTITY = "-c user.name=m -c user.email=m@x"


def user_git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The user's git afterwards: their environment, no sandbox, nothing of siGit's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="u", GIT_AUTHOR_EMAIL="u@x", GIT_COMMITTER_NAME="u", GIT_COMMITTER_EMAIL="u@x")
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )


def plants(marker: Path) -> list[str]:
    """One command per family; each leaves a repository whose git would `touch marker`."""
    arm = f"touch {marker}; true"
    hook = f"printf '#!/bin/sh\\ntouch {marker}\\n'"
    return [
        f"git init -q sub && git -C sub config core.fsmonitor '{arm}' && git add sub",
        f"git init -q hk && mkdir hk/h && {hook} > hk/h/pre-commit && {hook} > hk/.git/hooks/pre-commit && "
        "chmod +x hk/h/pre-commit hk/.git/hooks/pre-commit && git -C hk config core.hooksPath h",
        f"git init -q al && git -C al config alias.st '!{arm}'",
        f"git init -q fl && echo '* filter=x' > fl/.gitattributes && echo a > fl/a.txt && "
        f"git -C fl config filter.x.clean '{arm}'",
        f"git init -q base && git -C base {IDENTITY} commit -q --allow-empty -m x && "
        f"git -C base worktree add -q ../wt && git -C base config extensions.worktreeConfig true && "
        f"git -C wt config --worktree core.fsmonitor '{arm}'",
        f"git init -q outer && git init -q outer/lib && git -C outer/lib {IDENTITY} commit -q --allow-empty -m x && "
        f"git -C outer -c protocol.file.allow=always submodule add -q ./lib mod && "
        f"git -C outer/mod config core.fsmonitor '{arm}'",
        f"git init -q --bare store.git && git -C store.git config core.pager '{arm}'",
    ]


def run_sigit(work: Path, config: Path, turns: list[dict[str, Any]], *flags: str,
              path_first: Path | None = None) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`sigit -p` on the scripted server's `turns`: its result, and the messages of its last request."""
    env = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{os.environ['PATH']}"
    with ScriptedServer(turns) as server:
        proc = run_sigit_main(["-p", "do it", "--model", f"openai:{server.base_url}#scripted-qwen", *flags],
                              cwd=work, env=env, timeout=120)
        messages: list[dict[str, Any]] = server.requests[-1]["messages"]
    return proc, messages


def users_steps(work: Path) -> None:
    for place in ("sub", "hk", "al", "fl", "wt", "base", "outer", "outer/mod", "store.git", "."):
        user_git(work / place, "status")
    user_git(work / "hk", "commit", "-q", "--allow-empty", "-m", "mine")
    user_git(work / "al", "st")
    user_git(work / "fl", "add", "-A")
    user_git(work / "store.git", "-p", "log")


@pytest.mark.parametrize(("shell", "sandbox"), [("bash", "workspace-write"), ("dash", "off")])
def test_nothing_a_command_planted_runs_from_the_users_git(tmp_path: Path, shell: str, sandbox: str) -> None:
    work, marker = tmp_path / "work", tmp_path / "RAN"
    work.mkdir()
    user_git(work, "init", "-q")
    user_git(work, "config", "core.pager", "less -R")  # the user's own, before the session
    commands = plants(marker)
    if sandbox == "off":  # unconfined, a command can change the user's repository too
        commands.append(f"git config core.editor 'touch {marker}; true' && git config core.pager 'touch {marker}'")
    if shell == "dash":
        commands = [f'dash -c "{command}"' for command in commands]
    turns = [{"tool_calls": [{"name": "run_command", "arguments": {"command": c}} for c in commands]}, {"text": "done"}]
    proc, messages = run_sigit(work, tmp_path / "config", turns, "--permission-mode", "bypass", "--sandbox", sandbox)
    results = [m["content"] for m in messages if m["role"] == "tool"]
    assert proc.returncode == 0, proc.stderr
    assert len(results) == len(commands)
    assert all("Exit code 0" in r for r in results[1:]), results  # the first one's `git add sub` fails
    assert (work / "wt" / ".git").is_file() and (work / "outer" / ".git" / "modules" / "mod").is_dir()
    assert not marker.exists()  # nothing ran while sigit worked
    users_steps(work)
    assert not marker.exists()
    told = "\n".join(results)
    for key in ("core.fsmonitor", "core.hookspath", "alias.st", "filter.x.clean", "core.pager"):
        assert key in told, key
    assert "sigit-quarantine" in told and "restore it with `cp " in told
    assert "[warning] siGit removed core.fsmonitor from sub/.git/config" in proc.stderr
    assert user_git(work, "config", "--get-all", "core.pager").stdout == "less -R\n"
    backup = next((work / "sub" / ".git" / "sigit-quarantine").glob("*/config"))
    assert "fsmonitor" in backup.read_text()


def test_a_file_write_into_an_included_config_is_undone(tmp_path: Path) -> None:
    """accept-edits writes files outside `.git` without asking: one the repository's config includes is
    config all the same."""
    work, marker = tmp_path / "work", tmp_path / "RAN"
    work.mkdir()
    user_git(work, "init", "-q")
    (work / "team.gitconfig").write_text("[core]\n\tabbrev = 10\n")
    user_git(work, "config", "include.path", "../team.gitconfig")
    content = f"[core]\n\tabbrev = 10\n\tfsmonitor = touch {marker}; true\n"
    turns = [
        {
            "tool_calls": [
                {"name": "create_file", "arguments": {"path": "team.gitconfig", "content": content, "overwrite": True}}
            ]
        },
        {"text": "done"},
    ]
    proc, messages = run_sigit(work, tmp_path / "config", turns, "--permission-mode", "accept-edits")
    told = messages[-1]["content"]
    assert proc.returncode == 0, proc.stderr
    assert "siGit removed core.fsmonitor from team.gitconfig" in told, told
    user_git(work, "status")
    assert not marker.exists()
    assert (work / "team.gitconfig").read_text().count("abbrev = 10") == 1


def test_a_git_planted_on_path_inside_the_workspace_is_not_what_sigit_runs(tmp_path: Path) -> None:
    """An activated `.venv/bin` on PATH is inside the workspace: a sandboxed command can put a `git`
    there, and siGit's own checks of a new repository's config run git outside the sandbox."""
    work, marker = tmp_path / "work", tmp_path / "RAN"
    work.mkdir()
    user_git(work, "init", "-q")
    fake = f"printf '#!/bin/sh\\ntouch {marker}\\nexec /usr/bin/git \"$@\"\\n'"
    command = f"mkdir -p .venv/bin && {fake} > .venv/bin/git && chmod +x .venv/bin/git && git init -q sub"
    turns = [{"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}, {"text": "done"}]
    proc, messages = run_sigit(work, tmp_path / "config", turns, "--permission-mode", "bypass",
                               path_first=work / ".venv" / "bin")
    told = messages[-1]["content"]
    assert proc.returncode == 0, proc.stderr
    assert "Exit code 0" in told and (work / ".venv" / "bin" / "git").is_file() and (work / "sub" / ".git").is_dir()
    assert not marker.exists()  # inside the sandbox the fake could not write it; outside it never ran


def test_a_repository_planted_in_a_writable_cache_arms_nothing(tmp_path: Path) -> None:
    """Build caches stay writable in the sandbox: `sub/.git` naming a git dir planted there is checked too."""
    work, marker, cache, config = tmp_path / "work", tmp_path / "RAN", tmp_path / "cache", tmp_path / "config"
    work.mkdir()
    cache.mkdir()
    config.mkdir()
    (config / "settings.toml").write_text(f'[sandbox]\ncache_dirs = ["{cache}"]\n')
    command = (
        f"git init -q --bare {cache}/x.git && git -C {cache}/x.git config core.fsmonitor 'touch {marker}; true'"
        f" && mkdir sub && echo 'gitdir: {cache}/x.git' > sub/.git"
    )
    turns = [{"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}, {"text": "done"}]
    proc, messages = run_sigit(work, config, turns, "--permission-mode", "bypass")
    told = messages[-1]["content"]
    assert proc.returncode == 0, proc.stderr
    assert "Exit code 0" in told and "siGit removed core.fsmonitor" in told, told
    user_git(work / "sub", "status")
    assert not marker.exists()
