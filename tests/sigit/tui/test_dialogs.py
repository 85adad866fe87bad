"""Permission dialogs show every answer at any width, and Esc in one cancels the turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.screens import PermissionScreen
from textual.widgets import Button

from .conftest import MakeApp
from .helpers import idle, notices, ready, send, wait_screen

LONG_COMMAND = "git log --oneline --decorate --graph --all --since=2.weeks -- packages/sigit/src/sigit/frontends"


def run_long_command() -> dict[str, object]:
    return {"tool_calls": [{"name": "run_command", "arguments": {"command": LONG_COMMAND}}]}


@pytest.mark.parametrize("size", [(70, 30), (120, 40)])
async def test_every_answer_is_on_the_screen_whole(make_app: MakeApp, workdir: Path, size: tuple[int, int]) -> None:
    app, _ = make_app([run_long_command(), "done"])
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "look at the history")
        await wait_screen(app, pilot, PermissionScreen)
        screen = app.screen
        buttons = list(screen.query(Button))
        assert [b.id for b in buttons] == ["once", "session", "project", "deny"]
        dialog = screen.query_one("#permission-dialog").region
        for button in buttons:
            region = button.region
            assert region.width > 0 and region.height > 0, button.id
            assert screen.region.contains_region(region) and dialog.contains_region(region), (button.id, region)
            assert region.width >= len(str(button.label)), (button.id, region)  # the label is not cut
        await pilot.press("n")
        await idle(app, pilot)


@pytest.mark.script_may_remain  # the turn stopped: its second reply was never asked for
async def test_escape_in_a_permission_question_cancels_the_turn(make_app: MakeApp, workdir: Path) -> None:
    app, runtime = make_app([run_long_command(), "I would have gone on"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "look at the history")
        await wait_screen(app, pilot, PermissionScreen)
        await pilot.press("escape")
        await idle(app, pilot)
        assert not isinstance(app.screen, PermissionScreen)
        assert not any("gone on" in m.content_text for m in app.query(AssistantMessage))  # the turn stopped
        assert "cancel" in notices(app).lower()
        assert app.focused is app.prompt_input
    with pytest.raises(AssertionError, match="1 of 2 turns unused"):
        runtime.assert_consumed()
