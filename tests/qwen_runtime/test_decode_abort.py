"""A cancel stops a prompt part-way through a `llama_decode`, not at the end of its batch (llama-server's
2,048 tokens a call; a minute on a loaded 2-core machine): what Esc and Ctrl+C rely on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.runtime import CancelToken
from qwen_runtime.types import ChatRequest, Completion, Sampling, UserMessage


@pytest.fixture(scope="module")
def rt(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    model = LlamaCppRuntime(str(tiny_gguf), n_ctx=8192, draft="none")
    yield model
    model.close()


def test_prompts_go_to_llama_cpp_in_llama_servers_batches(rt: LlamaCppRuntime) -> None:
    assert (rt.n_batch, rt.n_ubatch) == (2048, 512)


def test_a_cancel_during_a_batch_stops_it_there_and_the_model_goes_on_afterwards(rt: LlamaCppRuntime) -> None:
    assert rt._native.abort.available
    tokens = rt.tokenize("the quick brown fox reads the file and writes a test for it " * 200)[:1500]
    cancel = CancelToken()
    llm: Any = rt._llm
    real = llm.eval
    seen: list[int] = []

    def eval_cancelled_inside(batch: Any) -> None:
        seen.append(len(batch))
        cancel.cancel()  # from here on llama.cpp's abort callback says stop: this very batch is stopped
        real(batch)

    llm.eval = eval_cancelled_inside
    try:
        assert rt.eval_tokens(tokens, cancel) is False
    finally:
        llm.eval = real
    assert seen == [1500]  # one llama_decode for the whole prompt, stopped inside it
    assert int(llm.n_tokens) == 0  # nothing half-evaluated passes for cached
    request = ChatRequest((UserMessage("hi"),), sampling=Sampling(max_tokens=4, temperature=0), enable_thinking=False)
    again = rt.complete(request)  # the flag was cleared: the next request runs whole
    assert isinstance(again, Completion) and again.finish_reason != "cancelled" and again.usage.completion_tokens > 0
