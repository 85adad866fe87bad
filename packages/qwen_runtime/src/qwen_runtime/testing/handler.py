"""The scripted server's HTTP side: routes, chunked framing, and the scripted faults on the wire.

A faulty turn answers its `error` status with an OpenAI-style error body, or cuts the connection
after `drop_after` stream chunks; `delay` waits before the first byte.
"""

from __future__ import annotations

import itertools
import json
import socket
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from ..scenario import ScriptedTurn
from . import replies

_REASONS = {400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests", 500: "Internal Server Error"}


class Dropped(Exception):
    """The scripted fault: stop writing and cut the connection."""


class Script(Protocol):
    """What the HTTP side needs of the server it answers for (`ScriptedServer` is one): the served
    model's facts, the scripted faults' settings, and the script itself."""

    model: str
    context_size: int
    ollama: bool
    chunk_delay: float
    retry_after: float | None
    requests: list[dict[str, Any]]
    turns: list[ScriptedTurn]

    def log_request(self, body: dict[str, Any]) -> None: ...

    def take_turn(self, messages: list[Any]) -> tuple[ScriptedTurn | None, bool, int]: ...

    def parts_of(self, turn: ScriptedTurn) -> Iterator[replies.Part]: ...

    def wait(self, seconds: float) -> None: ...


def handler_class(server: Script) -> type[BaseHTTPRequestHandler]:
    """A request handler bound to `server` (http.server wants a class, not an instance)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # small SSE writes must not wait for delayed ACKs

        def log_message(self, format: str, *args: object) -> None:
            pass

        # ---------------------------------------------------- routing

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            if path == "/v1/models":
                entry = {
                    "id": server.model,
                    "object": "model",
                    "created": 0,
                    "owned_by": "scripted",
                    "meta": {"n_ctx_train": server.context_size},
                }
                self._json(200, {"object": "list", "data": [entry]})
            elif path == "/api/version" and server.ollama:
                self._json(200, {"version": "0.0.0-scripted"})
            else:
                self._error(404, f"no route for GET {path}")

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError as exc:
                self._error(400, f"request body is not JSON: {exc}")
                return
            if path == "/api/show" and server.ollama:
                self._json(200, {"model_info": {"qwen3.context_length": server.context_size}})
                return
            if path not in ("/v1/chat/completions", "/api/chat") or (
                path == "/api/chat" and not server.ollama
            ):
                self._error(404, f"no route for POST {path}")
                return
            if not isinstance(body, dict):
                self._error(400, "request body must be a JSON object")
                return
            server.log_request(body)
            messages = body.get("messages")
            turn, faulty, cached = server.take_turn(messages if isinstance(messages, list) else [])
            if turn is None:
                self._error(
                    500,
                    f"scripted server: script exhausted (request {len(server.requests)} but the "
                    f"scenario has {len(server.turns)} turns)",
                )
                return
            if turn.delay:
                server.wait(turn.delay)
            if faulty and turn.error is not None:
                self._error(turn.error, f"scripted fault: HTTP {turn.error}")
                return
            drop_after = turn.drop_after if faulty else None
            args = (body, turn, cached, server.parts_of(turn), server.model)
            try:
                if path == "/api/chat":
                    self._start_stream("application/x-ndjson")
                    send = self._sender(drop_after)
                    for line in replies.ollama_lines(*args):
                        send((json.dumps(line, ensure_ascii=False) + "\n").encode())
                    self._chunk(b"")
                elif body.get("stream"):
                    self._start_stream("text/event-stream")
                    send = self._sender(drop_after)
                    for payload in replies.sse_events(*args):
                        data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
                        send(f"data: {data}\n\n".encode())
                    self._chunk(b"")
                else:
                    self._json(200, replies.completion(*args))
            except Dropped:
                self._drop()
            except (BrokenPipeError, ConnectionResetError):  # the client went away (cancel)
                self.close_connection = True

        # ---------------------------------------------------- framing

        def _sender(self, drop_after: int | None) -> Callable[[bytes], None]:
            """Writes one stream chunk, pausing `chunk_delay` after it; the fault cuts in before one."""
            sent = itertools.count()

            def send(data: bytes) -> None:
                if drop_after is not None and next(sent) >= drop_after:
                    raise Dropped
                self._chunk(data)
                if server.chunk_delay:
                    server.wait(server.chunk_delay)

            return send

        def _start_stream(self, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _drop(self) -> None:
            self.close_connection = True
            try:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status, _REASONS.get(status))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _error(self, status: int, message: str) -> None:
            headers = {}
            if status == 429 and server.retry_after is not None:
                headers["Retry-After"] = f"{server.retry_after:g}"
            kind = "invalid_request_error" if status < 500 else "server_error"
            self._json(status, {"error": {"message": message, "type": kind, "code": status}}, headers)

    return Handler
