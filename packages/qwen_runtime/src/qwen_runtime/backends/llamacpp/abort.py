"""Stopping a `llama_decode` part-way: a cancelled request's prompt stops at the next graph node, not at
the end of its batch.

llama.cpp asks an abort callback after each node of a graph (on its first compute thread). A Python
callback there would take the GIL hundreds of times a step, so the callback is C's own `strlen` over a
two-byte buffer: `b"\\0\\0"` says go on (length 0, false), `b"\\1\\0"` says stop (length 1, true); the
cancelling thread writes the first byte. That lets a prompt be evaluated in llama-server's batches
(2,048 tokens a `llama_decode`; at 512 a call, a loaded 2-core machine prefilled 0.85x as fast) without
making Esc wait for a batch that can take a minute on such a machine. Where C's library cannot be found
(not Linux or macOS), there is no callback and a request stops between batches, as before.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

log = logging.getLogger(__name__)

ABORTED = 2
"""What `llama_decode` returns when its abort callback said stop."""


def _strlen() -> Any:
    try:
        return ctypes.CDLL(None).strlen
    except (OSError, AttributeError):  # pragma: no cover - a platform without a process-wide C library
        return None


class DecodeAbort:
    """The abort flag of one llama.cpp context (attach it again to a context that replaces it)."""

    def __init__(self) -> None:
        self._flag = ctypes.create_string_buffer(2)
        self._callback: Any = None
        strlen = _strlen()
        address = ctypes.cast(strlen, ctypes.c_void_p).value if strlen is not None else None
        if address is not None:
            from .lib import llama_cpp

            self._callback = llama_cpp.ggml_abort_callback(address)

    @property
    def available(self) -> bool:
        return self._callback is not None

    def attach(self, ctx: Any) -> None:
        """Have `ctx` (a `llama_context *`) ask this flag after each graph node."""
        if self._callback is None:
            return
        from .lib import llama_cpp

        llama_cpp.llama_set_abort_callback(ctx, self._callback, ctypes.cast(self._flag, ctypes.c_void_p))

    def stop(self) -> None:
        """Make the decode running now (and any after it, until `reset`) stop at its next node."""
        self._flag[0] = b"\x01"

    def reset(self) -> None:
        self._flag[0] = b"\x00"


__all__ = ["ABORTED", "DecodeAbort"]
