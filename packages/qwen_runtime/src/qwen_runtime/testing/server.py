"""A scripted OpenAI-compatible server: replays scenario turns over real HTTP and injects faults.

It is what the end-to-end tests point a real client at, so that streaming, retries and timeouts are
exercised through sockets rather than mocks. Run it by hand with

    python -m qwen_runtime.testing.server SCENARIO.json [--port N] [--record FILE]

Faults come from the turn (see `qwen_runtime.scenario`): `error` answers that HTTP status with an
OpenAI-style error body, `drop_after` closes the socket after N stream chunks, `delay` waits before
the first byte; `repeat` N makes the fault happen N times before the turn's normal reply. A turn
with only `delay` is a slow but successful reply. With `ollama=True` it also answers Ollama's native
`/api/version`, `/api/show` and `/api/chat` (NDJSON), so Ollama-specific client paths can be tested.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..scenario import ScriptedTurn, load_scenario

_REASONS = {400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests", 500: "Internal Server Error"}


@dataclass(frozen=True)
class _Part:
    """One streamed piece of a reply, before it is framed as SSE or NDJSON."""

    kind: str  # "reasoning" | "content" | "tool_start" | "tool_args"
    text: str = ""
    index: int = 0
    call_id: str | None = None
    name: str = ""
    arguments: dict[str, Any] | None = None


class _Dropped(Exception):
    """The scripted fault: stop writing and cut the connection."""


class ScriptedServer:
    """Serves scripted turns on 127.0.0.1 in a daemon thread; use it as a context manager.

    `requests` holds every JSON body POSTed to a chat endpoint, in order. `chunk_size` is the
    characters per streamed piece, `chunk_delay` the pause between chunks (slow streams).
    `tool_call_ids=False` leaves ids out of tool-call deltas, as some servers do.
    """

    def __init__(
        self,
        turns: Sequence[ScriptedTurn | str | dict[str, Any]] | str | Path,
        *,
        chunk_size: int = 8,
        chunk_delay: float = 0.0,
        model: str = "scripted-qwen",
        context_size: int = 32768,
        retry_after: float | None = None,
        tool_call_ids: bool = True,
        ollama: bool = False,
        port: int = 0,
        record: str | Path | None = None,
    ) -> None:
        self.turns: list[ScriptedTurn] = (
            load_scenario(turns) if isinstance(turns, str | Path) else [_as_turn(t) for t in turns]
        )
        self.chunk_size = max(1, chunk_size)
        self.chunk_delay = chunk_delay
        self.model = model
        self.context_size = context_size
        self.retry_after = retry_after
        self.tool_call_ids = tool_call_ids
        self.ollama = ollama
        self.record = Path(record) if record is not None else None
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._next = 0
        self._faults_done = 0
        self._ids = itertools.count(1)
        self._last_messages: list[Any] = []
        self._closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_class(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # keep-alive handlers would hold close() until clients hang up
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="scripted-server", daemon=True
        )
        self._thread.start()

    # ------------------------------------------------------------ lifecycle

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def remaining(self) -> int:
        """Turns not yet replied to."""
        return len(self.turns) - self._next

    def close(self) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ script

    def _record(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)
            if self.record is not None:
                with self.record.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(body, ensure_ascii=False) + "\n")

    def _take(self, messages: list[Any]) -> tuple[ScriptedTurn | None, bool, int]:
        """The turn this request gets, whether it gets the turn's fault, and the cached prefix."""
        with self._lock:
            cached = 0
            for old, new in zip(self._last_messages, messages, strict=False):
                if old != new:
                    break
                cached += _tokens(new)
            self._last_messages = list(messages)
            if self._next >= len(self.turns):
                return None, False, 0
            turn = self.turns[self._next]
            faulty = turn.error is not None or turn.drop_after is not None
            if faulty and self._faults_done < max(1, turn.repeat):
                self._faults_done += 1
                return turn, True, cached
            self._next += 1
            self._faults_done = 0
            return turn, False, cached

    def _parts(self, turn: ScriptedTurn) -> Iterator[_Part]:
        size = self.chunk_size
        for piece in _chunks(turn.reasoning, size):
            yield _Part("reasoning", piece)
        for piece in _chunks(turn.raw if turn.raw is not None else turn.text, size):
            yield _Part("content", piece)
        for index, call in enumerate(turn.tool_calls):
            call_id = call.id or f"call_{next(self._ids)}"
            yield _Part(
                "tool_start",
                index=index,
                name=call.name,
                arguments=call.arguments,
                call_id=call_id if self.tool_call_ids else None,
            )
            for piece in _chunks(json.dumps(call.arguments, ensure_ascii=False), size):
                yield _Part("tool_args", piece, index=index)

    def wait(self, seconds: float) -> None:
        """Sleep that ends early when the server closes (so `close()` never waits on a delay)."""
        self._closing.wait(seconds)


