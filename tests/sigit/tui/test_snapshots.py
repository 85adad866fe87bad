"""Snapshots of the main screens (update with `pytest --snapshot-update` after a deliberate change)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sigit.agent.events import UsageUpdated
from sigit.frontends.tui.app import SigitApp
from sigit.frontends.tui.screens import ModelPicker, PermissionScreen
from textual.pilot import Pilot

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send, wait_screen


@pytest.fixture(autouse=True)
def empty_model_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The picker's "cached" marks must not depend on this machine's Hugging Face cache."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))


@pytest.fixture(autouse=True)
def fixed_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default model follows this machine's memory: pin it so the pictures do not."""
    monkeypatch.setattr("onde.default_model", lambda: "qwen3.5-4b")  # what sigit.config.schema asks


def still(pilot: Pilot[Any]) -> None:
    pilot.app.query_one("#prompt").cursor_blink = False


def fixed_usage(app: SigitApp) -> None:
    """Token counts depend on the tmp path in the system prompt: pin them for the picture."""
    app.view.usage = UsageUpdated(1000, 0, 20, 32768, 1000, 20)
    app.refresh_status()


def test_chat_screen(make_app: MakeApp, workdir: Path, snap_compare: Any) -> None:
    (workdir / "notes.md").write_text("# Notes\n")
    app, _ = make_app([
        {"reasoning": "Look at the file first.", "tool_calls": [{"name": "read_file",
                                                                 "arguments": {"path": "notes.md"}}]},
        "The file holds a heading:\n\n```python\nprint('hi')\n```\n\n- one\n- two",
    ])

    async def run_before(pilot: Pilot[Any]) -> None:
        still(pilot)
        await ready(app, pilot)
        await send(app, pilot, "What is in notes.md?")
        await idle(app, pilot)
        fixed_usage(app)
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_permission_modal(make_app: MakeApp, workdir: Path, snap_compare: Any) -> None:
    (workdir / "f.txt").write_text("alpha\nbeta\n")
    app, _ = make_app([{"tool_calls": [{"name": "edit_file", "arguments": {
        "path": "f.txt", "old_text": "beta", "new_text": "gamma"}}]}])

    async def run_before(pilot: Pilot[Any]) -> None:
        still(pilot)
        await ready(app, pilot)
        await send(app, pilot, "change beta")
        await wait_screen(app, pilot, PermissionScreen)
        fixed_usage(app)
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_model_picker(make_app: MakeApp, snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from qwen_runtime.models import registry

    monkeypatch.setattr(registry, "memory_bytes", lambda: 16 * 1024**3)  # the fit column, on any machine
    app, _ = make_app([])

    async def run_before(pilot: Pilot[Any]) -> None:
        still(pilot)
        await ready(app, pilot)
        await pilot.press("ctrl+o")
        await wait_screen(app, pilot, ModelPicker)
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
