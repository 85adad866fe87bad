"""`sigit mcp` as a real subprocess, driven by the mcp SDK's own client: one HTTP server per module,
stdio servers where the transport itself is tested."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

SIGIT = str(Path(sys.executable).parent / "sigit")
PLANTED_MCP = Path(__file__).resolve().parents[1] / "extensions" / "mcp_server_fixture.py"


def server_env(config: Path) -> dict[str, str]:
    """The server's environment: its config dir, and its state dir (logs, the HTTP token) beside it."""
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(config), "SIGIT_STATE_DIR": str(config.parent / "state"),
           "HF_HUB_OFFLINE": "1"}
    env.pop("SIGIT_PERMISSION_DEFAULT", None)
    return env


def token_of(config: Path) -> str:
    """The bearer token an HTTP server with this config dir made (in its state dir)."""
    return (config.parent / "state" / "mcp-token").read_text().strip()


@contextlib.asynccontextmanager
async def http_client(url: str, token: str | None, **options: Any) -> AsyncIterator[Client]:
    """The mcp SDK's client over streamable HTTP, sending `Authorization: Bearer TOKEN` (None: no header)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    http = create_mcp_http_client(headers=headers)
    async with http, Client(streamable_http_client(url, http_client=http), **options) as client:
        yield client


def scripted(folder: Path, turns: list[Any]) -> str:
    """A scenario file for the scripted model, named for `run_task`'s `model` argument."""
    path = folder / f"scenario{len(list(folder.glob('scenario*')))}.json"
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


@dataclass
class HttpServer:
    url: str
    root: Path
    proc: subprocess.Popen[str]
    stderr: list[str] = field(default_factory=list)

    def workspace(self, name: str) -> Path:
        """A folder inside the server's root (`--cwd ROOT/home`): a call may name it as its workspace."""
        path = self.root / "home" / name
        path.mkdir()
        return path

    def client(self, **options: Any) -> contextlib.AbstractAsyncContextManager[Client]:
        """A client that sends the server's bearer token."""
        return http_client(self.url, token_of(self.root / "config"), **options)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """`sigit mcp --port 0` in the default permission mode, with no rules: what would ask is refused
    unless the client answers an elicitation."""
    root = tmp_path_factory.mktemp("mcp-http")
    (root / "home").mkdir()
    proc = subprocess.Popen(
        [SIGIT, "mcp", "--port", "0", "--cwd", str(root / "home")],
        cwd=root / "home",
        env=server_env(root / "config"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    ready = threading.Event()
    url: list[str] = []

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "serving MCP on " in line:
                url.append(line.split("serving MCP on ", 1)[1].strip())
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    ready.wait(90)
    assert url, "".join(lines)
    try:
        yield HttpServer(url[0], root, proc, lines)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        assert proc.stdout is not None and proc.stdout.read() == ""  # HTTP: nothing on stdout


def running_sleeps(marker: str) -> list[int]:
    """Pids of processes running `sleep MARKER` (a sandbox's pid namespace hides nothing from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", marker.encode()]:
            found.append(int(entry.name))
    return found


def wait_until(check: Any, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())
