"""Issue 35 item 1, the guard alone: what a step plants in any repository under the workspace that would
make the user's own git run a program is removed (a backup kept, the restore told), what the user had
at the start is left alone. Judged by running the user's git afterwards, as a plain subprocess."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from sigit.sandbox import RepositoryGuard, runs_code


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="u",
        GIT_AUTHOR_EMAIL="u@x",
        GIT_COMMITTER_NAME="u",
        GIT_COMMITTER_EMAIL="u@x",
    )
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


def arm(marker: Path) -> str:
    return f"touch {marker}; true"


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "RAN"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    git(path, "init", "-q")
    return path


def test_a_planted_fsmonitor_in_a_new_nested_repository_is_removed_and_backed_up(ws: Path, marker: Path) -> None:
    guard = RepositoryGuard([ws])
    git(ws, "init", "-q", "sub")
    git(ws / "sub", "config", "core.fsmonitor", arm(marker))
    notes = guard.check()
    assert len(notes) == 1 and "core.fsmonitor" in notes[0] and "sub/.git/config" in notes[0], notes
    git(ws / "sub", "status")
    assert not marker.exists()
    backups = list((ws / "sub" / ".git" / "sigit-quarantine").glob("*/config"))
    assert len(backups) == 1 and "fsmonitor" in backups[0].read_text()
    assert f"cp {backups[0]}" in notes[0]
    assert guard.check() == []  # done once


def test_what_the_user_had_at_the_start_is_left_alone(ws: Path, marker: Path) -> None:
    git(ws, "config", "core.pager", "less -R")
    git(ws, "config", "alias.lg", "!git log --oneline")
    (ws / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (ws / ".git" / "hooks" / "pre-commit").chmod(0o755)
    guard = RepositoryGuard([ws])
    git(ws, "config", "core.editor", arm(marker))  # new: removed
    git(ws, "config", "--replace-all", "core.pager", arm(marker))  # changed: back to the user's value
    assert any("core.editor" in n and "core.pager" in n for n in guard.check())
    assert git(ws, "config", "--get-all", "core.pager").stdout == "less -R\n"
    assert git(ws, "config", "--get", "core.editor").returncode == 1
    assert git(ws, "config", "--get", "alias.lg").stdout == "!git log --oneline\n"
    assert (ws / ".git" / "hooks" / "pre-commit").exists()


def test_a_new_hook_is_moved_aside(ws: Path, marker: Path) -> None:
    guard = RepositoryGuard([ws])
    hook = ws / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    (ws / ".git" / "hooks" / "notes.txt").write_text("not executable: git never runs it\n")
    notes = guard.check()
    assert len(notes) == 1 and "post-checkout" in notes[0] and "notes.txt" not in notes[0]
    assert not hook.exists()
    assert len(list((ws / ".git" / "sigit-quarantine").glob("*/hooks/post-checkout"))) == 1
    git(ws, "commit", "-q", "--allow-empty", "-m", "x")
    git(ws, "checkout", "-q", "-b", "other")
    assert not marker.exists()


def test_a_bare_repository_and_a_worktree_config_are_found(ws: Path, marker: Path) -> None:
    guard = RepositoryGuard([ws])
    git(ws, "init", "-q", "--bare", "store.git")
    git(ws / "store.git", "config", "core.fsmonitor", arm(marker))
    git(ws, "commit", "-q", "--allow-empty", "-m", "x")
    git(ws, "worktree", "add", "-q", "wt")
    git(ws, "config", "extensions.worktreeConfig", "true")
    git(ws / "wt", "config", "--worktree", "diff.external", arm(marker))
    notes = " ".join(guard.check())
    assert "store.git/config" in notes and "config.worktree" in notes, notes
    for place in (ws / "store.git", ws / "wt"):
        git(place, "status")
        git(place, "diff", "HEAD")
    assert not marker.exists()
    assert git(ws, "config", "--get", "extensions.worktreeConfig").stdout == "true\n"  # runs nothing: kept


def test_a_submodule_git_dir_is_found(ws: Path, marker: Path) -> None:
    lib = ws / "lib"
    git(ws, "init", "-q", "lib")
    git(lib, "commit", "-q", "--allow-empty", "-m", "x")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "./lib", "mod")
    guard = RepositoryGuard([ws])
    git(ws / "mod", "config", "core.fsmonitor", arm(marker))
    notes = " ".join(guard.check())
    assert ".git/modules/mod/config" in notes, notes
    assert git(ws / "mod", "config", "--get", "core.worktree").returncode == 0  # the submodule still works
    git(ws, "status")
    git(ws / "mod", "status")
    assert not marker.exists()


def test_an_include_to_a_file_in_the_workspace_is_followed(ws: Path, marker: Path) -> None:
    (ws / "shared.gitconfig").write_text("[core]\n\tabbrev = 9\n")
    git(ws, "config", "include.path", "../shared.gitconfig")  # the user's, at the start
    guard = RepositoryGuard([ws])
    (ws / "shared.gitconfig").write_text(f"[core]\n\tabbrev = 9\n[alias]\n\tst = !{arm(marker)}\n")
    notes = " ".join(guard.check())
    assert "alias.st" in notes and "shared.gitconfig" in notes, notes
    git(ws, "st")
    assert not marker.exists()
    assert git(ws, "config", "--get", "include.path").stdout == "../shared.gitconfig\n"


def test_a_filter_driver_with_gitattributes_is_removed(ws: Path, marker: Path) -> None:
    guard = RepositoryGuard([ws])
    git(ws, "init", "-q", "sub")
    (ws / "sub" / ".gitattributes").write_text("* filter=x\n")
    (ws / "sub" / "a.txt").write_text("a\n")
    git(ws / "sub", "config", "filter.x.clean", arm(marker))
    git(ws / "sub", "config", "filter.x.required", "false")
    assert any("filter.x.clean" in n for n in guard.check())
    git(ws / "sub", "add", "-A")
    assert not marker.exists()


def test_a_symlinked_or_unparseable_config_is_moved_aside(ws: Path, tmp_path: Path, marker: Path) -> None:
    elsewhere = tmp_path / "elsewhere.cfg"
    elsewhere.write_text(f"[core]\n\tfsmonitor = {arm(marker)}\n")
    guard = RepositoryGuard([ws])
    git(ws, "init", "-q", "a")
    git(ws, "init", "-q", "b")
    (ws / "a" / ".git" / "config").unlink()
    (ws / "a" / ".git" / "config").symlink_to(elsewhere)
    (ws / "b" / ".git" / "config").write_text("[core\n broken")
    notes = " ".join(guard.check())
    assert "a/.git/config (a link to" in notes and "b/.git/config (a file git cannot parse" in notes, notes
    assert elsewhere.read_text().count("fsmonitor") == 1  # what it pointed at is not ours to change
    git(ws / "a", "status")
    assert not marker.exists()


def test_a_git_file_pointing_outside_is_reported_not_changed(ws: Path, tmp_path: Path, marker: Path) -> None:
    outside = tmp_path / "outside"
    git(tmp_path, "init", "-q", "--bare", str(outside))
    guard = RepositoryGuard([ws])
    git(outside, "config", "core.fsmonitor", arm(marker))
    (ws / "sub").mkdir()
    (ws / "sub" / ".git").write_text(f"gitdir: {outside}\n")
    notes = guard.check()
    assert len(notes) == 1 and f"points git at {outside}, outside the workspace (it sets core.fsmonitor" in notes[0]
    assert git(outside, "config", "--get", "core.fsmonitor").returncode == 0
    assert guard.check() == []  # said once


@pytest.mark.parametrize(
    ("key", "value", "runs"),
    [
        ("core.fsmonitor", "false", False),
        ("core.fsmonitor", "./watch", True),
        ("alias.st", "status -s", False),
        ("alias.st", " !rm -rf x", True),
        # aliases without `!` that still run programs (issue 49, family 8)
        ("alias.up", "fetch --upload-pack=x .", True),
        ("alias.up", "fetch --upload-p=x .", True),  # git takes an unambiguous prefix
        ("alias.up", "push --receive-pack x", True),
        ("alias.gr", "grep -Ox hi", True),
        ("alias.gr", "grep -nOx hi", True),
        ("alias.mon", "-c core.fsmonitor=x status", True),
        ("alias.mon", "--exec-path=/tmp log", True),
        ("alias.rb", "rebase -x make", True),
        ("alias.rb", "rebase --exec=make", True),
        ("alias.cl", "clone --config core.sshCommand=x u", True),
        ("alias.cl", "clone -u x u", True),
        ("alias.b", "bisect run make", True),
        ("alias.status", "log", True),  # shadows a git command
        ("alias.x", "y", True),  # another alias, or a `git-y` program on PATH
        ("alias.lg", "log --oneline --graph", False),
        ("alias.co", "checkout", False),
        ("alias.d", "diff --no-ext-diff", False),
        ("alias.p", "--no-pager log", False),
        ("pager.log", "false", False),
        ("pager.log", "touch x", True),
        ("protocol.ext.allow", "always", True),
        ("protocol.ext.allow", "never", False),
        ("submodule.m.update", "!sh x", True),
        ("submodule.m.update", "rebase", False),
        ("filter.lfs.required", "true", False),
        ("Filter.Lfs.Smudge", "x", True),
        ("core.worktree", "../..", False),
        ("includeIf.gitdir:~/.path", "x", True),
        ("credential.https://h.helper", "x", True),
    ],
)
def test_which_keys_run_code(key: str, value: str, runs: bool) -> None:
    assert runs_code(key, value) is runs


def test_an_alias_that_overrides_the_users_own_runs_code() -> None:
    """The repository's config wins over `~/.gitconfig`: `git st` would run the repository's `st`."""
    assert runs_code("alias.st", "status -s") is False
    assert runs_code("alias.st", "status -s", user_aliases={"st"}) is True


def test_a_git_file_pointing_into_a_place_commands_may_write_is_neutralised(
    ws: Path, tmp_path: Path, marker: Path
) -> None:
    """A build cache is writable inside the sandbox: a repository planted there and named by a `.git`
    file in the workspace is checked as if it were inside."""
    cache = tmp_path / "cache"
    cache.mkdir()
    guard = RepositoryGuard([ws], reachable=[cache])
    git(tmp_path, "init", "-q", "--bare", str(cache / "x.git"))
    git(cache / "x.git", "config", "core.fsmonitor", arm(marker))
    (ws / "sub").mkdir()
    (ws / "sub" / ".git").write_text(f"gitdir: {cache / 'x.git'}\n")
    notes = " ".join(guard.check())
    assert "core.fsmonitor" in notes and "x.git/config" in notes, notes
    git(ws / "sub", "status")
    assert not marker.exists()
