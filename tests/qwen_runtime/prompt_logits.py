"""What a prompt leaves in a llama.cpp runtime: one definition for the prompt-cache tests."""

from __future__ import annotations

import numpy as np
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.types import ChatRequest


def prompt_logits(rt: LlamaCppRuntime, req: ChatRequest) -> tuple[np.ndarray, int]:
    """The logits after `req`'s prompt, reusing what `rt` holds, and how many tokens it reused."""
    tokens = rt.prompt_tokens(rt.prompt_text(req))
    with rt._lock:
        cached = rt.reuse_prefix(tokens)
        assert rt.eval_prompt(req, tokens, cached)
        return rt.logits().copy(), cached
