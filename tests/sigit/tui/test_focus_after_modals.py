"""Wherever a dialog closes, typing goes to the prompt: the first run in an untrusted folder (the trust
question, asked once, then the model picker), a permission question, and a dialog's late Hide."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.models.registry import get_model
from qwen_runtime.testing.fake_hub import serve_fake_hub
from sigit.frontends.tui.app import SigitApp, create_app
from sigit.frontends.tui.screens import ConfirmScreen, ModelPicker, PermissionScreen, TrustScreen
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import OptionList

from .conftest import MakeApp
from .helpers import SIZE, idle, notices, ready, send, wait_screen

CHOICE = get_model("qwen3-1.7b")


def count_screens(app: SigitApp) -> list[str]:
    """The names of the screens the app pushes, in order."""
    shown: list[str] = []
    push_screen = app.push_screen

    def record(screen: Screen[object], *args: object, **kwargs: object) -> object:
        shown.append(type(screen).__name__)
        return push_screen(screen, *args, **kwargs)  # type: ignore[arg-type]

    app.push_screen = record  # type: ignore[method-assign, assignment]
    return shown


async def typing_lands_in_the_prompt(app: SigitApp, pilot: Pilot[int]) -> None:
    app.prompt_input.clear()
    await pilot.press(*"hello")
    assert app.prompt_input.text == "hello", app.focused


@pytest.mark.parametrize("answer", ["t", "n"])
async def test_first_run_in_an_untrusted_folder_asks_once_and_typing_reaches_the_prompt(
    workdir: Path, tmp_path: Path, tiny_gguf: Path, hub_cache: Path, monkeypatch: pytest.MonkeyPatch,
    answer: str,
) -> None:
    (workdir / ".sigit").mkdir()
    (workdir / ".sigit" / "settings.toml").write_text('[permissions]\nmode = "accept-edits"\n')
    with serve_fake_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        hub.add(CHOICE.repo_id, CHOICE.filename, tiny_gguf.read_bytes())
        app = create_app(workdir, config_dir=tmp_path / "config")
        shown = count_screens(app)
        async with app.run_test(size=SIZE) as pilot:
            await wait_screen(app, pilot, TrustScreen)
            await pilot.press(answer)
            await wait_screen(app, pilot, ModelPicker)
            rows = app.screen.query_one(OptionList)
            rows.highlighted = [rows.get_option_at_index(i).id for i in range(rows.option_count)].index(CHOICE.key)
            await pilot.press("enter")
            await wait_screen(app, pilot, ConfirmScreen)
            await pilot.press("y")
            for _ in range(3000):
                if app.agent_session is not None:
                    break
                await pilot.pause(0.01)
            await pilot.pause()
            assert app.agent_session is not None, notices(app)
            assert app.agent_session.trusted is (answer == "t")
            assert "Type a prompt below" in notices(app)
            await typing_lands_in_the_prompt(app, pilot)
    assert shown.count("TrustScreen") == 1, shown


async def test_a_late_hide_from_a_closed_dialog_does_not_lose_the_keys(make_app: MakeApp) -> None:
    """The prompt gets a Hide while a dialog covers it, sometimes only after the dialog closed: Textual
    then blurs it, and every key went nowhere."""
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.prompt_input.post_message(events.Hide())
        await pilot.pause()
        await typing_lands_in_the_prompt(app, pilot)


async def test_the_prompt_has_the_focus_after_a_permission_question(make_app: MakeApp, workdir: Path) -> None:
    (workdir / "notes.txt").write_text("alpha\n")
    app, _ = make_app([
        {"tool_calls": [{"name": "edit_file", "arguments": {"path": "notes.txt", "old_text": "alpha",
                                                             "new_text": "beta"}}]},
        "done",
    ])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "edit it")
        await wait_screen(app, pilot, PermissionScreen)
        await pilot.press("y")
        await idle(app, pilot)
        await typing_lands_in_the_prompt(app, pilot)
