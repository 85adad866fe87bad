"""Copies of a transformers cache at prompt prefixes, for models whose cache cannot be cropped.

A hybrid model's linear-attention layers (Qwen 3.5's Gated DeltaNet, Qwen3-Next) keep one recurrent
state that each token overwrites: transformers' `Cache.crop` refuses it, so a follow-up prompt that
leaves the live cache anywhere but at its end would be evaluated from the start. As the llama.cpp
backend does with its memory checkpoints, the transformers backend copies the whole cache at the
prompt's save points (`save_points`: system prompt and tools, the conversation up to the last user
message) and at the end of each evaluated prompt, and a later prompt restores the longest copy it
starts with. A copy holds the attention layers' keys and values up to its prefix and every linear
layer's state, so the count is bounded and the least recently used copy goes first.
"""

from __future__ import annotations

import copy
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)


class CacheCheckpoints:
    """At most `limit` cache copies, keyed by the tokens they hold (0: none kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._copies: OrderedDict[tuple[int, ...], Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._copies)

    def keep(self, prefix: Sequence[int], cache: Any) -> None:
        """Copy `cache`, which holds exactly `prefix`; the least recently used copy beyond `limit` is dropped."""
        if self.limit <= 0 or cache is None or not prefix:
            return
        key = tuple(prefix)
        if key in self._copies:
            self._copies.move_to_end(key)
            return
        self._copies[key] = _copy(cache)
        while len(self._copies) > self.limit:
            self._copies.popitem(last=False)

    def longest(self, tokens: Sequence[int], limit: int) -> tuple[int, Any] | None:
        """The longest copy whose tokens start `tokens`, at most `limit` long: (its length, a copy of it
        the caller may extend; the kept one stays as it was)."""
        best: tuple[int, ...] | None = None
        for key in self._copies:
            n = len(key)
            if n <= limit and (best is None or n > len(best)) and tuple(tokens[:n]) == key:
                best = key
        if best is None:
            return None
        self._copies.move_to_end(best)
        return len(best), _copy(self._copies[best])

    def forget(self) -> None:
        self._copies.clear()


def _copy(cache: Any) -> Any:
    """A deep copy made in inference mode: the cache's tensors are inference tensors."""
    import torch

    with torch.inference_mode():
        return copy.deepcopy(cache)


__all__ = ["CacheCheckpoints"]
