"""A recording ACP client and a helper that runs `sigit acp` on a scripted model: its server (`_serve`, what
`sigit acp` runs once its stdio is set up) in this process over a socket pair, or, where a test is about
the process and its stdio, the real `sigit acp` as a subprocess."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast
from unittest import mock

import acp
import pytest
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

SIGIT = str(Path(sys.executable).with_name("sigit"))
# How the tests spawn `sigit acp`: its stderr to the terminal, and as long to exit after stdin closes as
# the agent gives its sessions to close (5 s each). The acp library's default, 2 s, then terminates a
# process that may exit in the meantime, and its terminate() raises ProcessLookupError (a loaded run).
TRANSPORT: dict[str, object] = {"stderr": None, "shutdown_timeout": 30.0}


class RecordingClient:
    """Answers permission requests with `choice` and records every update it receives."""

    def __init__(self, choice: str | None = "allow_once") -> None:
        self.choice = choice
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[Any] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminal_calls: list[tuple[str, Any]] = []
        self.terminals: dict[str, asyncio.subprocess.Process] = {}
        self._outputs: dict[str, bytearray] = {}
        self._pumps: dict[str, asyncio.Task[None]] = {}
        self._ids = itertools.count(1)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kw: Any
                                 ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        if self.choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.choice))

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append((session_id, update))

    async def read_text_file(self, session_id: str, path: str, **kw: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any
                              ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        Path(path).write_text(content)
        return WriteTextFileResponse()

    # a terminal that really runs the command, like an editor's

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: Any = None, cwd: str | None = None, output_byte_limit: int | None = None,
                              **kw: Any) -> CreateTerminalResponse:
        self.terminal_calls.append(("create", (command, args, cwd, output_byte_limit)))
        terminal_id = f"term-{next(self._ids)}"
        extra = {v.name: v.value for v in env or ()}
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL, env={**os.environ, **extra}, start_new_session=True,
        )
        self.terminals[terminal_id] = proc
        buffer = self._outputs[terminal_id] = bytearray()

        async def pump() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(4096):
                buffer.extend(chunk)

        self._pumps[terminal_id] = asyncio.ensure_future(pump())
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kw: Any
                                     ) -> WaitForTerminalExitResponse:
        self.terminal_calls.append(("wait", terminal_id))
        code = await self.terminals[terminal_id].wait()
        await asyncio.wait({self._pumps[terminal_id]}, timeout=0.5)
        return WaitForTerminalExitResponse(exit_code=code if code >= 0 else None,
                                           signal=None if code >= 0 else f"signal {-code}")

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> TerminalOutputResponse:
        self.terminal_calls.append(("output", terminal_id))
        proc = self.terminals[terminal_id]
        status = None
        if proc.returncode is not None:
            await asyncio.wait({self._pumps[terminal_id]}, timeout=0.5)
            code = proc.returncode
            status = TerminalExitStatus(exit_code=code if code >= 0 else None,
                                        signal=None if code >= 0 else f"signal {-code}")
        return TerminalOutputResponse(output=self._outputs[terminal_id].decode(), truncated=False,
                                      exit_status=status)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> KillTerminalResponse:
        self.terminal_calls.append(("kill", terminal_id))
        await self._kill(self.terminals[terminal_id])
        return KillTerminalResponse()

    @staticmethod
    async def _kill(proc: asyncio.subprocess.Process) -> None:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> ReleaseTerminalResponse:
        self.terminal_calls.append(("release", terminal_id))
        await self._kill(self.terminals.pop(terminal_id))
        self._pumps.pop(terminal_id).cancel()
        return ReleaseTerminalResponse()

    def as_client(self) -> acp.Client:
        """Typed as the SDK's Client (the elicitation and extension methods it never receives are absent)."""
        return cast(acp.Client, self)

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u.session_update for s, u in self.updates if session_id in (None, s)]

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    async def wait_for(self, kind: str, count: int = 1) -> list[Any]:
        """The updates of `kind` once `count` of them came: notifications may trail the reply they belong to."""
        for _ in range(500):
            if len(found := self.of(kind)) >= count:
                return found
            await asyncio.sleep(0.01)
        raise AssertionError(f"fewer than {count} {kind!r} updates came: {self.updates!r}")

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


def write_scenario(path: Path, turns: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"turns": turns}))
    return path