def _handler_class(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
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
            server._record(body)
            messages = body.get("messages")
            turn, faulty, cached = server._take(messages if isinstance(messages, list) else [])
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
            try:
                if path == "/api/chat":
                    self._ollama_reply(body, turn, cached, drop_after)
                elif body.get("stream"):
                    self._sse_reply(body, turn, cached, drop_after)
                else:
                    self._json(200, self._completion(body, turn, cached))
            except _Dropped:
                self._drop()
            except (BrokenPipeError, ConnectionResetError):  # the client went away (cancel)
                self.close_connection = True

        # ---------------------------------------------------- replies

        def _usage(self, body: dict[str, Any], turn: ScriptedTurn, cached: int) -> dict[str, Any]:
            prompt = sum(_tokens(m) for m in body.get("messages", []))
            produced = len(turn.reasoning) + len(turn.raw or turn.text)
            produced += sum(len(json.dumps(c.arguments)) + len(c.name) for c in turn.tool_calls)
            return {
                "prompt_tokens": prompt,
                "completion_tokens": max(1, produced // 4),
                "total_tokens": prompt + max(1, produced // 4),
                "prompt_tokens_details": {"cached_tokens": min(cached, prompt)},
            }

        def _finish_reason(self, turn: ScriptedTurn) -> str:
            return turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")

        def _completion(self, body: dict[str, Any], turn: ScriptedTurn, cached: int) -> dict[str, Any]:
            message: dict[str, Any] = {"role": "assistant", "content": turn.raw or turn.text}
            if turn.reasoning:
                message["reasoning_content"] = turn.reasoning
            calls = [p for p in server._parts(turn) if p.kind == "tool_start"]
            if calls:
                message["tool_calls"] = [
                    {
                        "id": p.call_id,
                        "type": "function",
                        "function": {"name": p.name, "arguments": json.dumps(p.arguments)},
                    }
                    for p in calls
                ]
            return {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": server.model,
                "choices": [{"index": 0, "message": message, "finish_reason": self._finish_reason(turn)}],
                "usage": self._usage(body, turn, cached),
            }

        def _sse_reply(
            self, body: dict[str, Any], turn: ScriptedTurn, cached: int, drop_after: int | None
        ) -> None:
            self._start_stream("text/event-stream")
            base = {
                "id": "chatcmpl-scripted",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": server.model,
            }
            sent = itertools.count()

            def send(payload: dict[str, Any] | str) -> None:
                if drop_after is not None and next(sent) >= drop_after:
                    raise _Dropped
                data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
                self._chunk(f"data: {data}\n\n".encode())
                if server.chunk_delay:
                    server.wait(server.chunk_delay)

            def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
                return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

            send(choice({"role": "assistant", "content": ""}))
            for part in server._parts(turn):
                if part.kind == "reasoning":
                    send(choice({"reasoning_content": part.text}))
                elif part.kind == "content":
                    send(choice({"content": part.text}))
                elif part.kind == "tool_start":
                    call: dict[str, Any] = {
                        "index": part.index,
                        "type": "function",
                        "function": {"name": part.name, "arguments": ""},
                    }
                    if part.call_id is not None:
                        call["id"] = part.call_id
                    send(choice({"tool_calls": [call]}))
                else:
                    piece = {"index": part.index, "function": {"arguments": part.text}}
                    send(choice({"tool_calls": [piece]}))
            send(choice({}, self._finish_reason(turn)))
            if (body.get("stream_options") or {}).get("include_usage"):
                usage = self._usage(body, turn, cached)
                timings = {
                    "prompt_n": usage["prompt_tokens"] - usage["prompt_tokens_details"]["cached_tokens"],
                    "prompt_ms": 1.5,
                    "predicted_n": usage["completion_tokens"],
                    "predicted_ms": 10.0,
                    "cache_n": usage["prompt_tokens_details"]["cached_tokens"],
                }
                send({**base, "choices": [], "usage": usage, "timings": timings})
            send("[DONE]")
            self._chunk(b"")

        def _ollama_reply(
            self, body: dict[str, Any], turn: ScriptedTurn, cached: int, drop_after: int | None
        ) -> None:
            self._start_stream("application/x-ndjson")
            sent = itertools.count()

            def send(message: dict[str, Any], **extra: Any) -> None:
                if drop_after is not None and next(sent) >= drop_after:
                    raise _Dropped
                line = {
                    "model": server.model,
                    "created_at": "2025-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": "", **message},
                    **extra,
                }
                self._chunk((json.dumps(line, ensure_ascii=False) + "\n").encode())
                if server.chunk_delay:
                    server.wait(server.chunk_delay)

            for part in server._parts(turn):
                if part.kind == "reasoning":
                    send({"thinking": part.text}, done=False)
                elif part.kind == "content":
                    send({"content": part.text}, done=False)
                elif part.kind == "tool_start":
                    call = {"function": {"name": part.name, "arguments": part.arguments}}
                    send({"tool_calls": [call]}, done=False)
            usage = self._usage(body, turn, cached)
            send(
                {},
                done=True,
                done_reason="stop" if turn.finish_reason is None else turn.finish_reason,
                prompt_eval_count=usage["prompt_tokens"] - usage["prompt_tokens_details"]["cached_tokens"],
                prompt_eval_duration=1_500_000,
                eval_count=usage["completion_tokens"],
                eval_duration=10_000_000,
            )
            self._chunk(b"")

        # ---------------------------------------------------- framing

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


def _as_turn(value: ScriptedTurn | str | dict[str, Any]) -> ScriptedTurn:
    if isinstance(value, ScriptedTurn):
        return value
    if isinstance(value, str):
        return ScriptedTurn(text=value)
    return ScriptedTurn.from_dict(value)


def _tokens(message: object) -> int:
    return max(1, len(json.dumps(message, ensure_ascii=False)) // 4)


def _chunks(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m qwen_runtime.testing.server",
        description="Serve a scenario file as an OpenAI-compatible endpoint on 127.0.0.1.",
    )
    parser.add_argument("scenario", help='scenario JSON file ({"turns": [...]})')
    parser.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    parser.add_argument("--record", help="append every request body to this file (JSON lines)")
    parser.add_argument("--chunk-size", type=int, default=8, help="characters per streamed chunk")
    parser.add_argument("--ollama", action="store_true", help="also answer Ollama's native /api routes")
    args = parser.parse_args(argv)
    server = ScriptedServer(
        args.scenario, port=args.port, record=args.record, chunk_size=args.chunk_size, ollama=args.ollama
    )
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
