"""Descendants of a command end with it: `setsid cmd &`, `nohup cmd &` and a double fork included,
whether the command ends by itself, times out, is cancelled or is a killed background job; and no
zombie is left behind in siGit."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from sigit.tools import ToolContext, ToolRegistry, reaper
from sigit.tools.processes import ProcessManager, spawn, wait_exit

from ..proc_table import alive_with as _alive
from ..proc_table import started as _started
from ..proc_table import token as _token


def _zombie_children() -> set[int]:
    me = os.getpid()
    zombies = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == b"Z" and int(fields[1]) == me:
            zombies.add(int(name))
    return zombies


@pytest.mark.parametrize("form", [
    "setsid sleep {t} &",
    "nohup sleep {t} &",
    "setsid sleep {t} > /dev/null 2>&1 &",
    "nohup sleep {t} > /dev/null 2>&1 &",
    "(sleep {t} > /dev/null 2>&1 &)",  # a double fork: the sleeper is orphaned at once
])
async def test_detached_descendants_end_with_the_command(
    registry: ToolRegistry, ctx: ToolContext, form: str
) -> None:
    token = _token()
    zombies = _zombie_children()
    out = await registry.invoke("run_command", {"command": form.format(t=token) + "\necho started"}, ctx)
    assert not out.is_error and "started" in out.text
    assert _alive(token) == []
    assert _zombie_children() <= zombies


async def test_a_timed_out_command_takes_its_detached_children_with_it(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    token = _token()
    ctx.command_timeout = 0.5
    out = await registry.invoke("run_command", {"command": f"setsid sleep {token} & sleep 30"}, ctx)
    assert out.is_error and "timed out" in out.text
    assert _alive(token) == []


async def test_a_killed_background_job_takes_its_detached_children_with_it(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    token = _token()
    started = await registry.invoke(
        "run_command", {"command": f"setsid sleep {token} > /dev/null 2>&1 & nohup sleep {token} & sleep 60",
                        "run_in_background": True}, ctx)
    task_id = started.text.split("task_id ")[-1].split()[0].strip(".:,()")
    await _started(token)
    killed = await registry.invoke("kill_command", {"task_id": task_id}, ctx)
    assert not killed.is_error, killed.text
    assert _alive(token) == []


async def test_a_finished_background_job_leaves_its_detached_children_until_the_session_ends(
    tmp_path: Path,
) -> None:
    token = _token()
    processes = ProcessManager()
    task_id = await processes.start(f"setsid sleep {token} > /dev/null 2>&1 &", tmp_path)
    await _started(token)
    while (await processes.poll(task_id)).running:
        await asyncio.sleep(0.01)
    assert _alive(token) != []  # a server started in the background keeps serving
    await processes.kill_all()
    assert _alive(token) == []


async def test_a_cancelled_command_takes_its_detached_children_with_it(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    token = _token()
    ctx.cancel = asyncio.Event()
    run = asyncio.ensure_future(registry.invoke("run_command", {"command": f"setsid sleep {token} & sleep 30"}, ctx))
    await _started(token)
    ctx.cancel.set()
    out = await run
    assert "cancelled" in out.text
    assert _alive(token) == []


async def test_a_detached_descendant_that_exits_on_its_own_leaves_no_zombie(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    token = _token()
    stop = ctx.cwd / f"stop-{token}"
    zombies = _zombie_children()
    task_id = await ctx.processes.start(
        f"setsid sh -c 'while [ ! -e {stop.name} ]; do sleep 0.02; done' > /dev/null 2>&1 &", ctx.cwd)
    await _started(token, program="sh")
    while (await ctx.processes.poll(task_id)).running:
        await asyncio.sleep(0.01)
    await registry.invoke("run_command", {"command": "true"}, ctx)
    stop.touch()
    while _alive(token):  # it exits by itself, long after its job's shell
        await asyncio.sleep(0.01)
    await registry.invoke("run_command", {"command": "true"}, ctx)
    assert _zombie_children() <= zombies


async def test_session_end_signals_every_job_before_killing_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jobs that ignore SIGTERM share one grace period: the ACP server gives a session a few seconds
    to close, not a few seconds a job."""
    from sigit.tools import processes as processes_module

    sent: list[tuple[int, int]] = []
    real = processes_module._signal_group

    def recording(pgid: int, sig: int) -> bool:
        if sig:
            sent.append((pgid, sig))
        return real(pgid, sig)

    monkeypatch.setattr(processes_module, "_signal_group", recording)
    token = _token()
    manager = ProcessManager()
    ids = [await manager.start(f"trap '' TERM; sleep {token}", tmp_path) for _ in range(5)]
    shells = [manager.get(task_id).proc for task_id in ids]  # type: ignore[union-attr]
    while len(_alive(token)) < 5:
        await asyncio.sleep(0.01)
    await manager.kill_all()
    kinds = [sig for _, sig in sent]
    assert kinds == [signal.SIGTERM] * 5 + [signal.SIGKILL] * 5
    assert all(shell.returncode is not None for shell in shells) and _alive(token) == []


async def test_a_finished_jobs_pid_given_to_another_sessions_command_does_not_get_it_killed(
    tmp_path: Path,
) -> None:
    token = _token()
    session_a, session_b = ProcessManager(), ProcessManager()
    finished = await session_a.start("true", tmp_path)
    job = session_a.get(finished)
    assert job is not None
    await wait_exit(job.proc)
    running = await session_b.start(f"sleep {token}", tmp_path)
    other = session_b.get(running)
    assert other is not None
    await _started(token)
    # the kernel hands session B's shell the pid session A's finished shell had
    job.proc.pid = other.proc.pid
    await session_a.poll(finished)
    await session_a.kill_all()
    assert other.running and _alive(token) != []
    await session_b.kill_all()
    assert _alive(token) == []


async def test_a_sweep_cut_short_is_done_by_the_next_one(tmp_path: Path) -> None:
    token = _token()
    shell = await spawn(f"setsid sleep {token} > /dev/null 2>&1 &", tmp_path)
    await wait_exit(shell)
    await _started(token)
    sweep = asyncio.ensure_future(reaper.end_command(shell))
    await asyncio.sleep(0)  # now scanning /proc
    sweep.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sweep
    assert _alive(token) != []
    await reaper.end_command(shell)
    assert _alive(token) == []


# Without the sandbox's PID namespace (sandbox off, macOS): found by session, process group, mark and parents.


async def test_unconfined_a_job_in_a_process_group_of_its_own_with_no_mark_is_found_by_its_session(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    ctx.sandbox = None
    token = _token()
    out = await registry.invoke(
        "run_command", {"command": f"set -m; env -i sleep {token} > /dev/null 2>&1 & echo started"}, ctx)
    assert not out.is_error and "started" in out.text
    assert _alive(token) == []


async def test_unconfined_a_detached_child_with_no_mark_is_found_through_its_parent(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    ctx.sandbox = None
    ctx.command_timeout = 0.5
    token = _token()
    out = await registry.invoke("run_command", {"command": f"env -i setsid sleep {token} > /dev/null 2>&1 & wait"}, ctx)
    assert out.is_error and "timed out" in out.text
    assert _alive(token) == []
