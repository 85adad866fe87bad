"""A reply together with the tokens the generation loop emitted, for the benches that compare drafted and
undrafted replies token for token (bench_draft_adaptive.py, bench_mtp.py)."""

from __future__ import annotations

from typing import Any

from qwen_runtime.backends import _generation
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.types import ChatRequest, Completion


def emitted_tokens(rt: LlamaCppRuntime, request: ChatRequest) -> tuple[Completion, list[int]]:
    """`rt`'s reply to `request` and the tokens its loop emitted (recorded where they enter the
    detokenizer, so tokens that decode to the same text still tell two replies apart)."""
    tokens: list[int] = []
    push = _generation.Utf8Detokenizer.push

    def record(self: Any, token: int) -> str:
        tokens.append(token)
        return str(push(self, token))

    setattr(_generation.Utf8Detokenizer, "push", record)  # noqa: B010
    try:
        done = rt.complete(request)
    finally:
        setattr(_generation.Utf8Detokenizer, "push", push)  # noqa: B010
    return done, tokens
