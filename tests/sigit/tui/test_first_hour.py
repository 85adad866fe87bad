"""What a new user trips on in the first hour, under Pilot: a failing /compact, keys that delete, tabs
that cannot be left, a "model is loading" that was not, the first run without a network, and the
smaller things (a confirmation for /load, a command card's last line, the History model column)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.types import AssistantMessage as RtAssistant
from qwen_runtime.types import UserMessage as RtUser
from sigit.frontends.tui.app import create_app
from sigit.frontends.tui.chat import ToolCallBlock
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.screens import ConfirmScreen, LocalModelScreen, ModelPicker
from sigit.frontends.tui.tabs import HistoryPane
from sigit.sessions import Session, SessionStore
from textual.geometry import Region
from textual.widgets import DataTable, OptionList, Static, TabbedContent

from .conftest import MakeApp
from .helpers import SIZE, idle, notices, ready, send, wait_screen

LOCAL_FILE_ROW = "local-gguf-file"


async def until(pilot: Any, done: Callable[[], bool], what: str, steps: int = 1500) -> None:
    for _ in range(steps):
        if done():
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError(f"{what} never happened")


@pytest.mark.script_may_remain
async def test_a_failing_compact_is_an_error_line_not_a_crash(make_app: MakeApp) -> None:
    app, runtime = make_app(["one", "two", "three", "four"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        for prompt in ("a", "b", "c", "d"):
            await send(app, pilot, prompt)
            await idle(app, pilot)
        before = app.require_session().status().messages
        await send(app, pilot, "/compact")  # the scripted model has no turn left for the summary
        await until(pilot, lambda: "Could not compact" in notices(app), "the error line")
        assert app.is_running and app.require_session().status().messages == before
        runtime.add_turns("five")
        await send(app, pilot, "still here?")
        await idle(app, pilot)
        assert len(app.query(AssistantMessage)) >= 1


async def test_history_delete_asks_first(make_app: MakeApp, workdir: Path, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "config" / "sessions")
    saved = Session.create(workdir, "/models/deep/dir/Qwen3-8B-Q4_K_M.gguf")
    saved.messages = [RtUser("keep me"), RtAssistant("kept")]
    store.save(saved)
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("alt+2")
        await until(pilot, lambda: bool(app.query(HistoryPane)) and app.query_one(HistoryPane).summaries != [],
                    "the history list")
        table = app.query_one("#history-table", DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert "Qwen3-8B-Q4_K_M.gguf" in row and "/models/deep/dir/Qwen3-8B-Q4_K_M.gguf" not in row
        table.focus()
        await pilot.press("d")
        await wait_screen(app, pilot, ConfirmScreen)
        await pilot.press("enter")  # Enter by accident keeps it: "No" has the focus
        await pilot.pause()
        assert store.path(saved.id).exists()
        await pilot.press("d")
        await wait_screen(app, pilot, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: not store.path(saved.id).exists(), "the delete")


async def test_clear_keeps_the_saved_session_and_starts_a_new_one(make_app: MakeApp, tmp_path: Path) -> None:
    app, _ = make_app(["first answer", "second answer"])
    store = SessionStore(tmp_path / "config" / "sessions")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "first question")
        await idle(app, pilot)
        first = app.require_session().id
        await send(app, pilot, "/clear")
        assert store.path(first).exists()
        await send(app, pilot, "second question")
        await idle(app, pilot)
        second = app.require_session().id
        assert second != first
    titles = {s.id: s.title for s in store.list()}
    assert titles[first] == "first question" and titles[second] == "second question"
    assert len(store.load(first).messages) == 2


async def test_tabs_switch_without_alt_and_focus_comes_back(make_app: MakeApp) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        tabs = app.query_one(TabbedContent)
        await send(app, pilot, "/status")
        await until(pilot, lambda: tabs.active == "status", "the Status tab")
        await pilot.press("ctrl+pageup")
        await until(pilot, lambda: tabs.active == "repo", "the Repo tab")
        await pilot.press("ctrl+pagedown", "ctrl+pagedown")  # Status, then round to the session
        await until(pilot, lambda: tabs.active == "session", "the session tab")
        assert app.focused is app.prompt_input
        await send(app, pilot, "/tab 2")
        await until(pilot, lambda: tabs.active == "history", "the History tab")
        await pilot.press("escape")
        await until(pilot, lambda: tabs.active == "session", "back to the session")
        assert app.focused is app.prompt_input
        await send(app, pilot, "/tab nowhere")
        assert "No tab 'nowhere'" in notices(app)


async def test_prompts_typed_while_the_model_loads_are_sent_after(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sigit.app import SessionHost

    release = asyncio.Event()
    real_open = SessionHost.open

    async def slow_open(self: SessionHost, *args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await real_open(self, *args, **kwargs)

    monkeypatch.setattr(SessionHost, "open", slow_open)
    app, _ = make_app(["answered after loading"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.view.loading, "the load starting")
        await send(app, pilot, "typed early")
        assert "Queued" in notices(app) and "still loading" not in notices(app)
        release.set()
        await until(pilot, lambda: bool(app.query(AssistantMessage)), "the queued prompt's reply")
        await idle(app, pilot)
        said = [m.content for m in app.require_session().messages]
        assert said == ["typed early", "answered after loading"]


@pytest.fixture
def offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No model cached and no network: the first run's picker comes up; choosing a download fails."""
    cache = tmp_path / "hub-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: refused at once
    monkeypatch.setenv("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return cache


def rendered(widget: Static) -> str:
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return " ".join(" ".join(line.text.split()) for line in lines).strip()


async def test_offline_first_run_says_what_works_and_loading_is_not_claimed(
    workdir: Path, tmp_path: Path, offline_hub: Path
) -> None:
    config = tmp_path / "config"
    app = create_app(workdir, config_dir=config)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_screen(app, pilot, ModelPicker)
        reason = app.screen.query_one("#model-reason", Static)
        assert "/load PATH.gguf" in rendered(reason)  # wrapped whole, not cut at the dialog's edge
        rows = app.screen.query_one(OptionList)
        labels = [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]
        assert "Use a .gguf file on this machine…" in [label.strip() for label in labels]
        await pilot.press("enter")  # the suggested model: asked first, then its download fails (no network)
        await wait_screen(app, pilot, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: not app.view.loading, "the failed download")
        assert not (config / "settings.toml").exists()  # saved only once a model has loaded
        await until(pilot, lambda: app.focused is app.prompt_input, "the prompt taking the focus back")
        await send(app, pilot, "hello?")
        await until(pilot, lambda: "No model is loaded" in notices(app), "the answer to a prompt")
        text = notices(app)
        assert "still loading" not in text and "/load PATH.gguf" in text, text


async def test_first_run_opens_a_local_gguf_picked_with_completion(
    workdir: Path, tmp_path: Path, offline_hub: Path, tiny_gguf: Path
) -> None:
    folder = tmp_path / "my-models"
    folder.mkdir()
    (folder / "tiny-qwen3.gguf").write_bytes(tiny_gguf.read_bytes())
    config = tmp_path / "config"
    app = create_app(workdir, config_dir=config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_screen(app, pilot, ModelPicker)
        rows = app.screen.query_one(OptionList)
        rows.highlighted = [rows.get_option_at_index(i).id for i in range(rows.option_count)].index(LOCAL_FILE_ROW)
        await pilot.press("enter")
        await wait_screen(app, pilot, LocalModelScreen)
        await pilot.press(*f"{tmp_path}/my-m")
        await pilot.press("tab")  # completes the folder
        await pilot.press("tab")  # and the only file in it
        path_field = app.screen.query_one("#gguf-path")
        assert path_field.value == f"{folder}/tiny-qwen3.gguf"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: app.agent_session is not None, "the local model opening", steps=3000)
        assert app.model_name == str(folder / "tiny-qwen3.gguf")
        assert "Loaded" in notices(app)
    assert f'model = "{folder / "tiny-qwen3.gguf"}"' in (config / "settings.toml").read_text()


async def test_smaller_things(make_app: MakeApp, workdir: Path, tmp_path: Path) -> None:
    """A /help hint on the blank first screen, a card's last output line, /load confirming."""
    app, _ = make_app([
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "printf 'collected 2\\n2 passed\\n'"}}]},
        "ran it",
    ], allow_tools=("run_command",))
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: "/help" in notices(app), "the hint on the blank first screen")
        await send(app, pilot, "run the tests")
        await idle(app, pilot)
        card = app.query_one(ToolCallBlock)
        assert "exit 0: 2 passed" in str(card.title), card.title
        await send(app, pilot, "/load other-model")
        await until(pilot, lambda: "Loaded other-model" in notices(app), "the /load confirmation")


