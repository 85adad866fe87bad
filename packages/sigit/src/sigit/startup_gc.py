"""Cyclic garbage collection held off while a one-shot run starts.

`sigit -p` imports some 650 modules, builds its settings' pydantic models and llguidance's view of the
vocabulary in its first second; meanwhile the collector walked the growing heap ~170 times (45 ms of
the GIL on a warm Gemma start, measured 2026-12-05), when nothing is garbage yet and the GIL is what
the start waits on. So collection is held off from the command line's parse until the session is open
(`resume`), then runs as usual for the rest of the run, however long. Objects freed by reference
counting are freed all along; only cycles wait.

At `resume` the objects of the start are frozen (`gc.freeze`: never scanned again) rather than
collected: a first collection over everything the start allocated was 41 ms of the GIL after the
model was ready, before the first token. They are modules, classes, settings and the vocabulary, alive
until the process ends, which is why only the `sigit` command itself holds collection off (`main`
called in another program's process leaves that process's collector alone).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_held = False


def resume() -> None:
    """Collect as usual from now on (nothing if collection was not held off here)."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def held_off(hold: bool = True) -> Iterator[None]:
    """Hold collection off inside the block (when `hold`, and collection is on), and resume it at the
    block's end at the latest: a caller that finishes its start early calls `resume` itself."""
    global _held
    if hold and gc.isenabled() and not _held:
        gc.disable()
        _held = True
        try:
            yield
        finally:
            resume()
    else:
        yield


__all__ = ["held_off", "resume"]
