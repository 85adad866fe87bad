"""The context window a local GGUF gets: the largest step that fits the model and the machine.

A fixed 16k window fills up after a system prompt, the tools and a few file reads, while a hybrid
model (Qwen 3.5 and later) keeps a KV cache on one layer in four and could hold far more in the same
memory. So the default is the largest of `STEPS` that is within the model's trained length and whose
KV cache (from the GGUF's layers, heads and head sizes, f16) fits in this machine's memory (the
registry's cgroup-aware `memory_bytes`, `USABLE_SHARE` of it) after the weights, the recurrent state
and `MARGIN_BYTES`. An `n_ctx` the user sets pins it instead. Either way the choice says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from .gguf_info import GgufInfo
from .registry import USABLE_SHARE, human_size

STEPS = (16_384, 32_768, 65_536, 131_072)
MARGIN_BYTES = 1024**3
"""Room for llama.cpp's compute buffers, a draft model's context and the app itself."""


@dataclass(frozen=True)
class ContextChoice:
    n_ctx: int
    reason: str
    """Why this size, in words a user reads in /status, `sigit doctor` and `qwen-runtime inspect`."""

    def describe(self) -> str:
        return f"{self.n_ctx:,} tokens ({self.reason})"


def choose_context(info: GgufInfo, memory: int | None, *, pinned: int | None = None) -> ContextChoice:
    """The context window for the model `info` describes on a machine with `memory` bytes (None:
    unknown); `pinned` (settings' `n_ctx`) wins when given."""
    trained = info.context_length or STEPS[0]
    if pinned == 0:
        return ContextChoice(trained, "n_ctx 0: the model's trained length")
    if pinned is not None:
        return ContextChoice(pinned, "set by n_ctx")
    steps = [s for s in STEPS if s <= trained] or [trained]
    layout = (f"{len(info.attention_layers)} of {len(info.attention_layers) + len(info.recurrent_layers)} "
              "layers keep a KV cache" if info.hybrid else "every layer keeps a KV cache")
    per_token = info.kv_bytes_per_token()
    if memory is None:
        return ContextChoice(steps[0], f"memory unknown: the smallest step; {layout}")
    budget = int(memory * USABLE_SHARE) - info.file_size - info.recurrent_state_bytes - MARGIN_BYTES
    fitting = [s for s in steps if s * per_token <= budget]
    capped = "" if steps[-1] == STEPS[-1] else f", trained for {trained:,}"
    if not fitting:
        return ContextChoice(steps[0], f"even the smallest step's KV cache ({human_size(steps[0] * per_token)}) "
                             f"does not fit beside the weights in {human_size(memory)}; {layout}")
    n_ctx = fitting[-1]
    return ContextChoice(n_ctx, f"KV cache {human_size(n_ctx * per_token)} of {human_size(max(0, budget))} free "
                         f"after the weights in {human_size(memory)}{capped}; {layout}")


__all__ = ["STEPS", "ContextChoice", "choose_context"]
