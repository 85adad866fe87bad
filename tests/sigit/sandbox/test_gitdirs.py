"""Repositories whose git directory lives elsewhere: linked worktrees and submodules."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from sigit.sandbox import Sandbox, SandboxPolicy, SandboxSupport, open_sandbox
from sigit.sandbox.gitdirs import protect

Run = Callable[..., subprocess.CompletedProcess[str]]
IDENTITY = ["-c", "user.name=Sandbox", "-c", "user.email=sandbox@example.invalid", "-c", "commit.gpgsign=false"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *IDENTITY, *args], cwd=cwd, check=True, capture_output=True)


def make_worktree(tmp_path: Path) -> tuple[Path, Path]:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    (main / "a.txt").write_text("a\n")
    git(main, "add", "a.txt")
    git(main, "commit", "-q", "-m", "first")
    linked = tmp_path / "linked"
    git(main, "worktree", "add", "-q", "-b", "side", str(linked))
    return main, linked


def test_a_linked_worktree_protects_the_common_git_dir(tmp_path: Path) -> None:
    main, linked = make_worktree(tmp_path)
    found = protect([linked], (".git/hooks", ".git/config"))
    common = (main / ".git").resolve()
    assert found.pins == [] and linked / ".git" in found.read_only  # a rewritten gitdir: line would redirect git
    assert common in found.writable and common / "worktrees/linked" in found.writable
    assert common / "hooks" in found.read_only and common / "config" in found.read_only


def test_commits_in_a_linked_worktree_work_and_its_hooks_stay_read_only(
    tmp_path: Path, support: SandboxSupport, run: Run
) -> None:
    main, linked = make_worktree(tmp_path)
    with open_sandbox(SandboxPolicy(workspace=linked, cache_dirs=()), support) as sandbox:
        commit = run(sandbox, "echo b >> a.txt && git " + " ".join(IDENTITY) + " commit -q -am second", linked)
        assert commit.returncode == 0, commit.stdout
        hook = main / ".git/hooks/post-checkout"
        planted = run(sandbox, f"echo 'echo pwned' > {hook}", linked)
        assert planted.returncode != 0 and not hook.exists()
        swapped = run(sandbox, "rm .git && mkdir .git", linked)
        assert swapped.returncode != 0 and (linked / ".git").is_file()


def test_submodule_git_dirs_are_protected(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    module = repo / ".git/modules/lib"
    (module / "hooks").mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    (module / "config").write_text("[core]\n")
    (repo / ".git/config").write_text("[core]\n")
    found = protect([repo], (".git/hooks", ".git/config"))
    assert {module / "hooks", module / "config", repo / ".git/config"} <= set(found.read_only)


def test_a_missing_hooks_dir_is_created_so_it_can_be_protected(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git/HEAD").write_text("ref: refs/heads/main\n")
    found = protect([repo], (".git/hooks",))
    assert (repo / ".git/hooks").is_dir() and repo / ".git/hooks" in found.read_only


def test_without_git_nothing_is_pinned(tmp_path: Path, support: SandboxSupport) -> None:
    sandbox: Sandbox = open_sandbox(SandboxPolicy(workspace=tmp_path, cache_dirs=()), support)
    try:
        assert "--pin" not in sandbox.wrap(["true"], {}).argv
    finally:
        sandbox.close()


def test_a_workspace_inside_a_repository_does_not_get_its_git_dir(
    tmp_path: Path, support: SandboxSupport, run: Run
) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "top.txt").write_text("top\n")
    with open_sandbox(SandboxPolicy(workspace=repo / "sub", cache_dirs=()), support) as sandbox:
        commit = run(sandbox, "echo s > s.txt && git add s.txt", repo / "sub")
        assert commit.returncode != 0
        assert (sandbox.explain(commit.returncode, commit.stdout) or "").startswith(
            f"blocked by the sandbox: write to {repo}/.git/index.lock outside the workspace"), commit.stdout
        assert (repo / "sub/s.txt").exists()
        assert run(sandbox, "echo x >> ../top.txt", repo / "sub").returncode != 0
    assert (repo / "top.txt").read_text() == "top\n"
