"""The real Claude Agent SDK driving `sigit` (its `cli_path`) on a scripted model.

The SDK starts its CLI with `anyio.open_process` and then only talks to the process's stdin and
stdout (the control protocol and stream-json): here that start runs `sigit.cli.main(argv)` in a thread
of the test process instead, on OS pipes in place of the process's stdio, with the argv, environment
and working directory the SDK gave the process (`cli_in_process`). Every SDK test goes through the SDK
unchanged, its command line and environment included; a test that asks for the fixture
`real_cli_process` gets the real `sigit` process, for the process's own part (it starts, speaks on its
stdio and exits when stdin closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import anyio
import anyio.abc
import pytest
from claude_agent_sdk import ClaudeAgentOptions

SIGIT = str(Path(sys.executable).with_name("sigit"))

MakeOptions = Callable[..., ClaudeAgentOptions]


class _PipeReceive(anyio.abc.ByteReceiveStream):
    """The SDK's end of the CLI's stdout (or stderr), as anyio's process streams are: an asyncio reader."""

    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.BaseTransport) -> None:
        self._reader, self._transport = reader, transport

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._reader.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        self._transport.close()


class _PipeSend(anyio.abc.ByteSendStream):
    """The SDK's end of the CLI's stdin."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def send(self, item: bytes) -> None:
        self._writer.write(item)
        await self._writer.drain()

    async def aclose(self) -> None:
        self._writer.close()


class InProcessCli:
    """What `anyio.open_process([sigit, *argv], ...)` returns to the SDK, with `sigit.cli.main(argv)`
    running in a thread of this process on pipes for its stdin, stdout and (when the SDK pipes it)
    stderr. Its returncode is main's. An exception main lets out is kept (`failure`), and fails the test."""

    running: InProcessCli | None = None
    """The one whose thread runs: sys.stdin/stdout, os.environ and the working directory are the whole
    process's, so two at once would share them."""

    def __init__(self, argv: Sequence[str], cwd: str | None, env: dict[str, str], pipe_stderr: bool) -> None:
        self.argv, self.cwd, self.env, self.pipe_stderr = list(argv), cwd, env, pipe_stderr
        self.pid = os.getpid()
        self.returncode: int | None = None
        self.failure: str | None = None
        self.signals: list[str] = []
        self._finished = asyncio.Event()
        self._thread = threading.Thread(target=self._run, name=f"sigit {' '.join(self.argv)[:60]}", daemon=True)

    async def start(self) -> InProcessCli:
        assert InProcessCli.running is None, "two in-process sigit CLIs at once would share the process's stdio"
        loop = asyncio.get_running_loop()
        self._loop = loop
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe() if self.pipe_stderr else (-1, -1)
        self._ends = (stdin_r, stdout_w, stderr_w)
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(stdin_w, "wb", buffering=0))
        self.stdin = _PipeSend(asyncio.StreamWriter(transport, protocol, None, loop))
        self.stdout = await self._receiving(stdout_r)
        self.stderr = await self._receiving(stderr_r) if self.pipe_stderr else None
        InProcessCli.running = self
        self._thread.start()
        return self

    async def _receiving(self, fd: int) -> _PipeReceive:
        reader = asyncio.StreamReader()
        transport, _ = await self._loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                          os.fdopen(fd, "rb", buffering=0))
        return _PipeReceive(reader, transport)

    def _run(self) -> None:
        from sigit import cli

        from ..in_process import process_state_kept

        stdin_r, stdout_w, stderr_w = self._ends
        stdin = open(stdin_r, encoding="utf-8")  # noqa: SIM115  # sigit's stdin reader thread owns it after
        stdout = open(stdout_w, "w", encoding="utf-8", errors="strict")  # noqa: SIM115
        stderr = open(stderr_w, "w", encoding="utf-8", errors="backslashreplace") if self.pipe_stderr else None  # noqa: SIM115
        saved = sys.stdin, sys.stdout, sys.stderr
        changed: dict[str, str | None] = {k: v for k, v in self.env.items() if os.environ.get(k) != v}
        changed.update({k: None for k in os.environ if k not in self.env})
        code = 1
        try:
            with process_state_kept(changed, self.cwd, capture_stdio=False):
                sys.stdin, sys.stdout = stdin, stdout
                if stderr is not None:
                    sys.stderr = stderr
                try:
                    code = cli.main(self.argv)
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
                except BaseException:
                    self.failure = traceback.format_exc()
                    print(self.failure, file=sys.stderr)
                finally:
                    cli._one_shot_done = False
                    sys.stdin, sys.stdout, sys.stderr = saved
        finally:
            for stream in (stdout, stderr):  # EOF for the SDK's readers
                if stream is not None:
                    # OSError: the SDK stopped reading, and the process's last write would have failed too
                    with contextlib.suppress(OSError):
                        stream.close()
            self.returncode = code
            InProcessCli.running = None
            with contextlib.suppress(RuntimeError):  # the test's loop is gone: nobody waits any more
                self._loop.call_soon_threadsafe(self._finished.set)

    async def wait(self) -> int:
        await self._finished.wait()
        assert self.returncode is not None
        return self.returncode

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # the SDK signals a CLI that has not exited 5 s after its stdin closed; a thread cannot be signalled:
    # the fixture fails the test when the thread outlives it
    def terminate(self) -> None:
        self.signals.append("SIGTERM")

    def kill(self) -> None:
        self.signals.append("SIGKILL")

    def send_signal(self, signal: int) -> None:
        self.signals.append(str(signal))


