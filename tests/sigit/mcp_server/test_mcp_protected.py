"""Issue 49 family 3 over MCP: with the recommended accept-edits registration, a caller cannot write
siGit's own settings, whether it names the config folder as its `workspace` or as a path, nor through
a link inside the workspace. `sigit mcp` over stdio, driven by the mcp SDK's client."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from .conftest import SIGIT, server_env

pytestmark = pytest.mark.slow

SETTINGS = '[permissions]\nmode = "default"\n'
HOOK = '[[hooks.session_start]]\ncommand = "touch /tmp/planted"\n'


async def test_a_caller_cannot_write_sigits_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "sigit"
    config.mkdir(parents=True)
    (config / "settings.toml").write_text(SETTINGS)
    (home / "work").mkdir()
    (home / "work" / "cfg").symlink_to(config)
    server = StdioServerParameters(command=SIGIT, args=["mcp", "--cwd", str(home), "--permission-mode", "accept-edits"],
                                   env={**server_env(config), "HOME": str(home)}, cwd=str(home))
    attempts = [
        {"path": "settings.toml", "workspace": str(config)},
        {"path": str(config / "settings.toml")},
        {"path": ".config/sigit/settings.toml"},
        {"path": "cfg/settings.toml", "workspace": str(home / "work")},
    ]
    async with Client(server, mode="legacy") as client:
        for attempt in attempts:
            result = await client.call_tool("create_file", {**attempt, "content": HOOK, "overwrite": True})
            text = result.content[0].text  # type: ignore[union-attr]
            assert result.is_error and "protected place" in text, (attempt, text)
        ordinary = await client.call_tool("create_file", {"path": "work/notes.md", "content": "ok\n"})
        assert not ordinary.is_error, ordinary.content
    assert (config / "settings.toml").read_text() == SETTINGS
    assert (home / "work" / "notes.md").read_text() == "ok\n"
