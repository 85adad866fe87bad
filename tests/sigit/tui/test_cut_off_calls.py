"""A call the token limit cut off shows in the TUI as a failed tool call, and nothing is written."""

from __future__ import annotations

from pathlib import Path

from sigit.frontends.tui.chat import ToolCallBlock
from sigit.frontends.tui.reply import AssistantMessage

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send

CUT_WRITE = {
    "raw": "<tool_call>\n<function=create_file>\n<parameter=path>\nbig.md\n</parameter>\n"
    "<parameter=content>\n# Big\n\nThe first part of a long fi",
    "finish_reason": "length",
}


async def test_a_cut_off_call_is_a_failed_block_and_writes_nothing(make_app: MakeApp, workdir: Path) -> None:
    app, runtime = make_app([CUT_WRITE, "I'll write it in parts."], permission_mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "write big.md")
        await idle(app, pilot)
        block = app.query_one(ToolCallBlock)
        assert block.status == "error" and block.has_class("failed")
        assert "cut off at the token limit" in block.output
        assert "cut off at the token limit" in str(block.title)
        assert app.query(AssistantMessage).last().content_text == "I'll write it in parts."
    assert not (workdir / "big.md").exists()
    runtime.assert_consumed()
