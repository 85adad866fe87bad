"""Stdio for the protocol, kept apart from everything else that might write to fd 1.

Any stray `print` (a library's, a hook's) would corrupt the stream, and llama-cpp-python with
verbose=False used to point fds 1 and 2 at /dev/null while a model loaded (qwen_runtime turns that off:
`keep_std_streams`): so the protocol writes to a private duplicate of fd 1, and fd 1 itself is pointed
at stderr before anything else runs.

The SDK's newline-delimited transport drops a line that is not JSON without answering, and a JSON
value that is not an object crashes its receive loop. JSON-RPC 2.0 wants -32700 (parse error) and
-32600 (invalid request) replies with `"id": null`; `JsonRpcStdioTransport` gives them and keeps
serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import stat
import sys
import threading
from typing import IO, Any, Protocol

from ...fileio import has_lone_surrogate, json_text
from .handshake import version_problem

log = logging.getLogger("sigit.acp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
LINE_LIMIT = 50 * 1024 * 1024
"""The longest message read; a longer line is dropped with an error, without being held whole."""


def isolate_stdout() -> int:
    """Duplicate fd 1 for the protocol and point fd 1 (and `sys.stdout`) at stderr."""
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


def error_reply(code: int, message: str, request_id: Any = None, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def check_message(line: bytes) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(message, None) for a usable JSON-RPC message, or (None, error reply) for a bad line."""
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        return None, error_reply(PARSE_ERROR, "Parse error", data={"details": f"not JSON: {exc}"})
    except RecursionError:  # not a ValueError: uncaught, it would end the SDK's receive loop
        return None, error_reply(PARSE_ERROR, "Parse error",
                                 data={"details": "not JSON this server reads: nested too deeply"})
    if isinstance(message, list):
        return None, error_reply(INVALID_REQUEST, "Invalid Request",
                                 data={"details": "batch requests are not supported"})
    if not isinstance(message, dict):
        return None, error_reply(INVALID_REQUEST, "Invalid Request",
                                 data={"details": f"expected a JSON object, got {type(message).__name__}"})
    request_id = message.get("id")
    if request_id is not None and (isinstance(request_id, bool) or not isinstance(request_id, str | int)):
        return None, error_reply(INVALID_REQUEST, "Invalid Request",
                                 data={"details": "id must be a string, a number or null"})
    if has_lone_surrogate(message):  # `"\ud800"`: JSON can spell it, but it is not Unicode text
        return None, error_reply(INVALID_REQUEST, "Invalid Request",
                                 request_id if not has_lone_surrogate(request_id) else None,
                                 data={"details": "the message holds a lone surrogate escape (\\ud800-\\udfff), "
                                                  "which is not Unicode text"})
    if message.get("jsonrpc") != "2.0":
        return None, error_reply(INVALID_REQUEST, "Invalid Request", request_id,
                                 data={"details": 'missing "jsonrpc": "2.0"'})
    if "method" in message:
        if not isinstance(message["method"], str):
            return None, error_reply(INVALID_REQUEST, "Invalid Request", request_id,
                                     data={"details": "method must be a string"})
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return None, error_reply(-32602, "Invalid params", request_id,
                                     data={"details": "params must be an object"})
        if message["method"] == "initialize" and isinstance(params, dict):  # every one, not only the first
            problem = version_problem(params.get("protocolVersion"))
            if problem is not None:
                return None, error_reply(-32602, "Invalid params", request_id, data={"protocolVersion": problem})
        return message, None
    if "id" in message and ("result" in message or "error" in message):
        return message, None  # a reply to one of our requests
    return None, error_reply(INVALID_REQUEST, "Invalid Request", request_id,
                             data={"details": "neither a request (method) nor a response (result/error)"})


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


