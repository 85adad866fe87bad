"""A paste (bracketed paste from the terminal, a `Paste` event) arrives in the prompt once."""

from __future__ import annotations

import pytest
from sigit.frontends.tui.input import PromptInput
from textual import events

from .conftest import MakeApp
from .helpers import SIZE, idle, ready

PASTED = "def f():\n    return 1\n"


@pytest.mark.parametrize("to", ["app", "prompt"])
async def test_a_paste_is_inserted_once_and_sent_once(make_app: MakeApp, to: str) -> None:
    """`app`: where the terminal driver posts it (the app forwards it to the focused prompt); `prompt`:
    posted to the prompt itself."""
    app, runtime = make_app(["seen it"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        target = app if to == "app" else app.query_one(PromptInput)
        target.post_message(events.Paste(PASTED))
        await pilot.pause()
        await pilot.pause()
        assert app.prompt_input.text == PASTED
        await pilot.press("enter")
        await idle(app, pilot)
    assert runtime.requests[-1].messages[-1].content.count("return 1") == 1
