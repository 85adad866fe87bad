"""The TUI's prompt for a command the sandbox refused: its own wording, only "once" or "keep it in"."""

from __future__ import annotations

from pathlib import Path

from sigit.frontends.tui.chat import ToolCallBlock
from sigit.frontends.tui.screens import PermissionScreen
from textual.widgets import Button, Static

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send, wait_screen


def write_outside(target: Path) -> list[object]:
    return [{"tool_calls": [{"name": "run_command", "arguments": {"command": f"echo changed > {target}"}}]},
            "done"]


async def test_a_refused_command_may_run_once_without_the_sandbox(
    make_app: MakeApp, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    app, runtime = make_app(write_outside(outside), allow_tools=("run_command",))
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        assert "sandbox workspace-write" in str(app.query_one("#statusbar").render())
        await send(app, pilot, "change it")
        await wait_screen(app, pilot, PermissionScreen)
        screen = app.screen
        assert isinstance(screen, PermissionScreen) and screen.request.purpose == "leave_sandbox"
        labels = " ".join(str(label.render()) for label in screen.query(Static))
        assert f"blocked by the sandbox: write to {outside} outside the workspace" in labels
        assert [str(b.label) for b in screen.query(Button)] == ["[y] Run once without the sandbox",
                                                               "[n] Keep the sandbox"]
        await pilot.press("a")  # "always" does not exist here: the prompt stays
        assert app.screen is screen
        await pilot.press("y")
        await idle(app, pilot)
        assert outside.read_text() == "changed\n"
        assert app.query_one(ToolCallBlock).status == "done"
    runtime.assert_consumed()


async def test_keeping_the_sandbox_leaves_the_file_alone(make_app: MakeApp, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    app, runtime = make_app(write_outside(outside), allow_tools=("run_command",))
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "change it")
        await wait_screen(app, pilot, PermissionScreen)
        await pilot.press("n")
        await idle(app, pilot)
    assert outside.read_text() == "untouched\n"
    told = [m for m in runtime.requests[-1].messages if m.role == "tool"][-1]
    assert "keep it in the sandbox" in str(told.content)


async def test_quitting_closes_the_session_and_its_sandbox(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        session = app.agent_session
        assert session is not None and session.sandbox is not None
        temp = session.sandbox.policy.temp_dir
        assert temp is not None and temp.is_dir()
        job = await session.processes.start("sleep 30", session.cwd, session.sandbox)
        proc = session.processes.get(job)
        assert proc is not None
    assert not temp.exists()  # the sandbox's private temp dir is gone
    assert proc.proc.returncode is not None  # and the background command was ended
