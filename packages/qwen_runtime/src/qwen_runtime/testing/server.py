"""A scripted OpenAI-compatible server: replays scenario turns over real HTTP and injects faults.

It is what the end-to-end tests point a real client at, so that streaming, retries and timeouts are
exercised through sockets rather than mocks. Run it by hand with

    python -m qwen_runtime.testing.server SCENARIO.json [--port N] [--record FILE]

Faults come from the turn (see `qwen_runtime.scenario`): `error` answers that HTTP status with an
OpenAI-style error body, `drop_after` closes the socket after N stream chunks, `delay` waits before
the first byte; `repeat` N makes the fault happen N times before the turn's normal reply. A turn
with only `delay` is a slow but successful reply. With `ollama=True` it also answers Ollama's native
`/api/version`, `/api/show` and `/api/chat` (NDJSON), so Ollama-specific client paths can be tested.

This module holds the script (which turn, which fault); `handler` speaks HTTP and `replies`
encodes a turn as SSE, NDJSON or one completion.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..scenario import ScriptedTurn, load_scenario
from .handler import handler_class
from .replies import Part, reply_parts, tokens


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
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler_class(self))
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

    def log_request(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)
            if self.record is not None:
                with self.record.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(body, ensure_ascii=False) + "\n")

    def take_turn(self, messages: list[Any]) -> tuple[ScriptedTurn | None, bool, int]:
        """The turn this request gets, whether it gets the turn's fault, and the cached prefix."""
        with self._lock:
            cached = 0
            for old, new in zip(self._last_messages, messages, strict=False):
                if old != new:
                    break
                cached += tokens(new)
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

    def parts_of(self, turn: ScriptedTurn) -> Iterator[Part]:
        return reply_parts(turn, self.chunk_size, lambda: f"call_{next(self._ids)}", self.tool_call_ids)

    def wait(self, seconds: float) -> None:
        """Sleep that ends early when the server closes (so `close()` never waits on a delay)."""
        self._closing.wait(seconds)


def _as_turn(value: ScriptedTurn | str | dict[str, Any]) -> ScriptedTurn:
    if isinstance(value, ScriptedTurn):
        return value
    if isinstance(value, str):
        return ScriptedTurn(text=value)
    return ScriptedTurn.from_dict(value)


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
