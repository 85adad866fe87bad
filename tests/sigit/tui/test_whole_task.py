"""A whole task in the TUI (ask, approve an edit, see the diff, run a command, undo, resume later),
and a blocking hook that stops a command, as a user would see them."""

from __future__ import annotations

from pathlib import Path

from sigit.frontends.tui.chat import PastReply, ToolCallBlock, UserMessage
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.screens import PermissionScreen

from .conftest import MakeApp
from .helpers import SIZE, idle, notices, ready, send, wait_screen


async def test_whole_task_then_resume_later(make_app: MakeApp, workdir: Path) -> None:
    (workdir / "app.py").write_text("print('hello')\n")
    app, runtime = make_app([
        {"tool_calls": [{"name": "edit_file", "arguments": {
            "path": "app.py", "old_text": "print('hello')", "new_text": "print('hi')"}}]},
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "python3 app.py"}}]},
        "Changed the greeting; it now prints hi.",
    ])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "make app.py print hi and run it")
        await wait_screen(app, pilot, PermissionScreen)
        assert "print('hi')" in (app.screen.request.preview or "")  # type: ignore[attr-defined]
        await pilot.press("y")
        await wait_screen(app, pilot, PermissionScreen)
        assert app.screen.request.name == "run_command"  # type: ignore[attr-defined]
        await pilot.press("y")
        await idle(app, pilot)
        edit, run = list(app.query(ToolCallBlock))
        assert edit.diff is not None and "+print('hi')" in edit.diff
        assert run.status == "done" and "hi" in run.output
        assert app.query(AssistantMessage).last().content_text.startswith("Changed the greeting")
        await send(app, pilot, "/undo")
        await pilot.pause()
        assert (workdir / "app.py").read_text() == "print('hello')\n"
        assert "Undid" in notices(app)
        session_id = app.agent_session.id  # type: ignore[union-attr]
    runtime.assert_consumed()

    later, _ = make_app([], resume=session_id)
    async with later.run_test(size=SIZE) as pilot:
        await ready(later, pilot)
        await pilot.pause(0.2)
        assert [str(m.render()) for m in later.query(UserMessage)] == ["make app.py print hi and run it"]
        assert any(r.content_text.startswith("Changed the greeting") for r in later.query(PastReply))


async def test_blocking_hook_stops_run_command_in_the_tui(make_app: MakeApp, workdir: Path) -> None:
    (workdir / ".sigit").mkdir()
    (workdir / ".sigit" / "settings.toml").write_text(
        '[[hooks.pre_tool_use]]\nmatcher = "run_command"\ncommand = "echo not-today >&2; exit 2"\n'
    )
    app, _ = make_app([
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ran"}}]},
        "ok",
    ], permission_mode="bypass", trust=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "touch")
        await idle(app, pilot)
        block = app.query_one(ToolCallBlock)
        assert block.status in ("failed", "denied", "error") and "not-today" in block.output
    assert not (workdir / "ran").exists()


async def test_download_progress_shows_in_the_status_bar(make_app: MakeApp) -> None:
    import asyncio

    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.view.agent_session = None  # as while a model is still loading
        # the loading thread reports progress; the status bar shows it
        await asyncio.to_thread(app.download_progress, app.view.model_name, 512 * 1024**2, 1024**3)
        await pilot.pause()
        assert "downloading 50% of 1.0 GiB" in str(app.query_one("#statusbar").render())
