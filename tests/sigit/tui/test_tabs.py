"""Several sessions as tabs, the History tab opening sessions into tabs, and long resumed histories."""

from __future__ import annotations

from pathlib import Path

from qwen_runtime.types import AssistantMessage, Message
from qwen_runtime.types import UserMessage as RtUser
from sigit.frontends.tui.app import SigitApp, create_app
from sigit.frontends.tui.chat import REPLAY_WINDOW, LoadEarlier, PastReply
from sigit.frontends.tui.session_view import SessionView
from sigit.sessions import Session, SessionStore
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send


def statusbar(app: SigitApp) -> str:
    return str(app.query_one("#statusbar").render())


async def all_ready(app: SigitApp, pilot: Pilot[int]) -> None:
    for _ in range(300):
        if all(v.agent_session is not None for v in app.views):
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError("a session tab never opened its session")


async def test_ctrl_n_opens_a_second_session_with_its_own_chat(make_app: MakeApp, workdir: Path) -> None:
    app, _ = make_app(["reply in tab two"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        first = app.view
        await pilot.press("ctrl+n")
        await all_ready(app, pilot)
        second = app.view
        assert second is not first and len(app.views) == 2
        assert app.query_one(TabbedContent).active == "session-2"
        assert app.focused is second.prompt_input
        assert second.cwd == first.cwd == workdir
        assert second.require_session().id != first.require_session().id
        assert "tab 2/2" in statusbar(app)
        await send(app, pilot, "hello two")
        await idle(app, pilot)
        assert second.chat.query(PastReply) or second.chat.children
        assert not first.chat.query("UserMessage")
        app.show_tab("session")
        await pilot.pause()
        assert app.view is first and "tab 1/2" in statusbar(app)
        await pilot.press("alt+2", "alt+1")
        assert app.view is first  # Alt+1 goes back to the session tab last shown


async def test_new_command_and_alt_w(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "/new")
        await all_ready(app, pilot)
        assert len(app.views) == 2
        await pilot.press("alt+w")
        await pilot.pause()
        assert len(app.views) == 1 and app.query_one(TabbedContent).active == "session"
        # the closed tab's neighbour (History) is never activated on the way: a late activation
        # message used to leave History showing when the machine was busy
        assert not app.query("#history-pane")
        assert app.focused is app.prompt_input
        await send(app, pilot, "/close")  # the last tab stays
        assert len(app.views) == 1


async def test_history_open_focuses_an_open_session_or_opens_a_tab(
    make_app: MakeApp, workdir: Path, tmp_path: Path
) -> None:
    saved = Session.create(workdir, "scripted")
    saved.messages = [RtUser("an old question"), AssistantMessage("an old answer")]
    SessionStore(tmp_path / "config" / "sessions").save(saved)
    app, _ = make_app(["fresh answer"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "a new question")
        await idle(app, pilot)
        current = app.require_session().id
        await app.open_saved(current)
        await pilot.pause()
        assert len(app.views) == 1  # already open: focused, not reopened
        await app.open_saved(saved.id)
        await all_ready(app, pilot)
        assert len(app.views) == 2
        assert app.require_session().id == saved.id
        assert app.view.chat.query_one(PastReply).content_text == "an old answer"
        await app.open_saved(current)
        await pilot.pause()
        assert app.view is app.views[0] and len(app.views) == 2


async def test_a_long_history_mounts_its_tail_and_loads_earlier(
    make_app: MakeApp, workdir: Path, tmp_path: Path
) -> None:
    saved = Session.create(workdir, "scripted")
    messages: list[Message] = []
    for i in range(300):
        messages += [RtUser(f"q{i}"), AssistantMessage(f"**a{i}**")]
    saved.messages = messages
    SessionStore(tmp_path / "config" / "sessions").save(saved)
    app = create_app(workdir, runtime=make_app([])[1], config_dir=tmp_path / "config", resume=saved.id)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        chat = app.chat
        assert len(chat.query(PastReply)) == REPLAY_WINDOW // 2
        assert chat.query(PastReply).last().content_text == "**a299**"
        assert str(chat.query_one(LoadEarlier).label).startswith("↑ Load earlier messages (480")
        chat.scroll_home(animate=False)  # the user scrolls to the top and presses the button
        await pilot.pause()
        await pilot.click(LoadEarlier)
        await pilot.pause()
        assert len(chat.query(PastReply)) == REPLAY_WINDOW
        while chat.earlier:
            await chat.load_earlier()
        await pilot.pause()
        assert chat.query(PastReply).first().content_text == "**a0**"
        assert not chat.query(LoadEarlier)


async def test_each_tab_keeps_its_own_session_view(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await app.new_session()
        await all_ready(app, pilot)
        assert all(isinstance(v, SessionView) for v in app.views)
        assert {v.require_session().id for v in app.views}.__len__() == 2
