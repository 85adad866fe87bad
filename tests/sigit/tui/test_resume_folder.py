"""Resuming a session from History that was saved in another folder asks first, naming both folders."""

from __future__ import annotations

from pathlib import Path

from qwen_runtime.types import AssistantMessage as RtAssistant
from qwen_runtime.types import UserMessage as RtUser
from sigit.frontends.tui.screens import ConfirmScreen
from sigit.frontends.tui.tabs import HistoryPane
from sigit.sessions import Session, SessionStore
from textual.widgets import DataTable, Static

from .conftest import MakeApp
from .helpers import SIZE, ready, wait_screen


async def test_resume_in_another_folder_asks_and_stay_keeps_the_folder(
    make_app: MakeApp, workdir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    saved = Session.create(elsewhere, "qwen3-4b")
    saved.messages = [RtUser("from elsewhere"), RtAssistant("kept")]
    SessionStore(tmp_path / "config" / "sessions").save(saved)
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("alt+2")
        for _ in range(300):
            if app.query(HistoryPane) and app.query_one(HistoryPane).summaries:
                break
            await pilot.pause(0.01)
        app.query_one("#history-table", DataTable).focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_screen(app, pilot, ConfirmScreen)
        said = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert str(elsewhere.resolve()) in said and str(workdir.resolve()) in said
        await pilot.press("n")
        await pilot.pause()
        assert len(app.views) == 1 and app.view.cwd == workdir.resolve()
        await pilot.press("enter")
        await wait_screen(app, pilot, ConfirmScreen)
        await pilot.press("y")
        for _ in range(500):
            if len(app.views) == 2 and app.views[-1].agent_session is not None:
                break
            await pilot.pause(0.01)
        assert app.views[-1].cwd == elsewhere.resolve()
        assert app.views[0].cwd == workdir.resolve()
