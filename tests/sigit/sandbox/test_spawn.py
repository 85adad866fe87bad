"""Spawned the way run_command spawns (asyncio, own session, output piped): the process group is the
command's, so sigit can still end it and everything it started."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from sigit.sandbox import Sandbox

MakeSandbox = Callable[..., Sandbox]


async def test_run_command_style_spawn_and_group_kill(make_sandbox: MakeSandbox, workspace: Path) -> None:
    sandbox = make_sandbox()
    cmd = sandbox.wrap(["sh", "-c", "echo started; sleep 30 & sleep 30; echo never"], dict(os.environ))
    proc = await asyncio.create_subprocess_exec(
        *cmd.argv, cwd=str(workspace), env=cmd.env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
    )
    assert proc.stdout is not None
    assert await asyncio.wait_for(proc.stdout.readline(), 10) == b"started\n"
    assert os.getpgid(proc.pid) == proc.pid  # the launcher exec'd in place: same pid, same group
    os.killpg(proc.pid, signal.SIGKILL)
    assert await asyncio.wait_for(proc.wait(), 10) == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the background sleep survived the group kill")