class JsonRpcStdioTransport:
    """Newline-delimited JSON-RPC over asyncio streams that answers bad lines instead of dropping them."""

    def __init__(self, reader: asyncio.StreamReader, writer: ByteWriter, limit: int = LINE_LIMIT) -> None:
        self._reader = reader  # made with `limit`: the line length it refuses
        self._limit = limit
        self._writer = writer
        self._lock = asyncio.Lock()
        self._closed = False
        self._unread: list[dict[str, Any]] = []
        self._open_requests: set[Any] = set()
        self._all_answered = asyncio.Event()
        self._all_answered.set()

    def unread(self, message: dict[str, Any]) -> None:
        """Put a message back to be received again (after the fast initialize path looked at it)."""
        self._unread.append(message)

    async def wait_answered(self, timeout: float) -> None:
        """Wait until every request received so far has had its reply sent (or `timeout` passes)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_answered.wait(), timeout)

    async def send(self, message: dict[str, Any]) -> None:
        data = (json_text(message, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:
            if self._closed:
                raise ConnectionError("transport closed")
            self._writer.write(data)
            await self._writer.drain()
        if "method" not in message and ("result" in message or "error" in message):
            self._open_requests.discard(message.get("id"))
            if not self._open_requests:
                self._all_answered.set()

    async def receive(self) -> dict[str, Any] | None:
        if self._unread:
            return self._track(self._unread.pop())
        while True:
            line = await self._read_line()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            message, reply = check_message(line)
            if message is not None:
                return self._track(message)
            assert reply is not None
            log.warning("bad JSON-RPC line (%s): %.200r", reply["error"]["message"], line)
            try:
                await self.send(reply)
            except (ConnectionError, OSError):
                return None

    def _track(self, message: dict[str, Any]) -> dict[str, Any]:
        if "method" in message and "id" in message:
            self._open_requests.add(message["id"])
            self._all_answered.clear()
        return message

    async def close(self) -> None:
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(OSError, RuntimeError):
                self._writer.close()

    async def _read_line(self) -> bytes:
        """The next line; one longer than the reader's limit is skipped (never held whole) and
        answered with -32600, and reading goes on with the line after it."""
        while True:
            try:
                return await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                return exc.partial
            except asyncio.LimitOverrunError as exc:
                if not await self._skip_line(exc.consumed):
                    return b""
            log.warning("dropped a JSON-RPC line longer than %d bytes", self._limit)
            try:
                await self.send(error_reply(INVALID_REQUEST, "Invalid Request", data={
                    "details": f"message longer than {self._limit} bytes; it was dropped"}))
            except (ConnectionError, OSError):
                return b""

    async def _skip_line(self, consumed: int) -> bool:
        """Discard through the next newline, a chunk at a time; False at end of input."""
        while True:
            while consumed > 0:
                chunk = await self._reader.read(min(consumed, 1 << 20))
                if not chunk:
                    return False
                consumed -= len(chunk)
            try:
                await self._reader.readuntil(b"\n")
                return True
            except asyncio.IncompleteReadError:
                return False
            except asyncio.LimitOverrunError as exc:
                consumed = exc.consumed




def stdin_closed() -> bool:
    """Whether fd 0 is not open at all (`sigit acp <&-`)."""
    try:
        os.fstat(0)
    except OSError:
        return True
    return False


async def open_stdio(protocol_fd: int, limit: int = LINE_LIMIT) -> JsonRpcStdioTransport:
    """Streams on stdin and the private protocol fd (a thread reads stdin when it is not a pipe or a socket:
    a regular file, /dev/null or a terminal, which the event loop cannot watch everywhere; epoll refuses
    /dev/null, and the reader then waited forever)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit)
    stdin: IO[bytes] = os.fdopen(os.dup(0), "rb", buffering=0)
    mode = os.fstat(stdin.fileno()).st_mode
    source = stdin if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else _pipe_from_thread(stdin)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    out: IO[bytes] = os.fdopen(protocol_fd, "wb", buffering=0)
    writer: ByteWriter
    try:
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
    except ValueError:  # stdout is a regular file: plain writes
        writer = _FileWriter(out)
    return JsonRpcStdioTransport(reader, writer, limit)


class ByteWriter(Protocol):
    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


class _FileWriter:
    def __init__(self, out: IO[bytes]) -> None:
        self._out = out

    def write(self, data: bytes) -> None:
        self._out.write(data)

    async def drain(self) -> None:
        self._out.flush()

    def close(self) -> None:
        self._out.close()


def _pipe_from_thread(source: IO[bytes]) -> IO[bytes]:
    """A pipe a thread fills from `source`: the pipe's blocking writes hold the thread back while the
    loop is behind, so a huge input (a line without an end) is never gathered in memory."""
    read_fd, write_fd = os.pipe()

    def copy() -> None:
        try:
            while data := source.read(1 << 16):
                view = memoryview(data)
                while view:
                    view = view[os.write(write_fd, view):]
        except OSError:
            pass  # the reading side closed: the server is shutting down
        finally:
            os.close(write_fd)
            source.close()

    threading.Thread(target=copy, name="sigit-acp-stdin", daemon=True).start()
    return os.fdopen(read_fd, "rb", buffering=0)
