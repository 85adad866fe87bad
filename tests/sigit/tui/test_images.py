"""Attaching images in the terminal app (Pilot): an `@shot.png` mention shows a chip with the picture's
name, pixels and size before sending, a pasted path becomes such a mention, and the image goes to the
model with the text."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from sigit.frontends.tui.input import PromptInput
from textual import events
from textual.widgets import Static

from .conftest import MakeApp
from .helpers import SIZE, idle, ready


async def test_a_mentioned_image_shows_a_chip_and_is_sent_with_the_prompt(
    make_app: MakeApp, workdir: Path, make_png: Callable[..., Path]
) -> None:
    shutil.copy(make_png(40, 30, seed=31), workdir / "shot.png")
    app, runtime = make_app(["A noisy picture."])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.prompt_input.insert("what is in @shot.png ?")
        await pilot.pause()
        chip = app.query_one("#attachments", Static)
        assert chip.display and "shot.png 40x30 PNG" in str(chip.render())
        await pilot.press("enter")
        await idle(app, pilot)
        assert not app.query_one("#attachments", Static).display  # the prompt is empty again
    sent = runtime.requests[-1].messages[-1]
    assert sent.content == "what is in @shot.png ?"
    assert [i.read() for i in sent.images] == [(workdir / "shot.png").read_bytes()]  # type: ignore[union-attr]
    runtime.assert_consumed()


async def test_a_pasted_image_path_becomes_a_mention(
    make_app: MakeApp, workdir: Path, make_png: Callable[..., Path]
) -> None:
    picture = make_png(20, 20, seed=32)
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.query_one(PromptInput).post_message(events.Paste(picture.as_uri()))
        await pilot.pause()
        assert app.prompt_input.text == f"@{picture} "
        app.query_one(PromptInput).post_message(events.Paste("plain words"))
        await pilot.pause()
        assert app.prompt_input.text.endswith("plain words")
