"""Raw JSON-RPC on the wire: bad lines get spec error replies, the server keeps serving, EOF ends it.

The exchanges go to the server in this process over a socket pair (`served_in_process`: the same
transport reading the same bytes), except where the process is the point: a real `sigit acp` on pipes
(one exchange, and a line too long to hold, measured in the process's memory) or with stdin a regular file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from .conftest import SIGIT, agent_env, served_in_process, write_scenario


async def _exchange(tmp_path: Path, config_dir: Path, lines: list[bytes], replies: int, *,
                    process: bool = False) -> tuple[list[dict[str, Any]], int]:
    """The first `replies` lines the agent answers `lines` with, and its exit code once its input ended
    (in this process: 0 when the server returned, as `sigit acp` then exits 0; an exception fails the test)."""
    scenario = write_scenario(tmp_path / "s.json", [])
    if not process:
        async with served_in_process(["acp", "--model", f"scripted:{scenario}"], config_dir) as (reader, writer):
            for line in lines:
                writer.write(line)
            await writer.drain()
            out = [json.loads(await asyncio.wait_for(reader.readline(), 60)) for _ in range(replies)]
        return out, 0
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
        # bounds on the agent's answers, not waits: a loaded machine starts `sigit acp` in more than 10 s
        out.append(json.loads(await asyncio.wait_for(proc.stdout.readline(), 60)))
    proc.stdin.close()
    code = await asyncio.wait_for(proc.wait(), 60)
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
    ], 6, process=True)
    parse, batch, scalar, unknown, bad_session, init = replies
    assert parse == {"jsonrpc": "2.0", "id": None, "error": parse["error"]}
    assert parse["error"]["code"] == -32700
    assert batch["error"]["code"] == -32600 and batch["id"] is None
    assert scalar["error"]["code"] == -32600
    assert unknown["id"] == 7 and unknown["error"]["code"] == -32601
    assert bad_session["id"] == 8 and bad_session["error"]["code"] == -32602
    assert init["id"] == 9 and init["result"]["agentInfo"]["name"] == "sigit"
    assert code == 0


async def test_a_deeply_nested_line_is_a_parse_error_and_the_server_keeps_serving(
    tmp_path: Path, config_dir: Path
) -> None:
    replies, code = await _exchange(tmp_path, config_dir, [
        b"[" * 200_000 + b"\n",
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    ], 2)
    nested, init = replies
    assert nested["id"] is None and nested["error"]["code"] == -32700
    assert "nested too deeply" in nested["error"]["data"]["details"]
    assert init["id"] == 1 and init["result"]["agentInfo"]["name"] == "sigit"
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


async def test_a_bad_protocol_version_is_invalid_params_and_a_good_one_still_works(
    tmp_path: Path, config_dir: Path
) -> None:
    replies, code = await _exchange(tmp_path, config_dir, [
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "one"}}\n',
        b'{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": -1}}\n',
        b'{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    ], 3)
    one, negative, good = replies
    assert one["id"] == 1 and one["error"]["code"] == -32602 and "protocolVersion" in json.dumps(one)
    assert negative["id"] == 2 and negative["error"]["code"] == -32602
    assert "protocolVersion" in json.dumps(negative)
    assert good["id"] == 3 and good["result"]["protocolVersion"] == 1
    assert code == 0


async def test_the_capabilities_say_http_and_sse_mcp_servers_work(tmp_path: Path, config_dir: Path) -> None:
    [reply], _ = await _exchange(tmp_path, config_dir, [
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n'], 1)
    assert reply["result"]["agentCapabilities"]["mcpCapabilities"] == {"http": True, "sse": True}


async def test_a_300_mib_line_is_dropped_without_being_held_and_the_next_request_is_served(
    tmp_path: Path, config_dir: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [])
    proc = await asyncio.create_subprocess_exec(
        SIGIT, "acp", "--model", f"scripted:{scenario}", env=agent_env(config_dir),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    chunk = b"x" * (1 << 20)
    for _ in range(300):  # streamed: the test never holds the line either
        proc.stdin.write(chunk)
        await proc.stdin.drain()
    proc.stdin.write(b'\n{"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": 1}}\n')
    await proc.stdin.drain()
    dropped = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
    served = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
    with open(f"/proc/{proc.pid}/status") as status:
        peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    proc.stdin.close()
    assert await asyncio.wait_for(proc.wait(), 10) == 0
    assert dropped["id"] is None and dropped["error"]["code"] == -32600
    assert "longer than" in dropped["error"]["data"]["details"]
    assert served["id"] == 5 and served["result"]["agentInfo"]["name"] == "sigit"
    assert peak_kib < 300 * 1024  # far less than the line: it was skipped, not gathered


async def test_stdin_from_a_regular_file_is_served_and_bounded_too(tmp_path: Path, config_dir: Path) -> None:
    scenario = write_scenario(tmp_path / "s.json", [])
    source = tmp_path / "in.jsonl"
    with open(source, "wb") as handle:
        handle.write(b"y" * (51 * 1024 * 1024) + b"\n")  # just over the 50 MiB limit
        handle.write(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n')
    with open(source, "rb") as stdin:
        proc = await asyncio.create_subprocess_exec(
            SIGIT, "acp", "--model", f"scripted:{scenario}", env=agent_env(config_dir),
            stdin=stdin, stdout=asyncio.subprocess.PIPE,
        )
    assert proc.stdout is not None
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    dropped, served = (json.loads(line) for line in out.splitlines())
    assert dropped["error"]["code"] == -32600 and dropped["id"] is None
    assert served["id"] == 1 and "agentCapabilities" in served["result"]
    assert proc.returncode == 0


async def test_lone_surrogates_and_nan_get_clear_errors_and_the_server_keeps_serving(
    tmp_path: Path, config_dir: Path
) -> None:
    """Issue 28: one line `{"id":"\\ud800","method":"x"}` killed `sigit acp` (UnicodeEncodeError writing the
    reply); a lone surrogate in method or params got no answer; NaN could reach a reply."""
    replies, code = await _exchange(tmp_path, config_dir, [
        b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "x"}\n',
        b'{"jsonrpc": "2.0", "id": 2, "method": "x\\udfff", "params": {}}\n',
        b'{"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {"cwd": "/\\ud800", "mcpServers": []}}\n',
        b'{"jsonrpc": "2.0", "id": NaN, "method": "x"}\n',
        b'{"jsonrpc": "2.0", "id": 5, "method": "x", "params": {"n": Infinity}}\n',
        b'{"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    ], 6)
    surrogate_id, surrogate_method, surrogate_params, nan_id, infinity, init = replies
    assert surrogate_id["id"] is None and surrogate_id["error"]["code"] == -32600
    assert "lone surrogate" in surrogate_id["error"]["data"]["details"]
    assert surrogate_method["id"] == 2 and surrogate_method["error"]["code"] == -32600
    assert surrogate_params["id"] == 3 and "lone surrogate" in json.dumps(surrogate_params)
    assert nan_id["error"]["code"] == -32700 and "NaN is not a JSON value" in json.dumps(nan_id)
    assert infinity["error"]["code"] == -32700
    assert init["id"] == 6 and init["result"]["agentInfo"]["name"] == "sigit"
    assert code == 0


async def test_a_second_initialize_is_validated_like_the_first(tmp_path: Path, config_dir: Path) -> None:
    replies, code = await _exchange(tmp_path, config_dir, [
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n',
        b'{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "one"}}\n',
        b'{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": -1}}\n',
        b'{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    ], 4)
    first, named, negative, again = replies
    assert "result" in first and "result" in again
    for bad in (named, negative):
        assert bad["error"]["code"] == -32602 and "protocolVersion" in bad["error"]["data"], bad
    assert code == 0
