"""Co-author trailer: a commit made by run_command gets it, once, and only when it is new and local."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sigit.sandbox import SandboxPolicy, open_sandbox
from sigit.tools import DEFAULT_ATTRIBUTION, ToolContext, ToolRegistry


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(ctx: ToolContext) -> Path:
    git(ctx.cwd, "init", "-q", "-b", "main")
    git(ctx.cwd, "config", "user.email", "dev@example.com")
    git(ctx.cwd, "config", "user.name", "Dev")
    git(ctx.cwd, "config", "commit.gpgsign", "false")
    (ctx.cwd / "a.txt").write_text("a\n")
    git(ctx.cwd, "add", ".")
    git(ctx.cwd, "commit", "-q", "-m", "first")
    return ctx.cwd


async def test_a_new_commit_gets_the_trailer(registry: ToolRegistry, ctx: ToolContext, repo: Path) -> None:
    (repo / "b.txt").write_text("b\n")
    out = await registry.invoke("run_command", {"command": "git add b.txt && git commit -q -m 'add b'"}, ctx)
    assert "Amended commit" in out.text and "Co-Authored-By: siGit Code" in out.text
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("add b\n")
    assert DEFAULT_ATTRIBUTION in message
    assert git(repo, "log", "-1", "--format=%s", "HEAD~1").strip() == "first"


async def test_a_commit_with_the_trailer_is_left_alone(
    registry: ToolRegistry, ctx: ToolContext, repo: Path
) -> None:
    (repo / "b.txt").write_text("b\n")
    cmd = f"git add b.txt && git commit -q -m 'add b' -m '{DEFAULT_ATTRIBUTION}'"
    out = await registry.invoke("run_command", {"command": cmd}, ctx)
    assert "Amended" not in out.text
    assert git(repo, "log", "-1", "--format=%B").count("Co-Authored-By") == 1


async def test_attribution_can_be_disabled(registry: ToolRegistry, ctx: ToolContext, repo: Path) -> None:
    ctx.attribution = None
    (repo / "b.txt").write_text("b\n")
    out = await registry.invoke("run_command", {"command": "git add b.txt && git commit -q -m 'add b'"}, ctx)
    assert "Amended" not in out.text
    assert "Co-Authored-By" not in git(repo, "log", "-1", "--format=%B")


async def test_moving_head_to_an_old_commit_amends_nothing(
    registry: ToolRegistry, ctx: ToolContext, repo: Path
) -> None:
    ctx.attribution = None
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "second", "--date", "2001-01-01T00:00:00")
    subprocess.run(
        ["git", "commit", "--amend", "-q", "--no-edit"],
        cwd=repo,
        check=True,
        env={"GIT_COMMITTER_DATE": "2001-01-01T00:00:00", "PATH": "/usr/bin:/bin", "HOME": str(repo)},
    )
    git(repo, "checkout", "-q", "HEAD~1")
    ctx.attribution = DEFAULT_ATTRIBUTION
    out = await registry.invoke("run_command", {"command": "git checkout -q main"}, ctx)
    assert "Amended" not in out.text
    assert "Co-Authored-By" not in git(repo, "log", "-1", "--format=%B")


async def test_a_commit_already_on_a_remote_is_not_amended(
    registry: ToolRegistry, ctx: ToolContext, repo: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    # a remote on local disk outside the workspace: the sandbox lets a push write it only when the
    # user makes it writable (`[sandbox] writable_dirs`, or --add-dir), as here
    assert ctx.sandbox is not None
    ctx.sandbox.close()
    ctx.sandbox = open_sandbox(SandboxPolicy.from_settings({"writable_dirs": [str(remote)]}, workspace=ctx.cwd))
    (repo / "b.txt").write_text("b\n")
    cmd = "git add b.txt && git commit -q -m 'add b' && git push -q origin main"
    out = await registry.invoke("run_command", {"command": cmd}, ctx)
    assert "Amended" not in out.text, out.text
    assert "Co-Authored-By" not in git(repo, "log", "-1", "--format=%B")