@pytest.fixture(autouse=True)
def cli_in_process(request: pytest.FixtureRequest) -> Iterator[list[InProcessCli]]:
    """The SDK's CLI process, `sigit`, run in this process (the module's docstring); the ones started, in
    order. Not for a test that asks for `real_cli_process`."""
    started: list[InProcessCli] = []
    if "real_cli_process" in request.fixturenames:
        yield started
        return
    from claude_agent_sdk._internal.transport import subprocess_cli

    real_anyio = getattr(subprocess_cli, "anyio")  # noqa: B009  # the module's import of anyio, not re-exported

    async def open_process(command: Sequence[str], *, stdin: Any = None, stdout: Any = None, stderr: Any = None,
                           cwd: Any = None, env: dict[str, str] | None = None, **kwargs: Any) -> Any:
        if command[0] != SIGIT:
            return await real_anyio.open_process(command, stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd,
                                                 env=env, **kwargs)
        cli = InProcessCli(command[1:], None if cwd is None else str(cwd), dict(os.environ if env is None else env),
                           pipe_stderr=stderr is not None)
        started.append(cli)
        return await cli.start()

    class AnyioForTheSdk:
        """anyio as subprocess_cli sees it: `open_process` ours, everything else anyio's."""

        def __getattr__(self, name: str) -> Any:
            return open_process if name == "open_process" else getattr(real_anyio, name)

    with mock.patch.object(subprocess_cli, "anyio", AnyioForTheSdk()):
        yield started
    for cli in started:
        assert cli.join(30), f"sigit {cli.argv} still runs after the test (signals sent: {cli.signals})"
        assert cli.failure is None, cli.failure


@pytest.fixture
def real_cli_process() -> None:
    """Asked for by a test that wants the SDK to start the real `sigit` process."""


@pytest.fixture
def sdk_options(workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MakeOptions:
    """`sdk_options(turns, **options)`: ClaudeAgentOptions that start our `sigit` in `workdir` with
    a scripted model playing `turns` (the format of `scripted:FILE.json`)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK", "1")
    count = 0

    def make(turns: list[dict[str, Any]], **options: Any) -> ClaudeAgentOptions:
        nonlocal count
        count += 1
        scenario = tmp_path / f"scenario{count}.json"
        scenario.write_text(json.dumps({"turns": turns}))
        stderr = options.pop("stderr", None)
        return ClaudeAgentOptions(cli_path=SIGIT, cwd=workdir, model=f"scripted:{scenario}", stderr=stderr,
                                  **options)

    return make
