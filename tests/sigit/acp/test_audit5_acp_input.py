"""The fifth audit (issue 49) on the ACP server's input: `session/new` with a working folder that is no
folder to work in (a relative path, a file, a missing folder, a NUL byte, a wrong type) gets an error reply
and the server keeps serving; one whose cwd is `/` still keeps siGit's own configuration out of reach."""

from __future__ import annotations

import json
from pathlib import Path

from .test_acp_wire import _exchange

INIT = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n'


def _new(request_id: int, cwd: object) -> bytes:
    params = {"cwd": cwd, "mcpServers": []}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "session/new", "params": params}).encode() + b"\n"


async def test_session_new_with_a_bad_cwd_is_an_error_reply_and_the_server_keeps_serving(
    tmp_path: Path, config_dir: Path
) -> None:
    (tmp_path / "a-file").write_text("x")
    work = tmp_path / "work"
    work.mkdir()
    bad = ["relative/dir", str(tmp_path / "a-file"), str(tmp_path / "missing"), "/tmp/x\u0000y", 42, None]
    lines = [INIT, *(_new(10 + i, cwd) for i, cwd in enumerate(bad)), _new(99, str(work))]
    replies, code = await _exchange(tmp_path, config_dir, lines, len(lines))
    by_id = {reply["id"]: reply for reply in replies}
    for i, cwd in enumerate(bad):
        assert "error" in by_id[10 + i], (cwd, by_id[10 + i])
    assert by_id[99]["result"]["sessionId"], by_id[99]
    assert code == 0
