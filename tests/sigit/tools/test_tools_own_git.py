"""siGit's own git calls after a command (the co-author amend) run nothing the command planted.

A sandboxed command may create a repository (or configure one it just made) with hooks or config
that git runs from later git commands; siGit's amend must not run them outside the sandbox, and
must still add the trailer. Real processes: the command, git, the hooks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sigit.sandbox import SandboxPolicy, open_sandbox
from sigit.tools import DEFAULT_ATTRIBUTION, ToolContext, ToolRegistry

GIT = "git -c user.name=t -c user.email=t@example.com -c commit.gpgSign=false"


def message(repo: Path) -> str:
    return subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def plant_hook(hooks: str, marker: Path) -> str:
    """Shell that writes hooks siGit's amend would run (post-rewrite, post-commit...) touching `marker`."""
    return " && ".join(
        f"printf '#!/bin/sh\\ntouch {marker} 2>/dev/null; exit 0\\n' > {hooks}/{name} && chmod +x {hooks}/{name}"
        for name in ("post-rewrite", "post-commit", "prepare-commit-msg", "reference-transaction")
    )


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """Beside the workspace: a hook running outside the sandbox could create it."""
    return tmp_path / "planted-hook-ran"


@pytest.mark.parametrize("where", [".", "sub"], ids=["new-repo-in-workspace", "nested-repo"])
async def test_a_hook_planted_by_the_committing_command_does_not_run_on_the_amend(
    registry: ToolRegistry, ctx: ToolContext, marker: Path, where: str
) -> None:
    assert ctx.sandbox is not None and ctx.sandbox.active  # the default a user gets
    if where == "sub":  # the workspace is a repository already; the command commits in a new one inside
        subprocess.run(f"git init -q && {GIT} commit -q --allow-empty -m init", shell=True, cwd=ctx.cwd, check=True)
        (ctx.cwd / "sub").mkdir()
    command = (f"git init -q && {plant_hook('.git/hooks', marker)} && echo x > f && git add f "
               f"&& {GIT} commit -q -m first && echo committed")
    done = await registry.invoke("run_command", {"command": command, "cwd": where}, ctx)
    assert "committed" in done.text and "Amended commit" in done.text, done.text
    assert not marker.exists()
    repo = ctx.cwd / where
    assert message(repo).startswith("first") and DEFAULT_ATTRIBUTION in message(repo)


async def test_a_hook_in_the_repositorys_hooks_path_does_not_run_on_the_amend(
    registry: ToolRegistry, ctx: ToolContext, marker: Path
) -> None:
    setup = f"git init -q && git config core.hooksPath .husky && mkdir .husky && {GIT} commit -q --allow-empty -m a"
    subprocess.run(setup, shell=True, cwd=ctx.cwd, check=True)
    command = f"{plant_hook('.husky', marker)} && echo b > b && git add b && {GIT} commit -q -m b"
    done = await registry.invoke("run_command", {"command": command}, ctx)
    assert "Amended commit" in done.text, done.text
    assert not marker.exists()
    assert DEFAULT_ATTRIBUTION in message(ctx.cwd)


async def test_with_the_sandbox_off_the_amend_still_runs_no_hook_and_adds_the_trailer(
    registry: ToolRegistry, ctx: ToolContext, marker: Path
) -> None:
    ctx.sandbox = open_sandbox(SandboxPolicy.from_settings(None, workspace=ctx.cwd, mode="off"))
    assert not ctx.sandbox.active
    hooks = plant_hook(".git/hooks", marker)
    command = f"git init -q && echo x > f && git add f && {GIT} commit -q -m first && {hooks}"
    done = await registry.invoke("run_command", {"command": command}, ctx)
    assert "Amended commit" in done.text, done.text
    assert not marker.exists()
    assert DEFAULT_ATTRIBUTION in message(ctx.cwd)


async def test_a_clean_filter_the_command_configured_runs_in_the_sandbox_on_the_amend(
    registry: ToolRegistry, ctx: ToolContext, marker: Path
) -> None:
    # the amend refreshes the index, which runs the clean filter on a file whose timestamp changed:
    # no option turns filters off, so only the sandbox keeps it in
    command = (f"git init -q && git config filter.x.clean 'touch {marker}; cat' && echo '* filter=x' > .gitattributes "
               f"&& echo x > f && git add -A && {GIT} commit -q -m first && touch -d 2000-01-01 f && echo committed")
    done = await registry.invoke("run_command", {"command": command}, ctx)
    assert "committed" in done.text and "Amended commit" in done.text, done.text
    assert not marker.exists()
    assert DEFAULT_ATTRIBUTION in message(ctx.cwd)
