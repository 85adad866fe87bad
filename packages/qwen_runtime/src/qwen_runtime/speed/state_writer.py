"""The disk tier's writes, off the path to the first token: a saved state is handed to a thread of its own.

A prompt's save points are reached before its reply starts, and writing a state there (a checksum and
tens of MiB through the page cache) held the first token back: 160 ms for the Qwen 3.5 0.8B shape's
54 MiB at 3,000 tokens, on every round of a hybrid model. The state is copied out of llama.cpp where it is
reached (the copy is the writer's own buffer, so the model goes on at once) and written meanwhile.

What reads the disk tier sees what was handed over: a prefix waiting to be written counts as on disk,
and a lookup waits for the writes before it. At exit (`atexit`, which `sigit`'s fast exit runs too) the
writes left are finished, so the next process finds the last turn's state. At most `max_pending` states
wait at once; a further one waits for room (memory bounded, never a dropped save).
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)


class StateStore(Protocol):
    """What the writer writes to (`DiskPromptCache`)."""

    def save(self, scope: str, tokens: Sequence[int], data: Any, describe: Mapping[str, Any]) -> bool: ...


@dataclass(frozen=True)
class _Job:
    scope: str
    tokens: tuple[int, ...]
    data: Any
    describe: Mapping[str, Any]


class StateWriter:
    """Writes states to `store` in submission order, on a thread that runs while there is work."""

    def __init__(self, store: StateStore, max_pending: int = 2) -> None:
        self.store = store
        self.max_pending = max(1, max_pending)
        self._cond = threading.Condition()
        self._queue: deque[_Job] = deque()
        self._busy: _Job | None = None
        self._thread: threading.Thread | None = None
        _WRITERS.add(self)

    def submit(self, scope: str, tokens: Sequence[int], data: Any, describe: Mapping[str, Any]) -> None:
        """Queue `data` (which must not change afterwards) to be written for `tokens`."""
        job = _Job(scope, tuple(tokens), data, dict(describe))
        with self._cond:
            while len(self._queue) + (self._busy is not None) >= self.max_pending:
                self._cond.wait()
            self._queue.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="prompt cache writer", daemon=True)
                self._thread.start()

    def pending(self, scope: str, tokens: Sequence[int]) -> bool:
        """Whether a state for exactly `tokens` is waiting to be written (or being written)."""
        key = tuple(tokens)
        with self._cond:
            jobs = [*self._queue, *([self._busy] if self._busy is not None else [])]
            return any(job.scope == scope and job.tokens == key for job in jobs)

    def flush(self) -> None:
        """Return once every state handed over so far is written (or its write failed)."""
        with self._cond:
            while self._queue or self._busy is not None:
                self._cond.wait()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._thread = None
                    self._cond.notify_all()
                    return
                job = self._busy = self._queue.popleft()
            try:
                self.store.save(job.scope, job.tokens, job.data, job.describe)
            except Exception:  # a failed save is a cache miss later, never a failed turn
                log.exception("prompt cache: writing a saved state failed")
            finally:
                with self._cond:
                    self._busy = None
                    self._cond.notify_all()


_WRITERS: weakref.WeakSet[StateWriter] = weakref.WeakSet()


@atexit.register
def _finish_writes() -> None:
    for writer in list(_WRITERS):
        writer.flush()


__all__ = ["StateStore", "StateWriter"]
