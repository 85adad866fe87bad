"""Sampling with llama.cpp's own sampler chain: what a request's `Sampling` becomes, in C."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ...types import Sampling


def plain_greedy(sampling: Sampling) -> bool:
    """Greedy with nothing before it (no penalties): the most likely token, which an argmax over the
    logits finds in ~40 us on a 262k vocabulary where llama.cpp's greedy sampler (which sorts the whole
    vocabulary) took ~1.6 ms, 6% of a Gemma 270M step."""
    return sampling.temperature <= 0 and not (
        sampling.repeat_penalty != 1.0 or sampling.frequency_penalty or sampling.presence_penalty)


def sampler_chain(sampling: Sampling, n_vocab: int, last_n: int) -> Any:
    """llama.cpp's sampler chain for `sampling`: penalties, then greedy, or top-k, top-p, min-p,
    temperature and a seeded draw."""
    from .lib import _internals, llama_cpp

    make_sampler: Any = _internals.LlamaSampler
    s: Any = make_sampler()
    if sampling.repeat_penalty != 1.0 or sampling.frequency_penalty or sampling.presence_penalty:
        s.add_penalties(
            n_vocab=n_vocab,
            penalty_last_n=last_n,
            penalty_repeat=sampling.repeat_penalty,
            penalty_freq=sampling.frequency_penalty,
            penalty_present=sampling.presence_penalty,
        )
    if sampling.temperature <= 0:
        s.add_greedy()
        return s
    if sampling.top_k > 0:
        s.add_top_k(sampling.top_k)
    if sampling.top_p < 1.0:
        s.add_top_p(sampling.top_p, 1)
    if sampling.min_p > 0:
        s.add_min_p(sampling.min_p, 1)
    s.add_temp(sampling.temperature)
    seed = llama_cpp.LLAMA_DEFAULT_SEED if sampling.seed is None else sampling.seed & 0xFFFFFFFF
    s.add_dist(seed)
    return s


class LlamaSampler:
    """llama.cpp's sampler chain, sampling the context's last logits."""

    def __init__(self, chain: Any, handle: Any, row: Callable[[], int],
                 argmax_of: Callable[[], npt.NDArray[np.float32]] | None = None) -> None:
        self._chain = chain
        self._argmax_of = argmax_of
        """For `plain_greedy` sampling: the current row's logits, whose argmax is the token (the chain,
        greedy alone, keeps no state to update)."""
        self._handle = handle
        """Where the context is read at each sample (`LlamaHandle.sampler_ctx`): a hybrid's first draft
        reopens it mid-request."""
        self._row = row
        """The logits row to sample (a draft's verify batch has one per position)."""

    def accept(self, token: int) -> None:
        self._chain.accept(token)

    def sample(self) -> int:
        if self._argmax_of is not None:
            return int(np.argmax(self._argmax_of()))
        return int(self._chain.sample(self._handle.sampler_ctx, self._row()))

    def close(self) -> None:
        self._chain.close()


__all__ = ["LlamaSampler", "plain_greedy", "sampler_chain"]
