"""The control protocol's plumbing: JSON lines out, stdin lines in, requests matched to responses.

Both sides send `control_request` (with a `request_id`) and answer with `control_response`. The SDK
asks us (`initialize`, `interrupt`, `set_permission_mode`...); we ask the SDK (`can_use_tool`,
`hook_callback`) and wait for its answer while the turn goes on waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from itertools import count
from typing import Any, TextIO

from ...errors import SigitError


class ControlError(SigitError):
    """The SDK answered a request of ours with an error, or went away before answering."""


class LineWriter:
    """One JSON object per line on stdout, flushed at once (the SDK reads as we write)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.broken = False

    def write(self, obj: dict[str, Any]) -> None:
        if self.broken:
            return
        try:
            self.stream.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # the SDK stopped reading: the run ends at stdin's end
            self.broken = True


class ControlChannel:
    """Requests we send to the SDK, each waiting for the response with its id."""

    def __init__(self, out: LineWriter) -> None:
        self.out = out
        self._ids = count(1)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.closed = False

    async def request(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send `request` and return the SDK's `response` object; ControlError if it answered with one."""
        if self.closed:
            raise ControlError("the SDK closed stdin, so it cannot be asked")
        request_id = f"sigit_{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.out.write({"type": "control_request", "request_id": request_id, "request": request})
        try:
            return await future
        except asyncio.CancelledError:  # the turn no longer needs the answer (an interrupt)
            if not self.closed:
                self.out.write({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def resolve(self, message: dict[str, Any]) -> None:
        """A `control_response` from the SDK: wake the request waiting for it (others are ignored)."""
        response = message.get("response")
        if not isinstance(response, dict):
            return
        future = self._pending.get(str(response.get("request_id")))
        if future is None or future.done():
            return
        if response.get("subtype") == "error":
            future.set_exception(ControlError(str(response.get("error") or "the SDK answered with an error")))
        else:
            body = response.get("response")
            future.set_result(body if isinstance(body, dict) else {})

    def close(self) -> None:
        """stdin ended: nobody will answer what is still waiting."""
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ControlError("the SDK closed stdin before answering"))


def start_stdin_reader(queue: asyncio.Queue[str | None], stream: TextIO | None = None) -> None:
    """Read stdin lines in a daemon thread (a blocked read must never hold the process at exit);
    None in the queue is the end of input."""
    loop = asyncio.get_running_loop()
    source = stream or sys.stdin

    def read() -> None:
        try:
            for line in source:
                loop.call_soon_threadsafe(queue.put_nowait, line)
        except (OSError, ValueError, RuntimeError):
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is gone: the run is over anyway
                loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, name="sigit-stdin", daemon=True).start()
