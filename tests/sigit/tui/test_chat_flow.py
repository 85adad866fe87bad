"""The core flow driven by Pilot against the scripted model."""

from __future__ import annotations

from pathlib import Path

from sigit.frontends.tui.chat import ThinkingBlock, ToolCallBlock, UserMessage
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.screens import PermissionScreen
from textual.widgets import Markdown

from .conftest import MakeApp
from .helpers import SIZE, idle, notices, ready, send, wait_screen


async def test_prompt_streams_a_markdown_reply(make_app: MakeApp) -> None:
    app, runtime = make_app([{"reasoning": "think a bit\nmore", "text": "Hello **there**, `code`"}])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "héllo wörld ✓")
        await idle(app, pilot)
        assert [str(m.render()) for m in app.query(UserMessage)] == ["héllo wörld ✓"]
        reply = app.query_one(AssistantMessage)
        assert reply.content_text == "Hello **there**, `code`"
        thinking = app.query_one(ThinkingBlock)
        assert thinking.collapsed and "more" in thinking.thought
        assert "tokens" in str(app.query_one("#statusbar").render())
    runtime.assert_consumed()


async def test_enter_sends_and_ctrl_j_inserts_newline(make_app: MakeApp) -> None:
    app, _ = make_app(["ok"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("a", "ctrl+j", "b")
        assert app.prompt_input.text == "a\nb"
        await pilot.press("enter")
        await idle(app, pilot)
        assert str(app.query_one(UserMessage).render()) == "a\nb"
        assert app.prompt_input.text == ""
        await pilot.press("up")
        assert app.prompt_input.text == "a\nb"


async def test_tool_approved_in_modal_shows_diff(make_app: MakeApp, workdir: Path) -> None:
    (workdir / "f.txt").write_text("one\ntwo\n")
    app, runtime = make_app([
        {"tool_calls": [{"name": "edit_file",
                         "arguments": {"path": "f.txt", "old_text": "two", "new_text": "TWO"}}]},
        "Edited.",
    ])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "edit it")
        await wait_screen(app, pilot, PermissionScreen)
        assert isinstance(app.screen, PermissionScreen)
        assert app.screen.request.name == "edit_file"
        await pilot.press("y")
        await idle(app, pilot)
        block = app.query_one(ToolCallBlock)
        assert block.status == "done"
        assert block.diff is not None and "+TWO" in block.diff
        assert not block.collapsed  # edits open to show their diff
        assert (workdir / "f.txt").read_text() == "one\nTWO\n"
        assert app.query(AssistantMessage).last().content_text == "Edited."
        # undo rewinds the file change
        await send(app, pilot, "/undo")
        await pilot.pause()
        assert (workdir / "f.txt").read_text() == "one\ntwo\n"
        assert "Undid" in notices(app)
    runtime.assert_consumed()


async def test_denied_tool_is_marked(make_app: MakeApp, workdir: Path) -> None:
    app, _ = make_app([
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "rm -rf x"}}]},
        "ok, not running it",
    ])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "run")
        await wait_screen(app, pilot, PermissionScreen)
        await pilot.press("n")
        await idle(app, pilot)
        assert app.query_one(ToolCallBlock).status == "denied"


async def test_escape_cancels_a_streaming_turn(make_app: MakeApp) -> None:
    app, _ = make_app([" ".join(f"word{i}" for i in range(400))], chunk_delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "talk")
        for _ in range(200):
            if app.query(AssistantMessage):
                break
            await pilot.pause(0.01)
        await pilot.press("escape")
        await idle(app, pilot)
        assert "Cancelled." in notices(app)
        assert len(app.query_one(AssistantMessage).content_text) < len("word " * 400)


async def test_ctrl_c_twice_quits_when_idle(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_tabs_switch(make_app: MakeApp) -> None:
    app, _ = make_app(["saved reply"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "remember me")
        await idle(app, pilot)
        await pilot.press("alt+2")
        await pilot.pause(0.05)
        assert app.query_one("#tabs").active == "history"
        from textual.widgets import DataTable
        table = app.query_one("#history-table", DataTable)
        for _ in range(100):
            if table.row_count:
                break
            await pilot.pause(0.01)
        assert table.row_count == 1
        await pilot.press("alt+4")
        await pilot.pause(0.05)
        assert "Permissions" in str(app.query_one("#status-body").render())
        await pilot.press("alt+1")
        assert app.focused is app.prompt_input


def test_markdown_is_textual_markdown() -> None:
    assert issubclass(AssistantMessage, Markdown)
