"""llama.cpp's thread counts following the machine while a model runs (`speed.thread_control`).

A runtime whose threads came from the CPU budget (none given, nothing tuned) times each one-token decode
and each prompt batch; when a `ThreadControl` answers another count, the context runs with it from the
next evaluation on (`llama_set_n_threads`: no reload), and a context reopened later keeps it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ...speed.thread_control import ThreadControl

if TYPE_CHECKING:
    from .load import LlamaHandle

log = logging.getLogger(__name__)

BATCH_TIMED_FROM = 32
"""Batches of at least this many tokens are timed (per token) for the batch threads; shorter ones (forced
tokens, a draft's verify) say little about prompt evaluation. Per token a batch costs less the larger it
is (Gemma 3 270M on 2 cores: 2.8 ms at 32 tokens, 2.0 ms at 512), so each is compared only with batches of
a like size (`ThreadControl.size_match`)."""


class FollowedThreads:
    """The decode and batch thread counts of one context, each chosen by its own `ThreadControl`."""

    def __init__(self, handle: LlamaHandle, decode: int, batch: int) -> None:
        self._handle = handle
        self.decode = ThreadControl(most=decode)
        # prompts come a few batches at a time: shorter rounds (one block of settled, probed, probed,
        # settled each way: a prompt's later batches cost more per token), probes every few dozen batches
        self.batch = ThreadControl(most=batch, window=4, chunk=1, probe_every=48, busy_probe_every=6)
        self._running = self._settled = (decode, batch)
        self._apply(decode, batch)  # what the context runs with from here, whatever it was opened with

    @property
    def running(self) -> tuple[int, int]:
        """(decode, batch) threads the context runs with now."""
        return self._running

    def evaluated(self, n_tokens: int, seconds: float) -> None:
        """The context evaluated `n_tokens` in one call taking `seconds`."""
        decode, batch = self._running
        if n_tokens == 1:
            decode = self.decode.observe(seconds)
        elif n_tokens >= BATCH_TIMED_FROM:
            batch = self.batch.observe(seconds / n_tokens, n_tokens)
        if (decode, batch) != self._running:
            self._apply(decode, batch)

    def _apply(self, decode: int, batch: int) -> None:
        from .lib import llama_cpp

        llm = self._handle.llm
        llama_cpp.llama_set_n_threads(llm.ctx, decode, batch)
        params = llm.context_params  # what a reopened context is made with
        params.n_threads, params.n_threads_batch = decode, batch
        self._running = (decode, batch)
        settled = (self.decode.current, self.batch.current)  # not a probe's count: what it chose
        if settled != self._settled:
            self._settled = settled
            log.info("llama.cpp threads now %d decode, %d batch (faster at this machine's load)", *settled)


__all__ = ["BATCH_TIMED_FROM", "FollowedThreads"]
