"""run_command, command_output and kill_command with real processes."""

from __future__ import annotations

import asyncio

import pytest
from sigit.tools import ToolContext, ToolRegistry

from ..proc_table import alive_with, started, token


async def test_exit_code_and_combined_output(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("run_command", {"command": "echo out; echo err >&2"}, ctx)
    assert not out.is_error
    assert out.text == "Exit code 0:\nout\nerr\n"
    failed = await registry.invoke("run_command", {"command": "exit 3"}, ctx)
    assert failed.is_error and failed.text == "Exit code 3:\n(no output)"


async def test_commands_run_in_the_session_cwd_and_its_subdirs(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    (ctx.cwd / "sub").mkdir()
    here = await registry.invoke("run_command", {"command": "pwd"}, ctx)
    assert here.text.splitlines()[1] == str(ctx.cwd)
    sub = await registry.invoke("run_command", {"command": "pwd", "cwd": "sub"}, ctx)
    assert sub.text.splitlines()[1] == str(ctx.cwd / "sub")
    bad = await registry.invoke("run_command", {"command": "pwd", "cwd": "nope"}, ctx)
    assert bad.is_error and "not a directory" in bad.text


async def test_ten_megabytes_of_output_is_cut_head_and_tail(registry: ToolRegistry, ctx: ToolContext) -> None:
    command = "printf 'FIRST\\n'; head -c 10000000 /dev/zero | tr '\\0' 'a'; printf '\\nLAST\\n'"
    out = await registry.invoke("run_command", {"command": command}, ctx)
    assert out.text.startswith("Exit code 0:\nFIRST\n")
    assert out.text.endswith("LAST\n")
    assert "bytes of output omitted" in out.text
    assert len(out.text.encode()) < 50_300


async def test_multibyte_output_is_never_cut_inside_a_character(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    command = "i=0; while [ $i -lt 6000 ]; do printf 'aé€😀'; i=$((i+1)); done"
    out = await registry.invoke("run_command", {"command": command}, ctx)
    assert "omitted" in out.text
    assert "\ufffd" not in out.text


async def test_timeout_kills_the_whole_process_group(registry: ToolRegistry, ctx: ToolContext) -> None:
    ctx.command_timeout = 0.5
    t = token()
    out = await registry.invoke("run_command", {"command": f"sleep {t} & wait"}, ctx)
    assert out.is_error and "timed out after 0.5 s" in out.text
    assert alive_with(t) == [], "the forked child survived the timeout"


async def test_a_finished_command_leaves_no_children_behind(registry: ToolRegistry, ctx: ToolContext) -> None:
    t = token()
    out = await registry.invoke("run_command", {"command": f"sleep {t} & echo forked"}, ctx)
    assert out.text.startswith("Exit code 0:") and "forked" in out.text
    assert alive_with(t) == []


async def test_the_cancel_event_stops_the_command(registry: ToolRegistry, ctx: ToolContext) -> None:
    ctx.cancel = asyncio.Event()
    t = token()
    call = asyncio.create_task(registry.invoke("run_command", {"command": f"sleep {t}"}, ctx))
    # cancel once the command runs (waiting on the command, not the clock: a loaded machine starts it late)
    await asyncio.wait_for(started(t), 30)
    ctx.cancel.set()
    out = await asyncio.wait_for(call, 10)
    assert out.is_error and "cancelled" in out.text
    assert alive_with(t) == []


async def test_cancelling_the_task_kills_the_group(registry: ToolRegistry, ctx: ToolContext) -> None:
    t = token()
    call = asyncio.create_task(registry.invoke("run_command", {"command": f"sleep {t} & wait"}, ctx))
    await asyncio.wait_for(started(t), 30)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert alive_with(t) == []


async def poll_output(registry: ToolRegistry, ctx: ToolContext, until: str) -> str:
    """command_output until its text holds `until`: waits on the command, never on the clock."""
    seen = ""
    for _ in range(500):
        seen += (await registry.invoke("command_output", {"task_id": "bg1"}, ctx)).text
        if until in seen:
            return seen
        await asyncio.sleep(0.02)
    raise AssertionError(f"{until!r} never came: {seen!r}")


async def test_background_command_output_is_polled(registry: ToolRegistry, ctx: ToolContext) -> None:
    gate = ctx.cwd / "go"
    command = f"echo start; while [ ! -e {gate} ]; do sleep 0.02; done; echo end"
    started = await registry.invoke("run_command", {"command": command, "run_in_background": True}, ctx)
    assert "task_id bg1" in started.text
    first = await poll_output(registry, ctx, "start")
    assert "still running" in first and "end" not in first
    gate.touch()
    second = await poll_output(registry, ctx, "finished with exit code 0")
    assert "end" in second and "start" not in second  # each poll returns only what is new
    third = await registry.invoke("command_output", {"task_id": "bg1"}, ctx)
    assert third.is_error and "already ended (exit code 0)" in third.text
    assert ctx.processes.ids() == []


async def test_kill_command_ends_the_background_group(registry: ToolRegistry, ctx: ToolContext) -> None:
    t = token()
    await registry.invoke("run_command", {"command": f"sleep {t} & wait", "run_in_background": True}, ctx)
    await asyncio.wait_for(started(t), 30)
    killed = await registry.invoke("kill_command", {"task_id": "bg1"}, ctx)
    assert "Killed task bg1" in killed.text
    assert alive_with(t) == []
    unknown = await registry.invoke("kill_command", {"task_id": "bg9"}, ctx)
    assert unknown.is_error and "bg9" in unknown.text and "ended: bg1" in unknown.text
    assert ctx.processes.ids() == []


async def test_kill_all_ends_every_background_command(registry: ToolRegistry, ctx: ToolContext) -> None:
    t = token()
    for _ in range(2):
        await registry.invoke("run_command", {"command": f"sleep {t}", "run_in_background": True}, ctx)
    await asyncio.wait_for(started(t, 2), 30)
    await ctx.processes.kill_all()
    assert ctx.processes.ids() == []
    assert alive_with(t) == []
