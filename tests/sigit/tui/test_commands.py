"""Slash commands, completion, the model picker and resuming saved sessions."""

from __future__ import annotations

from pathlib import Path

from sigit.frontends.tui.app import create_app
from sigit.frontends.tui.chat import PastReply, UserMessage
from sigit.frontends.tui.input import SlashSuggestions
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.screens import ConfirmScreen, ModelPicker
from textual.widgets import OptionList

from .conftest import MakeApp
from .helpers import SIZE, idle, notices, ready, send, wait_screen


async def test_tab_completes_a_slash_command(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("/", "u", "n")
        suggestions = app.query_one(SlashSuggestions)
        assert suggestions.display and suggestions.option_count == 1
        await pilot.press("tab")
        assert app.prompt_input.text == "/undo "
        assert not suggestions.display


async def test_unknown_command_says_so(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "/hlp")
        assert "Unknown command /hlp" in notices(app)
        await send(app, pilot, "/help")
        assert "/undo" in notices(app) and "Ctrl+D" in notices(app)


async def test_plan_and_permissions_change_the_mode(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        session = app.require_session()
        await send(app, pilot, "/plan")
        assert session.mode == "plan"
        assert "mode plan" in str(app.query_one("#statusbar").render())
        await send(app, pilot, "/plan")
        assert session.mode == "default"
        await send(app, pilot, "/permissions accept-edits")
        assert session.mode == "accept-edits"
        await send(app, pilot, "/plan on")
        await send(app, pilot, "/plan off")
        assert session.mode == "accept-edits"  # back to the mode before plan
        await send(app, pilot, "/permissions nonsense")
        assert "unknown permission mode 'nonsense'" in notices(app)


async def test_thinking_toggle_and_clear(make_app: MakeApp) -> None:
    app, _ = make_app(["hi"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "/thinking off")
        assert app.require_session().thinking is False
        await send(app, pilot, "hello")
        await idle(app, pilot)
        assert app.query(AssistantMessage)
        await send(app, pilot, "/clear")
        assert not app.query(AssistantMessage)
        assert app.require_session().status().messages == 0


async def test_model_picker_reopens_the_session_on_the_picked_model(make_app: MakeApp, hub_cache: Path) -> None:
    app, _ = make_app(["first"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "hello")
        await idle(app, pilot)
        before = app.require_session().id
        await pilot.press("ctrl+o")
        await wait_screen(app, pilot, ModelPicker)
        options = app.screen.query_one(OptionList)
        keys = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "qwen3-4b" in keys and "qwen2.5-coder-3b" in keys
        options.highlighted = keys.index("qwen3-4b")
        await pilot.press("enter")
        await wait_screen(app, pilot, ConfirmScreen)  # not downloaded: asked first
        await pilot.press("y")
        for _ in range(200):
            await pilot.pause(0.01)
            if app.model_name == "qwen3-4b" and app.agent_session is not None \
                    and app.agent_session.session.model == "qwen3-4b":
                break
        assert app.require_session().session.model == "qwen3-4b"
        assert app.require_session().id == before  # same conversation, new model
        assert "qwen3-4b" in str(app.query_one("#statusbar").render())


async def test_resume_replays_a_saved_session(make_app: MakeApp, workdir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    app, runtime = make_app(["the saved answer"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "a question")
        await idle(app, pilot)
        sid = app.require_session().id
    again = create_app(workdir, runtime=runtime, config_dir=tmp_path / "config", resume=sid)
    async with again.run_test(size=SIZE) as pilot:
        await ready(again, pilot)
        await pilot.pause(0.05)
        assert again.require_session().id == sid
        assert str(again.query_one(UserMessage).render()) == "a question"
        assert again.query_one(PastReply).content_text == "the saved answer"


async def test_continue_without_a_saved_session_starts_fresh(make_app: MakeApp) -> None:
    app, _ = make_app([], continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        assert "No saved session" in notices(app)


async def test_custom_command_completes_and_sends_its_prompt(make_app: MakeApp, workdir) -> None:  # type: ignore[no-untyped-def]
    commands = workdir / ".sigit" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Say hi\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS.\n")
    asked: list[str] = []

    def respond(request):  # type: ignore[no-untyped-def]
        asked.append(request.messages[-1].content)
        return "Hello, Ada!"

    app, _ = make_app(respond)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("/", "g", "r")
        suggestions = app.query_one(SlashSuggestions)
        assert suggestions.option_count == 1
        assert "Say hi NAME" in str(suggestions.get_option_at_index(0).prompt)
        await pilot.press("tab")
        assert app.prompt_input.text == "/greet "
        await send(app, pilot, "/greet Ada")
        await idle(app, pilot)
        assert [a.strip() for a in asked] == ["Say hello to Ada."]
        assert str(app.query_one(UserMessage).render()) == "/greet Ada"
        await send(app, pilot, "/commands")
        assert "/greet" in notices(app) and "Say hi" in notices(app)
        await send(app, pilot, "/gret")
        assert "Did you mean: /greet" in notices(app)


async def test_mcp_skills_and_agents_commands(make_app: MakeApp, workdir) -> None:  # type: ignore[no-untyped-def]
    skill = workdir / ".sigit" / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: Read PDF files\n---\nUse pdftotext.\n")
    agents = workdir / ".sigit" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews diffs\n---\nReview.\n")
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "/mcp")
        assert "No MCP servers configured" in notices(app)
        await send(app, pilot, "/skills")
        await pilot.pause(0.05)
        assert "pdf" in notices(app) and "Read PDF files" in notices(app)
        await send(app, pilot, "/agents")
        await pilot.pause(0.05)
        assert "reviewer" in notices(app) and "Reviews diffs" in notices(app)
        await send(app, pilot, "/commands")
        assert "No custom commands" in notices(app)


async def test_fork_session_resumes_into_a_copy(make_app: MakeApp, workdir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from qwen_runtime.types import UserMessage
    from sigit.sessions import Session, SessionStore

    store = SessionStore(tmp_path / "config" / "sessions")
    original = Session.create(workdir)
    original.messages = [UserMessage("first question")]
    store.save(original)
    app, _ = make_app([], resume=original.id, fork=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        assert app.agent_session is not None and app.agent_session.id != original.id
        assert app.agent_session.session.parent_id == original.id


async def test_switching_model_keeps_the_permission_mode_and_grants(make_app: MakeApp) -> None:
    app, _ = make_app(["first", "second"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "hello")
        await idle(app, pilot)
        await send(app, pilot, "/permissions accept-edits")
        app.require_session().grant("run_command(make test)")
        before = app.require_session()
        await send(app, pilot, "/load qwen3-4b")
        for _ in range(200):
            await pilot.pause(0.01)
            if app.agent_session is not None and app.agent_session is not before:
                break
        session = app.require_session()
        assert session.session.model == "qwen3-4b" and session.id == before.id
        assert session.mode == "accept-edits"  # the TUI used to fall back to the default mode
        assert "run_command(make test)" in session.session_grants
        assert "mode accept-edits" in str(app.query_one("#statusbar").render())
        await send(app, pilot, "again")
        await idle(app, pilot)
        assert session.status().messages == 4
