"""Issue 49 family 9 in the app: a tool card showing a planted README (an OSC 52 clipboard write, a
device-status query whose answer the terminal would type, a title change, Textual markup with a click
action) sends none of it to the terminal: what the screen writes holds no escape sequence but Textual's
own, and the card's title is not read as markup."""

from __future__ import annotations

from pathlib import Path

from sigit.frontends.tui.chat import ToolCallBlock

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send

PLANTED = (
    "[@click=app.quit]Read me[/] \x1b]52;c;ZWNobyBwd25lZA==\x07 clip\n"
    "status \x1b[6n query \x1b]0;owned title\x1b\\ and \x1bP+q544e\x1b\\ dcs \x9b31m c1\n"
    "colour \x1b[31mred\x1b[0m stays readable\n"
)
DANGEROUS = ("\x1b]", "\x07", "\x1b[6n", "\x1bP", "\x9b")


def screen_output(app: object) -> str:
    """What the app would write to the terminal for its whole screen now."""
    update = app.screen._compositor.render_update(full=True)  # type: ignore[attr-defined]
    return str(update.render_segments(app.console))  # type: ignore[attr-defined]


async def test_a_tool_card_shows_a_planted_file_without_its_escapes(make_app: MakeApp, workdir: Path) -> None:
    (workdir / "README.md").write_text(PLANTED)
    app, _ = make_app([{"tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]}, "Read it."])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "read the readme")
        await idle(app, pilot)
        block = app.query_one(ToolCallBlock)
        block.collapsed = False
        await pilot.pause()
        written = screen_output(app)
        assert "\\x1b]52;c;" in written and "stays readable" in written  # title and body on screen, escapes as text
        for sequence in DANGEROUS:
            assert sequence not in written, repr(sequence)
        label = block._title.label  # the title is the file's first line: plain text, never markup
        assert "@click" in label.plain and not any("@click" in str(span.style) for span in label.spans)
        assert app.is_running  # nothing quit the app