def agent_env(config_dir: Path) -> dict[str, str]:
    env = {"SIGIT_CONFIG_DIR": str(config_dir), "PATH": os.environ.get("PATH", "")}
    for name in ("QWEN_RUNTIME_THREADS", "SIGIT_CACHE_DIR", "SIGIT_KEEP_ALIVE"):  # no model host outlives a test
        if name in os.environ:
            env[name] = os.environ[name]
    if "PYTHONPATH" in os.environ:  # the agent imports what the tests import
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


@asynccontextmanager
async def running_agent(
    client: RecordingClient, scenario: Path, config_dir: Path, *extra: str, fs: bool = False,
    terminal: bool = False, process: bool = False,
) -> AsyncIterator[acp.core.ClientSideConnection]:
    """An initialized connection to `sigit acp --model scripted:SCENARIO EXTRA...`: in this process, or
    with `process`, a real subprocess on stdio (what starting, stdio and exiting have to do with it)."""
    args = ["acp", "--model", f"scripted:{scenario}", *extra]
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal)
    if process:
        async with acp.spawn_agent_process(
            client.as_client(), SIGIT, *args, env=agent_env(config_dir), transport_kwargs=TRANSPORT,
        ) as (conn, _process):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
            yield conn
        return
    async with agent_in_process(client, args, config_dir) as conn:
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
        yield conn


@asynccontextmanager
async def agent_in_process(
    client: RecordingClient, argv: list[str], config_dir: Path, env: dict[str, str | None] | None = None,
) -> AsyncIterator[acp.core.ClientSideConnection]:
    """An ACP client connection to `sigit ARGV` served in this process (`served_in_process`)."""
    async with served_in_process(argv, config_dir, env) as (reader, writer):
        conn = acp.core.ClientSideConnection(client.as_client(), writer, reader)
        try:
            yield conn
        finally:
            await conn.close()


@asynccontextmanager
async def served_in_process(
    argv: list[str], config_dir: Path, env: dict[str, str | None] | None = None,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """`sigit ARGV` (`acp ...`) served in this process: the command line goes through `sigit.cli.main` up
    to where it calls `frontends.acp.serve` (which would set up the process's stdio), and the arguments
    it would serve with go to `frontends.acp._serve` on this loop, its JSON-RPC transport on one end of a
    socket pair instead of the process's stdin and a duplicate of fd 1; yields the other end (what the
    agent writes, what it reads). Leaving the block ends the agent's input, as an editor closes its stdin,
    and waits for the server to finish; an exception the server raises fails the test (the process would
    have logged it and exited 1). `env`: variables set (None: unset) while it runs, besides
    SIGIT_CONFIG_DIR=`config_dir`."""
    from sigit import cli
    from sigit.frontends import acp as acp_frontend
    from sigit.frontends.acp import transport

    from ..in_process import process_state_kept

    assert argv[:1] == ["acp"]
    parsed: list[Any] = []

    def serve(args: Any) -> int:
        parsed.append(args)
        return 0

    with mock.patch.object(acp_frontend, "serve", serve):
        code = cli.main(list(argv))
    assert parsed, f"sigit {' '.join(argv)} exited {code} before serving"
    args = parsed[0]
    ours, theirs = socket.socketpair()
    server_reader, server_writer = await asyncio.open_connection(sock=ours, limit=transport.LINE_LIMIT)
    client_reader, client_writer = await asyncio.open_connection(sock=theirs)

    async def open_stdio(protocol_fd: int, limit: int = transport.LINE_LIMIT) -> transport.JsonRpcStdioTransport:
        return transport.JsonRpcStdioTransport(server_reader, server_writer, limit)

    # what `agent_env` gives the subprocess that matters to sigit; the rest of os.environ stays as it is
    variables: dict[str, str | None] = {"SIGIT_CONFIG_DIR": str(config_dir), "SIGIT_PERMISSION_DEFAULT": None,
                                        **(env or {})}
    with process_state_kept(variables, capture_stdio=False), mock.patch.object(transport, "open_stdio", open_stdio):
        server = asyncio.ensure_future(acp_frontend._serve(args, -1))
        # a server that fails ends the connection, so the client's pending requests fail instead of waiting
        server.add_done_callback(lambda _: client_writer.close())
        try:
            yield client_reader, client_writer
        finally:
            # as spawn_agent_process closes the agent's stdin and leaves its stdout open until it exits
            with contextlib.suppress(OSError):
                client_writer.write_eof()
            try:
                await asyncio.wait_for(asyncio.shield(server), float(TRANSPORT["shutdown_timeout"]))  # type: ignore[arg-type]
            finally:
                client_writer.close()
                server_writer.close()


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    path = tmp_path / "config"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path
