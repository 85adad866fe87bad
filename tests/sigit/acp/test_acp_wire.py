"""Raw JSON-RPC on the wire: bad lines get spec error replies, the server keeps serving, EOF ends it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from .conftest import SIGIT, agent_env, write_scenario


async def _exchange(tmp_path: Path, config_dir: Path, lines: list[bytes], replies: int) -> tuple[
        list[dict[str, Any]], int]:
    scenario = write_scenario(tmp_path / "s.json", [])
    proc = await asyncio.create_subprocess_exec(
        SIGIT, "acp", "--model", f"scripted:{scenario}", env=agent_env(config_dir),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for line in lines:
        proc.stdin.write(line)
    await proc.stdin.drain()
    out = []
    for _ in range(replies):
        out.append(json.loads(await asyncio.wait_for(proc.stdout.readline(), 10)))
    proc.stdin.close()
    code = await asyncio.wait_for(proc.wait(), 10)
    return out, code


async def test_malformed_lines_get_errors_and_the_server_keeps_serving(
    tmp_path: Path, config_dir: Path
) -> None:
    replies, code = await _exchange(tmp_path, config_dir, [
        b"this is not json\n",
        b"[1, 2]\n",
        b'"a string"\n',
        b'{"jsonrpc": "2.0", "id": 7, "method": "no/such_method", "params": {}}\n',
        b'{"jsonrpc": "2.0", "id": 8, "method": "session/prompt", "params": {"sessionId": "nope", '
        b'"prompt": []}}\n',
        b'{"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    ], 6)
    parse, batch, scalar, unknown, bad_session, init = replies
    assert parse == {"jsonrpc": "2.0", "id": None, "error": parse["error"]}
    assert parse["error"]["code"] == -32700
    assert batch["error"]["code"] == -32600 and batch["id"] is None
    assert scalar["error"]["code"] == -32600
    assert unknown["id"] == 7 and unknown["error"]["code"] == -32601
    assert bad_session["id"] == 8 and bad_session["error"]["code"] == -32602
    assert init["id"] == 9 and init["result"]["agentInfo"]["name"] == "sigit"
    assert code == 0


async def test_invalid_params_are_reported_as_such(tmp_path: Path, config_dir: Path) -> None:
    replies, code = await _exchange(tmp_path, config_dir, [
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": 5}}\n',
        b'{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "relative/dir", '
        b'"mcpServers": []}}\n',
    ], 2)
    assert [r["error"]["code"] for r in replies] == [-32602, -32602]
    assert "absolute" in json.dumps(replies[1])
    assert code == 0
