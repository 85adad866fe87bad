"""Issue 49 family 8, the way an attacker would: `sigit -p` (a real subprocess, a scripted model) runs
commands that give a new repository aliases without `!` that still make git run a program: options
that run one (`fetch --upload-pack`, abbreviated too, `grep -O<cmd>`, `-c core.fsmonitor=...`), and an
alias that overrides the user's own harmless one. Afterwards the user's own git, a plain subprocess
with the user's global config, runs each alias: nothing runs, and the model and the user were told
which aliases were quarantined and why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from qwen_runtime.testing.server import ScriptedServer

SIGIT = str(Path(sys.executable).parent / "sigit")


def env_for(home: Path, config: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), GIT_AUTHOR_NAME="u", GIT_AUTHOR_EMAIL="u@x", GIT_COMMITTER_NAME="u",
               GIT_COMMITTER_EMAIL="u@x", GIT_CONFIG_NOSYSTEM="1", XDG_CONFIG_HOME=str(home / ".config"))
    if config is not None:
        env.update(SIGIT_CONFIG_DIR=str(config), SIGIT_STATE_DIR=str(config.parent / "state"), HF_HUB_OFFLINE="1")
        env.pop("SIGIT_PERMISSION_DEFAULT", None)
    return env


def user_git(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The user's git afterwards: their home (and its ~/.gitconfig), no sandbox, nothing of siGit's."""
    return subprocess.run(["git", *args], cwd=cwd, env=env_for(home), capture_output=True, text=True,
                          check=False, stdin=subprocess.DEVNULL, timeout=30)


def test_aliases_without_a_bang_that_run_programs_are_quarantined(tmp_path: Path) -> None:
    home, work, marker = tmp_path / "home", tmp_path / "work", tmp_path / "RAN"
    home.mkdir()
    work.mkdir()
    user_git(home, home, "config", "--global", "alias.st", "status")  # the user's own, harmless alias
    arm = f"touch {marker}; false"
    plant = (
        "git init -q al && echo hi > al/a.txt && git -C al add a.txt"
        f" && git -C al config alias.up 'fetch --upload-pack=\"{arm}\" .'"
        f" && git -C al config alias.upl 'ls-remote --upload-p=\"{arm}\" .'"
        f" && git -C al config alias.gr 'grep -O\"{arm}\" hi'"
        f" && git -C al config alias.mon '-c core.fsmonitor=\"{arm}\" status'"
        f" && git -C al config alias.st 'fetch --upload-pack=\"{arm}\" .'"
        " && git -C al config alias.lg 'log --oneline'"  # harmless: kept
    )
    turns: list[Any] = [{"tool_calls": [{"name": "run_command", "arguments": {"command": plant}}]}, {"text": "done"}]
    with ScriptedServer(turns) as server:
        proc = subprocess.run(
            [SIGIT, "-p", "set up aliases", "--model", f"openai:{server.base_url}#scripted-qwen",
             "--permission-mode", "bypass"],
            cwd=work, env=env_for(home, tmp_path / "config"), capture_output=True, text=True, timeout=120,
        )
        told = "\n".join(str(m["content"]) for m in server.requests[-1]["messages"] if m["role"] == "tool")
    assert proc.returncode == 0, proc.stderr
    assert "Exit code 0" in told, told
    assert not marker.exists()

    repo = work / "al"
    for alias in ("up", "upl", "gr", "mon", "st"):
        user_git(home, repo, alias)
        assert not marker.exists(), alias
    for alias in ("up", "upl", "gr", "mon", "st"):
        assert f"alias.{alias}" in told and f"alias.{alias}" in proc.stderr, (alias, told)
    assert "overrides your own alias `st`" in told and "--upload-pack" in told
    assert "sigit-quarantine" in told
    assert user_git(home, repo, "config", "--get", "alias.lg").stdout == "log --oneline\n"
    backup = next((repo / ".git" / "sigit-quarantine").glob("*/config")).read_text()
    assert "upload-pack" in backup and "fsmonitor" in backup
