"""Quitting the app ends the session's background commands first, then takes the repository guard's
last look, and says what it removed once the app is gone (issue 49): a key planted after the last
step's check is not left for the user's next `git status`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send

PLANT = ("git init -q later && while [ ! -e go ]; do sleep 0.02; done; "
         "git -C later config core.fsmonitor 'touch RAN; true' && : > planted && exec sleep 300")


async def test_quitting_removes_what_a_background_command_planted_after_the_last_step(
    make_app: MakeApp, workdir: Path
) -> None:
    call = {"name": "run_command", "arguments": {"command": PLANT, "run_in_background": True}}
    app, _ = make_app([{"tool_calls": [call]}, "started"], permission_mode="bypass")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "plant it")
        await idle(app, pilot)  # the step's check is done: the repository had nothing to remove then
        (workdir / "go").touch()
        while not (workdir / "planted").exists():
            await asyncio.sleep(0.01)
    assert any("siGit removed core.fsmonitor from later/.git/config" in note for note in app.closing_notes), \
        app.closing_notes
    assert "fsmonitor" not in (workdir / "later" / ".git" / "config").read_text()
