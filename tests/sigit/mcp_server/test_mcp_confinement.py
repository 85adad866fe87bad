"""Issue 49 families 5 and 6, the way another local user or a caller would try them: `sigit mcp --port`
answers no request without its bearer token (kept 0600 in the state dir, printed once with the lines
that register it), and a call's `workspace` or `cwd` may only narrow the roots fixed at start
(`--cwd`, `--add-dir`): a folder outside them is refused, and its files are not read."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client, StdioServerParameters

from .conftest import SIGIT, http_client, scripted, server_env, token_of

pytestmark = pytest.mark.slow

SECRET = "the-secret-42"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "other-user", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@contextmanager
def http_server(root: Path, *flags: str) -> Iterator[tuple[str, list[str]]]:
    """`sigit mcp --port 0` with its config and state under `root`: (its URL, its stderr lines so far)."""
    (root / "home").mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [SIGIT, "mcp", "--port", "0", "--cwd", str(root / "home"), *flags],
        cwd=root / "home", env=server_env(root / "config"),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if "serving MCP on " in line:
                threading.Timer(0.5, ready.set).start()  # the lines printed with it
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    ready.wait(90)
    url = next((line.split("serving MCP on ", 1)[1].strip() for line in lines if "serving MCP on " in line), "")
    try:
        assert url, "\n".join(lines)
        yield url, lines
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def post(url: str, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **(headers or {})}, timeout=30)


async def test_http_answers_nobody_without_the_token(tmp_path: Path) -> None:
    with http_server(tmp_path) as (url, said):
        path = tmp_path / "state" / "mcp-token"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        token = token_of(tmp_path / "config")
        told = "\n".join(said)
        assert token in told and str(path) in told  # printed the run it is made ...
        assert f'claude mcp add --transport http --header "Authorization: Bearer {token}" sigit {url}' in told
        assert "bearer_token_env_var" in told and "codex" in told.lower()

        nobody = post(url)
        assert nobody.status_code == 401 and "Bearer" in nobody.headers["www-authenticate"]
        assert post(url, {"Authorization": "Bearer wrong"}).status_code == 401
        assert post(url, {"Authorization": f"Basic {token}"}).status_code == 401
        assert post(url, {"Authorization": f"Bearer {token}"}).status_code == 200

        (tmp_path / "home" / "mine.txt").write_text(SECRET)
        async with http_client(url, token, mode="legacy") as client:
            read = await client.call_tool("read_file", {"path": "mine.txt"})
        assert not read.is_error and SECRET in read.content[0].text  # type: ignore[union-attr]
        with pytest.raises(Exception):  # noqa: B017 - the SDK's transport error for a 401
            async with http_client(url, None, mode="legacy") as client:
                await client.call_tool("read_file", {"path": "mine.txt"})

    with http_server(tmp_path) as (url, said):  # ... and only then: the next run keeps it and names the file
        assert token_of(tmp_path / "config") == token
        assert token not in "\n".join(said) and str(path) in "\n".join(said)
        assert post(url, {"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_token_file_others_could_read_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "state" / "mcp-token"
    path.parent.mkdir()
    path.write_text("A" * 43 + "\n")
    os.chmod(path, 0o644)
    with http_server(tmp_path) as (url, said):
        token = token_of(tmp_path / "config")
        assert token != "A" * 43 and stat.S_IMODE(path.stat().st_mode) == 0o600
        assert token in "\n".join(said)
        assert post(url, {"Authorization": "Bearer " + "A" * 43}).status_code == 401


def test_no_auth_is_loopback_only_and_warned_about(tmp_path: Path) -> None:
    with http_server(tmp_path, "--no-auth") as (url, said):
        assert url.startswith("http://127.0.0.1:")
        assert any("warning" in line and "--no-auth" in line for line in said), said
        assert post(url).status_code == 200
        assert not (tmp_path / "state" / "mcp-token").exists()
    stdio_only = subprocess.run([SIGIT, "mcp", "--no-auth"], env=server_env(tmp_path / "config"),
                                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert stdio_only.returncode == 2 and "--port" in stdio_only.stderr


def stdio(work: Path, config: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=SIGIT, args=["mcp", "--cwd", str(work), *flags], env=server_env(config), cwd=str(work)
    )


async def test_a_call_may_narrow_the_roots_never_widen_them(tmp_path: Path) -> None:
    work, extra, outside, config = tmp_path / "work", tmp_path / "extra", tmp_path / "outside", tmp_path / "config"
    for folder in (work / "sub", extra, outside):
        folder.mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET)
    (work / "sub" / "inner.txt").write_text("inner\n")
    (extra / "extra.txt").write_text("extra\n")
    (work / "link").symlink_to(outside)  # a folder inside a root that leads out of it
    model = scripted(tmp_path, [{"tool_calls": [{"name": "read_file", "arguments": {"path": "secret.txt"}}]},
                                {"text": "read it"}])
    # accept-edits, the recommended registration: reads inside the workspace ask nothing
    server = stdio(work, config, "--permission-mode", "accept-edits", "--add-dir", str(extra))
    async with Client(server, mode="legacy") as client:
        for where in (outside, work / "link", tmp_path, Path("/")):
            refused = await client.call_tool("read_file", {"path": "secret.txt", "workspace": str(where)})
            text = refused.content[0].text  # type: ignore[union-attr]
            assert refused.is_error and "outside the folders this server serves" in text, text
            assert SECRET not in text
        task = await client.call_tool("run_task", {"prompt": "read secret.txt", "cwd": str(outside), "model": model})
        assert task.is_error and "outside the folders this server serves" in task.content[0].text  # type: ignore[union-attr]
        assert SECRET not in json.dumps(task.structured_content or {})
        # narrowing works: a folder inside --cwd, or inside an --add-dir
        inner = await client.call_tool("read_file", {"path": "inner.txt", "workspace": str(work / "sub")})
        assert not inner.is_error and "inner" in inner.content[0].text  # type: ignore[union-attr]
        added = await client.call_tool("read_file", {"path": "extra.txt", "workspace": str(extra)})
        assert not added.is_error and "extra" in added.content[0].text  # type: ignore[union-attr]
        # and an absolute path out of the roots is the permission policy's: it asks, and nobody can be asked
        direct = await client.call_tool("read_file", {"path": str(outside / "secret.txt")})
        assert direct.is_error and SECRET not in direct.content[0].text  # type: ignore[union-attr]


async def test_a_saved_session_outside_the_roots_is_not_continued(tmp_path: Path) -> None:
    """A session another frontend saved in another folder (`sigit -p` there) is not a way out."""
    work, outside, config = tmp_path / "work", tmp_path / "outside", tmp_path / "config"
    work.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    there = subprocess.run(
        [SIGIT, "-p", "hi", "--model", scripted(tmp_path, ["hello"]), "--output-format", "json"],
        cwd=outside, env=server_env(config), capture_output=True, text=True, timeout=120,
    )
    assert there.returncode == 0, there.stderr
    session_id = json.loads(there.stdout)["session_id"]
    model = scripted(tmp_path, [{"tool_calls": [{"name": "read_file", "arguments": {"path": "secret.txt"}}]},
                                {"text": "read it"}])
    async with Client(stdio(work, config, "--permission-mode", "accept-edits"), mode="legacy") as client:
        task = await client.call_tool("run_task", {"prompt": "read secret.txt", "session_id": session_id,
                                                   "model": model})
    text = task.content[0].text  # type: ignore[union-attr]
    assert task.is_error and "outside the folders this server serves" in text, text
    assert SECRET not in json.dumps(task.structured_content or {}) and SECRET not in text
