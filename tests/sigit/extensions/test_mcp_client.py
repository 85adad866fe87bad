"""The MCP client against real MCP servers (mcp_server_fixture.py run as subprocesses)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import given
from hypothesis import strategies as st
from sigit.extensions.mcp_client import (
    McpConfigError,
    McpManager,
    McpTool,
    acp_servers,
    cap,
    format_status,
    load_mcp_json,
    parse_server,
    settings_servers,
    tool_name_for,
)
from sigit.tools.base import ToolContext, ToolRegistry

FIXTURE = str(Path(__file__).with_name("mcp_server_fixture.py"))
MODULE = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Started:
    manager: McpManager
    warnings: list[str]
    acp_warnings: list[str]


def _tool(manager: McpManager, name: str) -> McpTool:
    found = [tool for tool in manager.tools() if tool.name == name]
    assert found, f"{name} not among {[t.name for t in manager.tools()]}"
    return found[0]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def started(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Started]:
    """One manager for the module: a good server, a doomed one, a missing command, a crashing one."""
    project = tmp_path_factory.mktemp("project")
    (project / ".git").mkdir()
    (project / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fixture": {
                        "command": sys.executable,
                        "args": [FIXTURE],
                        "env": {"GREETING": "hello ${SIGIT_TEST_UNSET_VAR:-from json}"},
                    },
                    "missing": {"command": "/nonexistent/sigit-mcp-server"},
                    "crash": {"command": sys.executable, "args": [FIXTURE, "--crash"]},
                }
            }
        )
    )
    settings = {"servers": {"doomed": {"command": sys.executable, "args": [FIXTURE]}}}
    mgr = McpManager(handshake_timeout=60)  # the fixture imports the mcp SDK: over 8 s on a loaded machine
    warnings = await mgr.start(project, settings)
    acp_env = [{"name": "TOKEN", "value": "t1"}]
    acp_warnings = await mgr.add_servers(
        [{"name": "acp", "command": sys.executable, "args": [FIXTURE], "env": acp_env}]
    )
    yield Started(mgr, warnings, acp_warnings)
    await mgr.close()  # a close that hung on a server would meet the suite's per-test timeout


@pytest.fixture
def manager(started: Started) -> McpManager:
    return started.manager


@MODULE
async def test_tools_are_listed_with_prefixed_names_and_server_schema(manager: McpManager) -> None:
    names = {tool.name for tool in manager.tools()}
    assert {"mcp__fixture__add", "mcp__fixture__echo", "mcp__doomed__add", "mcp__acp__echo"} <= names
    add = _tool(manager, "mcp__fixture__add")
    spec = add.spec()
    assert spec.parameters == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }
    assert "Add two integers." in spec.description
    assert add.read_only is False
    registry = ToolRegistry()
    for tool in manager.tools():
        registry.register(tool)
    assert "mcp__fixture__echo" in registry.names()


@MODULE
async def test_calls_return_the_servers_results(manager: McpManager, tmp_path: Path) -> None:
    registry = ToolRegistry(manager.tools())
    ctx = ToolContext(cwd=tmp_path)
    out = await registry.invoke("mcp__fixture__add", {"a": 2, "b": 40}, ctx)
    assert (out.text, out.is_error) == ("42", False)
    out = await registry.invoke("mcp__fixture__echo", '{"text": "héllo"}', ctx)
    assert out.text == "héllo"
    out = await registry.invoke("mcp__fixture__env", {"name": "GREETING"}, ctx)
    assert out.text == "hello from json"
    out = await registry.invoke("mcp__acp__env", {"name": "TOKEN"}, ctx)
    assert out.text == "t1"


@MODULE
async def test_tool_errors_and_bad_arguments_are_error_results(manager: McpManager, tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    out = await _tool(manager, "mcp__fixture__fail").invoke({"message": "disk on fire"}, ctx)
    assert out.is_error and "disk on fire" in out.text
    out = await _tool(manager, "mcp__fixture__add").invoke({"a": "x"}, ctx)
    assert out.is_error and "b" in out.text
    out = await _tool(manager, "mcp__fixture__add").invoke("[1, 2]", ctx)
    assert out.is_error and "must be a JSON object" in out.text


@MODULE
async def test_a_cancelled_turn_stops_waiting_for_the_call(manager: McpManager, tmp_path: Path) -> None:
    cancel = asyncio.Event()
    ctx = ToolContext(cwd=tmp_path, cancel=cancel)
    call = asyncio.ensure_future(_tool(manager, "mcp__fixture__sleep").invoke({"seconds": 30}, ctx))
    await asyncio.sleep(0.3)
    cancel.set()
    out = await asyncio.wait_for(call, 20)  # the call sleeps 30 s: an answer before that is the cancel's
    assert out.is_error and "cancelled" in out.text
    out = await _tool(manager, "mcp__fixture__add").invoke({"a": 1, "b": 1}, ToolContext(cwd=tmp_path))
    assert out.text == "2"


@MODULE
async def test_large_results_are_capped(manager: McpManager, tmp_path: Path) -> None:
    out = await _tool(manager, "mcp__fixture__big").invoke({"size": 45_000}, ToolContext(cwd=tmp_path))
    assert out.text.startswith("x" * 30_000)
    assert out.text[30_000:] == "\n[output truncated: 15000 more characters]"


@MODULE
async def test_failed_servers_are_reported_while_others_work(started: Started) -> None:
    manager = started.manager
    states = {status.name: status for status in manager.status()}
    assert states["fixture"].state == "connected" and "mcp__fixture__add" in states["fixture"].tool_names
    assert states["missing"].state == "failed"
    assert "/nonexistent/sigit-mcp-server" in (states["missing"].error or "")
    assert states["crash"].state == "failed"
    assert "refused to start: bad config" in (states["crash"].error or "")
    assert len(started.warnings) == 2 and all("failed to start" in w for w in started.warnings)
    assert started.acp_warnings == []
    assert not any(tool.name.startswith("mcp__missing__") for tool in manager.tools())
    text = format_status(manager.status())
    assert "fixture (stdio): connected" in text and "missing (stdio): failed" in text
    assert "  mcp__fixture__echo" in text


@MODULE
async def test_a_dead_server_is_reported_and_calls_fail_cleanly(manager: McpManager, tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    doomed_add = _tool(manager, "mcp__doomed__add")
    out = await _tool(manager, "mcp__doomed__die").invoke({}, ctx)
    assert out.is_error
    out = await doomed_add.invoke({"a": 1, "b": 2}, ctx)
    assert out.is_error and "doomed" in out.text
    status = {s.name: s for s in manager.status()}["doomed"]
    assert status.state == "failed"
    assert not any(tool.name.startswith("mcp__doomed__") for tool in manager.tools())
    out = await _tool(manager, "mcp__fixture__add").invoke({"a": 1, "b": 2}, ctx)
    assert out.text == "3"


async def test_handshake_timeout_fails_a_silent_server(tmp_path: Path) -> None:
    manager = McpManager(handshake_timeout=0.5)
    warnings = await manager.add_servers([{"name": "silent", "command": "sleep", "args": ["30"], "env": []}])
    assert warnings and "handshake within 0.5 s" in warnings[0]  # the timeout's words, not `sleep` ending
    await manager.close()


# ---------------------------------------------------------------- streamable HTTP


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def http_server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, FIXTURE, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(5)


async def test_streamable_http_server(http_server: str, tmp_path: Path) -> None:
    manager = McpManager()
    warnings = await manager.add_servers(
        [{"name": "web", "type": "http", "url": http_server, "headers": [{"name": "X-Token", "value": "k"}]}]
    )
    try:
        assert warnings == []
        out = await _tool(manager, "mcp__web__add").invoke({"a": 5, "b": 6}, ToolContext(cwd=tmp_path))
        assert out.text == "11"
    finally:
        await asyncio.wait_for(manager.close(), 10)


async def test_http_server_that_is_not_there_fails(tmp_path: Path) -> None:
    manager = McpManager(handshake_timeout=3)
    url = f"http://127.0.0.1:{_free_port()}/mcp"
    warnings = await manager.add_servers([{"name": "gone", "url": url, "headers": []}])
    assert warnings and "gone" in warnings[0]
    await manager.close()


# ---------------------------------------------------------------- configuration


def test_mcp_json_parsing(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "npx", "args": ["-y", "server-files", "${HOME_DIR:-/srv}"]},
                    "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"A": "b"}},
                    "events": {"type": "sse", "url": "https://example.com/sse"},
                    "nocommand": {"args": []},
                    "badtype": {"type": "carrier-pigeon", "url": "https://x"},
                    "badargs": {"command": "x", "args": "-v"},
                }
            }
        )
    )
    servers, warnings = load_mcp_json(path)
    by_name = {server.name: server for server in servers}
    assert by_name["files"].transport == "stdio"
    assert by_name["files"].args == ("-y", "server-files", "/srv")
    assert by_name["remote"].transport == "http" and by_name["remote"].headers == {"A": "b"}
    assert by_name["events"].transport == "sse"
    assert len(warnings) == 3
    assert any("`nocommand` needs `command`" in w for w in warnings)
    assert any("carrier-pigeon" in w for w in warnings)
    assert any("`args` must be a list" in w for w in warnings)


def test_mcp_json_problems_are_warnings(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    assert load_mcp_json(path) == ([], [])
    path.write_text("{not json")
    servers, warnings = load_mcp_json(path)
    assert servers == [] and "invalid JSON at line 1" in warnings[0]
    path.write_text('{"servers": {}}')
    assert 'expected an object with "mcpServers"' in load_mcp_json(path)[1][0]


def test_url_variables_are_expanded_before_the_scheme_check() -> None:
    environ = {"API_BASE": "https://api.example.com"}
    server = parse_server("api", {"type": "http", "url": "${API_BASE}/mcp"}, "test", environ)
    assert server.url == "https://api.example.com/mcp"
    defaulted = parse_server("api", {"url": "${MISSING:-http://localhost:9}/mcp"}, "test", {})
    assert defaulted.url == "http://localhost:9/mcp"
    with pytest.raises(McpConfigError, match="http:// or https://"):
        parse_server("api", {"type": "http", "url": "${API_BASE}/mcp"}, "test", {"API_BASE": "ftp://h"})


def test_settings_and_acp_shapes() -> None:
    servers, warnings = settings_servers({"servers": {"s": {"command": "srv", "env": {"K": "v"}}}})
    assert servers[0].env == {"K": "v"} and warnings == []
    acp, problems = acp_servers(
        [
            {"name": "a", "command": "srv", "args": [], "env": [{"name": "K", "value": "v"}]},
            {"name": "b", "type": "http", "url": "http://h/mcp", "headers": [{"name": "H", "value": "1"}]},
            "nonsense",
        ]
    )
    assert acp[0].env == {"K": "v"} and acp[1].headers == {"H": "1"}
    assert len(problems) == 1


def test_tool_names_are_sanitized_and_results_capped() -> None:
    assert tool_name_for("my server", "get.file") == "mcp__my_server__get_file"
    assert cap("abc", 5) == "abc"
    assert cap("abcdefgh", 5) == "abcde\n[output truncated: 3 more characters]"


json_values: Any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@given(st.text(max_size=8), json_values)
def test_parse_server_only_raises_config_errors(name: str, raw: Any) -> None:
    try:
        parse_server(name, raw, "test")
    except McpConfigError as exc:
        assert str(exc).startswith("test")
