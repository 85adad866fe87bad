"""One private event loop in a daemon thread: how the sync facades run the engine's async core.

It works whether or not the calling thread has its own loop running (asyncio.run would not), and
generation itself stays in the runtime's worker thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import suppress
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="onde-sync-loop", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
        return _loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` on the private loop and wait for its result in the calling thread."""
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("onde's sync API was called from inside its own loop; use the async API")
    return asyncio.run_coroutine_threadsafe(coro, _get_loop()).result()


async def _next(agen: AsyncIterator[T]) -> tuple[bool, T | None]:
    try:
        return True, await agen.__anext__()
    except StopAsyncIteration:
        return False, None


def iterate_sync(agen: AsyncIterator[T]) -> Iterator[T]:
    """Step an async iterator from sync code; closing the iterator early closes `agen` too."""
    try:
        while True:
            more, item = run_sync(_next(agen))
            if not more:
                return
            yield item  # type: ignore[misc]
    finally:
        aclose = getattr(agen, "aclose", None)
        if aclose is not None:
            with suppress(Exception):
                run_sync(aclose())
