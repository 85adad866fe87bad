"""run_command through the registry with the session's sandbox: the wiring, with real processes.

The confinement itself is tested in tests/sigit/sandbox; here each test checks that what the model
runs through the tool (foreground, background, forked children) gets it, in the mode a user gets
by default, and that a refusal reaches the model as a plain sentence.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sigit.sandbox import Sandbox, SandboxPolicy, open_sandbox
from sigit.tools import DEFAULT_ATTRIBUTION, ToolContext, ToolRegistry

MakeSandbox = Callable[..., Sandbox]


@pytest.fixture
def sandboxed(ctx: ToolContext) -> Iterator[MakeSandbox]:
    """Give `ctx` the sandbox a session builds from a `[sandbox]` table (empty: the defaults)."""
    opened: list[Sandbox] = []

    def make(table: dict[str, object] | None = None, mode: str | None = None) -> Sandbox:
        sandbox = open_sandbox(SandboxPolicy.from_settings(table, workspace=ctx.cwd, mode=mode))
        assert sandbox.active, sandbox.warnings
        opened.append(sandbox)
        ctx.sandbox = sandbox
        return sandbox

    yield make
    for sandbox in opened:
        sandbox.close()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file beside the workspace (both under /tmp), which the sandbox must not let a command change."""
    target = tmp_path / "outside.txt"
    target.write_text("untouched\n")
    return target


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that this test process opens: its port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def connect_command(port: int) -> str:
    return f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5); print(\"connected\")'"


async def test_by_default_writes_go_to_the_workspace_only(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox, outside: Path
) -> None:
    sandbox = sandboxed()
    assert sandbox.mode == "workspace-write" and not sandbox.policy.network  # what a user gets
    inside = await registry.invoke("run_command", {"command": "echo made > inside.txt"}, ctx)
    assert not inside.is_error and (ctx.cwd / "inside.txt").read_text() == "made\n"
    refused = await registry.invoke("run_command", {"command": f"echo changed > {outside}"}, ctx)
    assert refused.is_error
    assert f"blocked by the sandbox: write to {outside} outside the workspace" in refused.text
    assert refused.sandbox_denial is not None and refused.sandbox_denial.kind == "write"
    assert outside.read_text() == "untouched\n"


async def test_the_network_is_off_by_default_and_on_with_the_setting(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox, listener: int
) -> None:
    sandboxed()
    refused = await registry.invoke("run_command", {"command": connect_command(listener)}, ctx)
    assert refused.is_error and "connected" not in refused.text
    assert "blocked by the sandbox: network access is off" in refused.text
    sandboxed({"network": True})
    allowed = await registry.invoke("run_command", {"command": connect_command(listener)}, ctx)
    assert not allowed.is_error and "connected" in allowed.text and allowed.sandbox_denial is None


async def test_git_works_in_the_workspace_gets_the_trailer_and_cannot_plant_hooks(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox
) -> None:
    sandboxed()
    git = "git -c user.name=t -c user.email=t@example.com"
    done = await registry.invoke("run_command", {
        "command": f"git init -q && echo x > f && git add f && {git} commit -qm first"}, ctx)
    assert not done.is_error, done.text
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=ctx.cwd, capture_output=True, text=True,
                             check=True).stdout
    assert message.startswith("first") and DEFAULT_ATTRIBUTION in message  # added by sigit, also in the sandbox
    hook = await registry.invoke("run_command", {
        "command": "printf '#!/bin/sh\\ncurl evil\\n' > .git/hooks/pre-commit"}, ctx)
    assert hook.is_error and "git hooks and git config stay read-only" in hook.text
    assert not (ctx.cwd / ".git/hooks/pre-commit").exists()


async def test_forked_children_and_background_commands_are_confined_too(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox, outside: Path
) -> None:
    sandboxed()
    forked = await registry.invoke("run_command", {
        "command": f"sh -c 'echo child > {outside}; echo child-done > child.txt' & wait"}, ctx)
    assert "Exit code" in forked.text and (ctx.cwd / "child.txt").read_text() == "child-done\n"
    started = await registry.invoke("run_command", {
        "command": f"echo bg-done > bg.txt; echo bg > {outside}", "run_in_background": True}, ctx)
    task_id = started.text.split("task_id ")[1].split(".")[0]
    for _ in range(500):
        job = ctx.processes.get(task_id)
        if job is None or not job.running:
            break
        await asyncio.sleep(0.01)
    polled = await registry.invoke("command_output", {"task_id": task_id}, ctx)
    assert "finished with exit code" in polled.text
    assert f"blocked by the sandbox: write to {outside} outside the workspace" in polled.text
    assert (ctx.cwd / "bg.txt").read_text() == "bg-done\n"
    assert outside.read_text() == "untouched\n"


async def test_read_only_refuses_writes_to_the_workspace(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox
) -> None:
    sandboxed(mode="read-only")
    refused = await registry.invoke("run_command", {"command": "echo x > f.txt"}, ctx)
    assert refused.is_error and "blocked by the sandbox" in refused.text and "read-only" in refused.text
    assert not (ctx.cwd / "f.txt").exists()
    scratch = await registry.invoke("run_command", {"command": 'echo ok > "$TMPDIR/t" && cat "$TMPDIR/t"'}, ctx)
    assert not scratch.is_error and "ok" in scratch.text


async def test_off_runs_commands_as_before(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox, outside: Path, listener: int
) -> None:
    ctx.sandbox = open_sandbox(SandboxPolicy.from_settings({"mode": "off"}, workspace=ctx.cwd))
    assert not ctx.sandbox.active and ctx.sandbox.describe() == "off"
    wrote = await registry.invoke("run_command", {"command": f"echo changed > {outside}"}, ctx)
    assert not wrote.is_error and outside.read_text() == "changed\n"
    reached = await registry.invoke("run_command", {"command": connect_command(listener)}, ctx)
    assert not reached.is_error and "connected" in reached.text


async def test_a_commondir_the_command_creates_is_removed_and_the_model_told(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ctx.cwd, check=True)
    sandboxed()
    done = await registry.invoke("run_command", {"command": "cp -r .git .evil && echo ../.evil > .git/commondir"}, ctx)
    assert not done.is_error, done.text
    assert ("the sandbox removed .git/commondir that the command created: it would redirect git's hooks "
            "and config.") in done.text
    assert not (ctx.cwd / ".git/commondir").exists()


async def test_a_failed_read_does_not_offer_to_run_without_the_sandbox(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox
) -> None:
    sandboxed()
    done = await registry.invoke("run_command", {
        "command": "echo 'cat: /root/.ssh/id_rsa: Permission denied' >&2; exit 1"}, ctx)
    assert done.is_error and done.sandbox_denial is None and "blocked by the sandbox" not in done.text


async def test_a_command_that_goes_on_after_a_refused_write_still_tells_the_model(
    registry: ToolRegistry, ctx: ToolContext, sandboxed: MakeSandbox, outside: Path
) -> None:
    # `a > /outside; b` exits 0: the model must still learn the write was the sandbox's doing (a small
    # model would otherwise try sudo), but a command that succeeded is not offered an unconfined rerun
    sandboxed()
    done = await registry.invoke("run_command", {"command": f"echo changed > {outside}; echo done"}, ctx)
    assert not done.is_error and done.sandbox_denial is None
    assert f"exited 0, but part of it was blocked by the sandbox: write to {outside}" in done.text
    assert outside.read_text() == "untouched\n"
