"""A long streamed reply (issue 50, item 11): work per update that does not grow, all of it drawn, Esc at once.

The work is counted, not timed: every parse made while a reply streams goes through
`AssistantMessage._parse`, and its size is what the update re-parses and re-mounts.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.reply_pieces import MAX_TAIL
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownFence

from .conftest import MakeApp
from .helpers import SIZE, idle, notices, ready, send


def long_reply() -> str:
    """About 35 KB in 200 lines: one long code fence, one long list, and prose with the usual blocks."""
    code = "".join(f"    total_{i} = accumulate(values[{i}], weight={i} * 0.5, window=WINDOW, clamp=(LOW, HIGH))"
                   f"  # step {i} of the long loop, weighted by its place in the window\n" for i in range(75))
    items = "".join(f"{i + 1}. Item {i}: a longer point that says something about part {i} of the job, "
                    f"and then a bit more so the line is a realistic length for a list item written by a model "
                    f"that explains itself at some length, as they do, and then adds a note on what could go wrong.\n"
                    for i in range(70))
    prose = "".join(f"### Part {i}\n\nA paragraph about part {i} with **bold**, `code` and a few more words "
                    f"to fill it out to a normal length of prose in a reply, and then a little more, and more "
                    f"again: the model goes on about the part, what it does, why it is there, and what to "
                    f"check before moving on to the next part of the reply.\n\n" for i in range(12))
    text = (f"Here is the whole module:\n\n```python\ndef main(values):\n{code}    return total_0\n```\n\n"
            f"The steps:\n\n{items}\n{prose}Done.\n")
    assert 30_000 < len(text.encode()) < 40_000 and 190 < text.count("\n") < 210
    return text


def drawn(markdown: Markdown) -> list[tuple[str, str]]:
    """What a Markdown widget shows, block by block: each block's kind and text."""

    def text(block: Widget) -> str:
        return block.code if isinstance(block, MarkdownFence) else block._content.plain  # type: ignore[attr-defined]

    return [(type(block).__name__, text(block)) for block in markdown.query(MarkdownBlock)]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each piece of Markdown parsed (and mounted) while a reply streams."""
    sizes: list[int] = []
    parse = AssistantMessage._parse

    def counted(self: AssistantMessage, markdown: str) -> Any:
        sizes.append(len(markdown))
        return parse(self, markdown)

    monkeypatch.setattr(AssistantMessage, "_parse", counted)
    return sizes


async def test_a_long_reply_is_drawn_whole_with_bounded_work_per_update(make_app: MakeApp,
                                                                         parses: list[int]) -> None:
    text = long_reply()
    app, runtime = make_app([text], chunk_size=48, chunk_delay=0.002)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "write it all")
        await idle(app, pilot)
        reply = app.query_one(AssistantMessage)
        assert reply.content_text == text
        assert "".join(piece.source for piece in reply.pieces) == text  # every line drawn, once
        assert len(parses) > 20  # updates, and pieces closed as the reply grew
        assert max(parses) <= MAX_TAIL < len(text) / 5  # however long the reply, an update parses this much
        whole = Markdown(text)
        await app.view.chat.mount(whole)
        await pilot.pause(0.2)
        shown = drawn(reply)
        assert shown == drawn(whole)  # the finished reply is what a one-shot render shows
        assert sum(kind == "MarkdownFence" for kind, _ in shown) == 1
        assert sum(kind == "MarkdownOrderedList" for kind, _ in shown) == 1
    runtime.assert_consumed()


async def test_chunks_that_arrive_within_a_frame_are_drawn_together(make_app: MakeApp, parses: list[int]) -> None:
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        reply = AssistantMessage()
        await app.view.chat.mount(reply)
        for word in ("word " * 300).split(" "):
            reply.add(word + " ")
        await pilot.pause(0.2)
        assert len(parses) <= 3  # one update (a tail and the pieces it closed), not 300
        assert reply.source.startswith("word word")


async def test_escape_mid_stream_stops_drawing_at_once(make_app: MakeApp, parses: list[int]) -> None:
    text = long_reply()
    app, _ = make_app([text], chunk_size=8, chunk_delay=0.005)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "write it all")
        for _ in range(1500):  # until the long fence is drawn in a few pieces
            if len(app.query(MarkdownFence)) >= 3:
                break
            await pilot.pause(0.01)
        reply = app.query_one(AssistantMessage)
        await pilot.press("escape")
        shown, parsed = reply.source, len(parses)
        await idle(app, pilot)
        await pilot.pause(0.2)
        assert reply.stopped
        assert reply.source == shown and len(parses) == parsed  # nothing drawn after the Esc
        assert reply.content_text == shown  # chunks that had arrived but were not drawn are dropped
        assert len(app.query(AssistantMessage)) == 1
        assert len(shown) < len(text)
        assert "Cancelled." in notices(app)
        fences = list(reply.query(MarkdownFence))
        assert len(fences) >= 3 and {fence.lexer for fence in fences} == {"python"}
        regions = [fence.virtual_region for fence in fences]
        assert all(below.y == above.bottom for above, below in pairwise(regions))  # no gap at a cut
        assert sum(region.height for region in regions) == sum(len(f.code.splitlines()) for f in fences) + 2
