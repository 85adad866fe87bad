"""Folder trust in the app: a modal lists what the folder wants before anything of it runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sigit.frontends.tui.screens import TrustScreen
from textual.widgets import Static

from .conftest import MakeApp
from .helpers import SIZE, notices, ready, wait_screen

FIXTURE = Path(__file__).resolve().parents[1] / "extensions" / "mcp_server_fixture.py"


def untrusted_folder(workdir: Path, tmp_path: Path) -> tuple[Path, Path]:
    hook, mcp = tmp_path / "hook-ran", tmp_path / "mcp-ran"
    (workdir / ".sigit").mkdir()
    (workdir / ".sigit" / "settings.toml").write_text(
        f'[[hooks.session_start]]\ncommand = "touch {hook}"\n[permissions]\nmode = "accept-edits"\n'
    )
    (workdir / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {
        "command": "sh", "args": ["-c", f"touch {mcp}; exec {sys.executable} {FIXTURE}"]}}}))
    return hook, mcp


async def test_the_modal_lists_the_folder_and_trust_applies_it(
    make_app: MakeApp, workdir: Path, tmp_path: Path
) -> None:
    hook, mcp = untrusted_folder(workdir, tmp_path)
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await wait_screen(app, pilot, TrustScreen)
        wants = str(app.screen.query_one("#trust-wants", Static).render())
        assert f"runs `touch {hook}` at session_start" in wants
        assert "starts MCP server `docs`" in wants and "permission mode accept-edits" in wants
        assert str(workdir.resolve()) in str(app.screen.query_one("#permission-title").render())
        assert not hook.exists() and not mcp.exists()  # nothing of the folder's before the answer
        await pilot.press("t")
        await ready(app, pilot)
        session = app.agent_session
        assert session is not None and session.trusted
        assert session.mode == "accept-edits"
        assert hook.exists() and mcp.exists()
        assert "docs (stdio): connected" in session.mcp_status()
        await session.close()
    assert (tmp_path / "config" / "trusted_folders.json").exists()


async def test_dont_trust_keeps_the_folder_parts_off(make_app: MakeApp, workdir: Path, tmp_path: Path) -> None:
    hook, mcp = untrusted_folder(workdir, tmp_path)
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await wait_screen(app, pilot, TrustScreen)
        await pilot.press("enter")  # the focused button is "Don't trust"
        await ready(app, pilot)
        session = app.agent_session
        assert session is not None and not session.trusted
        assert session.mode == "default" and session.mcp is None
        assert "Folder not trusted" in notices(app)
    assert not hook.exists() and not mcp.exists()
    assert not (tmp_path / "config" / "trusted_folders.json").exists()