async def test_load_errors_are_said_once_and_settings_errors_as_such(workdir: Path, tmp_path: Path) -> None:
    missing = workdir / "missing.gguf"
    app = create_app(workdir, config_dir=tmp_path / "config", model=str(missing))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not app.view.loading, "the failed load")
        assert notices(app).lower().count("could not load model") == 1
    config = tmp_path / "config2"
    config.mkdir()
    (config / "settings.toml").write_text("model = [\n")
    broken = create_app(workdir, config_dir=config)
    async with broken.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not broken.view.loading, "the failed open")
        text = notices(broken)
        assert "settings.toml" in text and "Could not open the session" in text
        assert "Could not load model" not in text



@pytest.mark.slow
async def test_smoke_a_first_session_end_to_end(
    workdir: Path, tmp_path: Path, offline_hub: Path, tiny_gguf: Path
) -> None:
    """First-run picker → a local file → a scripted model (/load) → a prompt → the permission prompt with its
    diff → /compact failing → tabs → quit: the path a new user walks, in one run."""
    from sigit.frontends.tui.screens import PermissionScreen

    (workdir / "notes.txt").write_text("alpha\nbeta\n")
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "edit_file", "arguments": {"path": "notes.txt", "old_text": "beta",
                                                             "new_text": "gamma"}}]},
        {"text": "Changed beta to gamma."}, {"text": "one"}, {"text": "two"}, {"text": "three"},
    ]}))
    app = create_app(workdir, config_dir=tmp_path / "config")
    async with app.run_test(size=SIZE) as pilot:
        await wait_screen(app, pilot, ModelPicker)
        rows = app.screen.query_one(OptionList)
        rows.highlighted = [rows.get_option_at_index(i).id for i in range(rows.option_count)].index(LOCAL_FILE_ROW)
        await pilot.press("enter")
        await wait_screen(app, pilot, LocalModelScreen)
        app.screen.query_one("#gguf-path").value = str(tiny_gguf)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: app.agent_session is not None, "the local model opening", steps=3000)
        await until(pilot, lambda: "Saved `model" in notices(app), "the model saved as the user's")
        await send(app, pilot, f"/load scripted:{scenario}")
        await until(pilot, lambda: app.model_name.startswith("scripted:") and app.agent_session is not None
                    and "Loaded scripted" in notices(app), "the switch to the scripted model: " + notices(app))
        await send(app, pilot, "change beta to gamma in notes.txt")
        await wait_screen(app, pilot, PermissionScreen)
        screen = app.screen
        assert isinstance(screen, PermissionScreen) and screen.query("#permission-preview")
        assert "-beta" in (screen.request.preview or "") and "+gamma" in (screen.request.preview or "")
        await pilot.press("y")
        await idle(app, pilot)
        assert (workdir / "notes.txt").read_text() == "alpha\ngamma\n"
        for prompt in ("a", "b", "c"):  # enough history to compact; then the script has no turn left
            await send(app, pilot, prompt)
            await idle(app, pilot)
        await send(app, pilot, "/compact")
        await until(pilot, lambda: "Could not compact" in notices(app), "the /compact error line")
        tabs = app.query_one(TabbedContent)
        await pilot.press("ctrl+pagedown")
        await until(pilot, lambda: tabs.active == "history", "the History tab")
        await pilot.press("escape")
        await until(pilot, lambda: tabs.active == "session", "back to the session")
        assert app.focused is app.prompt_input
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.return_code == 0
