"""HTTP to the server: timeouts, retries with backoff, and a stream that a cancel never waits on.

A stream that breaks after part of the reply was yielded raises `ServerError` rather than
repeating text. Every error names the endpoint and carries the server's own message.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import requests

from ...errors import ServerError
from ...runtime import CancelToken, cancelled_event
from ...types import Event
from .failures import (
    RETRY_STATUSES,
    Cancelled,
    ReadTimeout,
    Retryable,
    classify,
    delay,
    error_message,
    explain,
    gave_up,
    retry_after,
)

POLL = 0.05
"""How often a waiting stream looks at its cancel token, in seconds."""


@dataclass
class Transport:
    """One server's HTTP session and the settings every request to it shares."""

    api_key: str | None
    connect_timeout: float
    read_timeout: float
    max_retries: int
    backoff: float
    session: requests.Session = field(default_factory=requests.Session)

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def get_json(self, url: str, body: dict[str, Any] | None = None, *, retry: bool = True) -> Any:
        """A small metadata request (GET, or POST with `body`), retried like a chat request."""
        attempt = 0
        while True:
            try:
                if body is None:
                    response = self.session.get(
                        url, headers=self.headers(), timeout=(self.connect_timeout, self.read_timeout)
                    )
                else:
                    response = self.session.post(
                        url,
                        json=body,
                        headers=self.headers(),
                        timeout=(self.connect_timeout, self.read_timeout),
                    )
            except requests.RequestException as exc:
                failure = classify(exc, self.connect_timeout, self.read_timeout)
            else:
                if response.status_code == 200:
                    try:
                        return response.json()
                    except ValueError:
                        raise ServerError(
                            url, f"answered with something that is not JSON: {response.text[:200]!r}", 200
                        ) from None
                message = error_message(response)
                if response.status_code not in RETRY_STATUSES:
                    raise ServerError(url, message, response.status_code)
                failure = Retryable(message, response.status_code, retry_after(response))
            if not retry or attempt >= self.max_retries or isinstance(failure, ReadTimeout):
                raise ServerError(url, gave_up(failure, attempt), failure.status)
            time.sleep(delay(failure, self.backoff, attempt))
            attempt += 1

    def retrying(
        self, url: str, attempt: Callable[[], Iterator[Event]], cancel: CancelToken
    ) -> Iterator[Event]:
        """Runs `attempt` again after a retryable failure, unless it had already yielded something."""
        tries = 0
        yielded = False
        while True:
            try:
                for event in attempt():
                    yielded = True
                    yield event
                return
            except Cancelled:
                yield cancelled_event()
                return
            except Retryable as failure:
                if yielded:
                    raise ServerError(
                        url,
                        f"{failure.message} after part of the reply had arrived; not retried, "
                        "so that the partial reply is not repeated",
                        failure.status,
                    ) from None
                if tries >= self.max_retries:
                    raise ServerError(url, gave_up(failure, tries), failure.status) from None
                if cancel.wait(delay(failure, self.backoff, tries)):
                    yield cancelled_event()
                    return
                tries += 1

    def lines(self, url: str, body: dict[str, Any], cancel: CancelToken) -> LineStream:
        """POSTs `body` and streams the response's lines; use it in a `with` block."""
        return LineStream(self, url, body, cancel)

    def close(self) -> None:
        self.session.close()


class LineStream:
    """One streamed HTTP response, read in a thread so a cancel never waits on the socket.

    Iterating yields decoded lines and raises `Retryable`, `Cancelled` or `ServerError`. Leaving
    the `with` block aborts the connection unless `release()` said the reply was read in full (the
    reader then drains the rest, and the connection stays reusable).
    """

    def __init__(self, transport: Transport, url: str, body: dict[str, Any], cancel: CancelToken) -> None:
        self._transport = transport
        self._url = url
        self._body = body
        self._cancel = cancel
        self._items: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._holder: list[requests.Response] = []
        self._released = False
        self._thread = threading.Thread(target=self._produce, name="openai-compat-read", daemon=True)
        self._thread.start()

    def _produce(self) -> None:
        t = self._transport
        try:
            response = t.session.post(
                self._url,
                json=self._body,
                headers={**t.headers(), "Accept": "text/event-stream"},
                stream=True,
                timeout=(t.connect_timeout, t.read_timeout),
            )
        except Exception as exc:
            self._items.put(("error", exc))
            return
        self._holder.append(response)
        try:
            if self._stop.is_set():
                return
            if response.status_code != 200:
                status = response.status_code
                self._items.put(("status", (status, error_message(response), retry_after(response))))
                return
            chunked = bool(getattr(response.raw, "chunked", False))
            for line in response.iter_lines(chunk_size=8192 if chunked else 1):
                if self._stop.is_set():
                    return
                self._items.put(("line", line))
            self._items.put(("end", None))
        except Exception as exc:  # every failure reaches the consumer, which must never wait forever
            self._items.put(("error", exc))
        finally:
            response.close()

    def __iter__(self) -> Iterator[str]:
        while True:
            try:
                kind, value = self._items.get(timeout=POLL)
            except queue.Empty:
                if self._cancel.cancelled:
                    raise Cancelled from None
                if not self._thread.is_alive() and self._items.empty():
                    raise Retryable("the reader stopped without a result") from None
                continue
            if self._cancel.cancelled:
                raise Cancelled
            if kind == "line":
                yield value.decode("utf-8", errors="replace")
            elif kind == "end":
                return
            elif kind == "status":
                status, message, wait = value
                if status in RETRY_STATUSES:
                    raise Retryable(message, status, wait)
                raise ServerError(self._url, explain(message, status), status)
            else:
                failure = classify(value, self._transport.connect_timeout, self._transport.read_timeout)
                if isinstance(failure, ReadTimeout):
                    raise ServerError(self._url, failure.message)
                raise failure

    def release(self) -> None:
        """The reply is complete: let the reader finish instead of cutting the connection."""
        self._released = True

    def __enter__(self) -> LineStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self._released:
            self._stop.set()
            if self._holder:
                abort(self._holder[0])


def abort(response: requests.Response) -> None:
    """Wake a reader blocked on this response's socket (shutting down works across threads)."""
    sock: Any = None
    connection: Callable[[], Any] | Any = getattr(response.raw, "connection", None) or getattr(
        response.raw, "_connection", None
    )
    if connection is not None:
        sock = getattr(connection, "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    else:
        with contextlib.suppress(Exception):  # best effort from a foreign thread
            response.close()
