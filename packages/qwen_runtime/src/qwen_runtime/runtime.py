"""The one protocol every backend implements: `stream(request, cancel) -> Iterator[Event]`.

A backend writes only `stream`; the non-streaming and async forms are derived here, so all of them
share one parser and one cancellation path (style: simonw/llm's single `execute`).
"""

from __future__ import annotations

import asyncio
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator

from .types import ChatRequest, Completion, Event, Finished


class CancelToken:
    """Set from any thread; backends check it between tokens."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` (in the cancelling thread) when cancelled, at once if already: for work that
        waits somewhere a check between tokens does not reach (a model host in another process).
        Returns what forgets the callback."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback()
        return lambda: None

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        return self._event.wait(timeout)


class Runtime(ABC):
    """A loaded model that turns a `ChatRequest` into a stream of `Event`s."""

    #: a short name for logs and `info()`
    name: str = "runtime"
    supports_tools: bool = True
    supports_thinking: bool = True
    supports_images: bool = False
    #: what the user must hear about this load (a model file without a chat template...): frontends show
    #: each where they show the session's other warnings
    load_warnings: tuple[str, ...] = ()

    @property
    def context_size(self) -> int:
        """Tokens the model can attend to (0 when unknown)."""
        return 0

    def model_details(self) -> tuple[tuple[str, str], ...]:
        """What the backend detected about its model, as (label, value) rows for /status and doctor
        (template, call format, layers, context window and why); empty when it has nothing to say."""
        return ()

    @abstractmethod
    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        """Yield events; the last one is always `Finished`. Cancelling ends with reason "cancelled"."""

    def cannot_see(self) -> str:
        """Why this runtime refuses images, for the user (asked only when `supports_images` is False)."""
        return f"the {self.name} backend does not take images"

    #: True when the backend closes `<think>` itself at `ChatRequest.thinking_budget` (onde checks it)
    enforces_thinking_budget: bool = False

    def prefill(self, request: ChatRequest, *, next_turn: bool = False, cancel: CancelToken | None = None) -> int:
        """Evaluate the prompt of `request` ahead of time (e.g. the system prompt and tools when a
        session opens) so the first real turn is served from the KV cache; returns the tokens now
        cached. `next_turn`: the conversation after a turn ended, as the next user message will find
        it, kept where that turn (or a resumed session) restores it. `cancel` stops it between batches
        (as does cancelling a request that waits for it). Backends without a local cache do nothing."""
        return 0

    def count_tokens(self, text: str) -> int:
        """Tokens in `text` for this model; backends without a tokenizer estimate (4 chars a token)."""
        return max(1, len(text) // 4)

    def complete(self, request: ChatRequest, cancel: CancelToken | None = None) -> Completion:
        completion = Completion()
        for event in self.stream(request, cancel):
            completion.add(event)
        return completion

    async def astream(
        self, request: ChatRequest, cancel: CancelToken | None = None
    ) -> AsyncIterator[Event]:
        """The same stream for async code: generation runs in a worker thread, never in the loop."""
        token = cancel or CancelToken()
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Event | BaseException | None] = asyncio.Queue()

        def post(item: Event | BaseException | None) -> bool:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the event loop closed under us: nobody is listening any more
                token.cancel()
                return False
            return True

        def produce() -> None:
            try:
                for event in self.stream(request, token):
                    if not post(event):
                        return
            except BaseException as exc:  # handed to the consumer, re-raised there
                post(exc)
            finally:
                post(None)

        thread = threading.Thread(target=produce, name=f"{self.name}-generate", daemon=True)
        thread.start()
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            # consumer gone (cancelled task, break): stop the generation too
            token.cancel()

    async def acomplete(self, request: ChatRequest, cancel: CancelToken | None = None) -> Completion:
        completion = Completion()
        async for event in self.astream(request, cancel):
            completion.add(event)
        return completion

    def close(self) -> None:  # noqa: B027 - optional for backends with nothing to free
        """Free the model; the default has nothing to free."""


def cancelled_event() -> Finished:
    return Finished("cancelled", "generation cancelled")
