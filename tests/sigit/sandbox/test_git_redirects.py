"""Files a command can write that would redirect git, or the sandbox itself, elsewhere.

`.git` files, `commondir`, `config.worktree` and `core.hooksPath` each tell git (or the sandbox)
where a repository's hooks and config live. The sandbox reads them once, when it opens; a command
that rewrites or creates them must not widen what the next command may write, nor what git runs
later outside the sandbox. Real processes under a real sandbox throughout.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

from sigit.sandbox import SandboxPolicy, SandboxSupport, open_sandbox
from sigit.sandbox.gitdirs import protect

from .conftest import Run
from .test_gitdirs import IDENTITY, git, make_worktree


def test_a_gitdir_line_written_by_a_command_does_not_make_its_target_writable(
    workspace: Path, outside: Path, support: SandboxSupport, run: Run
) -> None:
    with open_sandbox(SandboxPolicy(workspace=workspace, cache_dirs=()), support) as sandbox:
        planted = run(sandbox, f"echo 'gitdir: {outside}' > .git", workspace)
        assert planted.returncode == 0, planted.stdout
        escaped = run(sandbox, f"echo pwned > {outside}/.bashrc", workspace)
        assert escaped.returncode != 0 and not (outside / ".bashrc").exists()
        (workspace / ".git").write_text("gitdir: /\n")
        assert run(sandbox, f"echo pwned > {outside}/x", workspace).returncode != 0
    assert not (outside / "x").exists()


def test_a_gitdir_file_pointing_at_root_or_home_is_not_followed(workspace: Path) -> None:
    for target in ("/", os.path.expanduser("~"), str(workspace.parent)):
        (workspace / ".git").write_text(f"gitdir: {target}\n")
        assert protect([workspace], (".git/hooks", ".git/config")).writable == [], target


def test_a_linked_worktrees_commondir_stays_read_only(tmp_path: Path, support: SandboxSupport, run: Run) -> None:
    main, linked = make_worktree(tmp_path)
    outside = tmp_path / "victim"
    outside.mkdir()
    with open_sandbox(SandboxPolicy(workspace=linked, cache_dirs=()), support) as sandbox:
        redirected = run(sandbox, 'echo / > "$(git rev-parse --git-dir)/commondir"', linked)
        assert redirected.returncode != 0
        assert (main / ".git/worktrees/linked/commondir").read_text().strip() == "../.."
        assert run(sandbox, f"echo x > {outside}/x", linked).returncode != 0
        assert sandbox.after_command() is None  # git's own commondir is left alone
        commit = run(sandbox, "echo b >> a.txt && git " + " ".join(IDENTITY) + " commit -q -am second", linked)
        assert commit.returncode == 0, commit.stdout
    assert not (outside / "x").exists()


def test_a_commondir_a_command_creates_is_removed_after_it(
    workspace: Path, tmp_path: Path, support: SandboxSupport, run: Run
) -> None:
    git(workspace, "init", "-q")
    pwned = tmp_path / "PWNED"
    with open_sandbox(SandboxPolicy(workspace=workspace, cache_dirs=()), support) as sandbox:
        made = run(sandbox, "cp -r .git .evil && rm -rf .evil/hooks && mkdir .evil/hooks && "
                            f"printf '#!/bin/sh\\ntouch {pwned}\\n' > .evil/hooks/pre-commit && "
                            "chmod +x .evil/hooks/pre-commit && echo ../.evil > .git/commondir && "
                            "echo '[core]' > .git/config.worktree", workspace)
        assert made.returncode == 0, made.stdout
        assert sandbox.after_command() == (
            "the sandbox removed .git/commondir, .git/config.worktree that the command created: it would "
            "redirect git's hooks and config")
        assert sandbox.after_command() is None
    assert not (workspace / ".git/commondir").exists() and not (workspace / ".git/config.worktree").exists()
    subprocess.run(["git", *IDENTITY, "commit", "-q", "--allow-empty", "-m", "user"], cwd=workspace, check=True)
    assert not pwned.exists()


def test_the_core_hooks_path_dir_stays_read_only(workspace: Path, support: SandboxSupport, run: Run) -> None:
    git(workspace, "init", "-q")
    git(workspace, "config", "core.hooksPath", ".husky")
    with open_sandbox(SandboxPolicy(workspace=workspace, cache_dirs=()), support) as sandbox:
        planted = run(sandbox, "printf '#!/bin/sh\\necho pwned\\n' > .husky/pre-commit", workspace)
        assert planted.returncode != 0
        assert "Read-only file system" in planted.stdout
    assert (workspace / ".husky").is_dir() and not (workspace / ".husky/pre-commit").exists()


def test_a_fifo_or_a_huge_git_file_cannot_hang_the_sandbox(tmp_path: Path, support: SandboxSupport) -> None:
    fifo_repo = tmp_path / "fifo"
    (fifo_repo / "other/worktrees/n").mkdir(parents=True)
    (fifo_repo / "other/HEAD").write_text("ref: refs/heads/main\n")
    (fifo_repo / "other/worktrees/n/HEAD").write_text("ref: refs/heads/main\n")
    os.mkfifo(fifo_repo / "other/worktrees/n/gitdir")
    os.mkfifo(fifo_repo / "other/worktrees/n/commondir")
    (fifo_repo / ".git").write_text("gitdir: other/worktrees/n\n")
    huge_repo = tmp_path / "huge"
    huge_repo.mkdir()
    (huge_repo / ".git").write_bytes(b"gitdir: " + b"x" * (1 << 20))
    found: dict[Path, tuple[str, ...]] = {}

    def open_both() -> None:
        for repo in (fifo_repo, huge_repo):
            with open_sandbox(SandboxPolicy(workspace=repo, cache_dirs=()), support) as sandbox:
                sandbox.wrap(["true"], {})
                found[repo] = sandbox.warnings

    opener = threading.Thread(target=open_both, daemon=True)
    opener.start()
    opener.join(30)
    assert not opener.is_alive(), "opening the sandbox blocked on a FIFO"
    assert any("is not a regular file" in w for w in found[fifo_repo]), found
    assert any("is larger than 4096 bytes" in w for w in found[huge_repo]), found


def test_a_git_file_is_followed_only_to_a_git_dir_that_points_back(tmp_path: Path) -> None:
    main, linked = make_worktree(tmp_path)
    own = (main / ".git/worktrees/linked").resolve()
    assert protect([linked], (".git/hooks",)).writable == [own, (main / ".git").resolve()]
    impostor = tmp_path / "impostor"
    impostor.mkdir()
    (impostor / ".git").write_text(f"gitdir: {own}\n")  # the real worktree's gitdir names linked/.git
    assert protect([impostor], (".git/hooks",)).writable == []


def test_a_submodule_checkout_gets_its_git_dir(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    found = protect([repo / "lib"], (".git/hooks", ".git/config"))
    module = (repo / ".git/modules/lib").resolve()
    assert found.writable == [module] and module / "config" in found.read_only
