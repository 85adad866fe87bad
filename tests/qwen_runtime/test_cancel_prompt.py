"""Cancelling while llama.cpp evaluates a long prompt: the cancel is seen between prompt batches, in a
request's own prompt and in a prefill that a waiting request is stuck behind (a session's first, cold
turn: Ctrl+C took the whole system prompt's evaluation, ~8 s on a 270M model, before it was heard).

The tiny model evaluates 10,000 tokens in well under a second here, so the tests count the batches
llama.cpp is given after the cancel instead of timing it: none may start.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.runtime import CancelToken
from qwen_runtime.types import ChatRequest, Finished, Sampling, SystemMessage, UserMessage

PROMPT_TOKENS = 10_000


@pytest.fixture(scope="module")
def runtime(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=PROMPT_TOKENS + 2048, draft="none")
    yield rt
    rt.close()


def long_text(rt: LlamaCppRuntime) -> str:
    words = "the quick brown fox reads the file and writes a test for it "
    text = words
    while rt.count_tokens(text) < PROMPT_TOKENS:
        text += words * 50
    return text


class Batches:
    """Wraps `Llama.eval`: counts the batches it is given; at batch `pause_at` it waits for `go`."""

    def __init__(self, rt: LlamaCppRuntime, pause_at: int) -> None:
        self.llm: Any = rt._llm
        self.real = self.llm.eval
        self.calls = 0
        self.pause_at = pause_at
        self.paused = threading.Event()
        self.go = threading.Event()

    def __enter__(self) -> Batches:
        self.llm.eval = self.eval
        return self

    def __exit__(self, *_: object) -> None:
        self.llm.eval = self.real

    def eval(self, tokens: Any) -> None:
        self.calls += 1
        if self.calls == self.pause_at:
            self.paused.set()
            assert self.go.wait(30)
        self.real(tokens)


def test_a_cancel_during_the_prompt_stops_before_the_next_batch(runtime: LlamaCppRuntime) -> None:
    request = ChatRequest((UserMessage(long_text(runtime)),), sampling=Sampling(max_tokens=8))
    token = CancelToken()
    events: list[Any] = []
    with Batches(runtime, pause_at=3) as batches:
        reader = threading.Thread(target=lambda: events.extend(runtime.stream(request, token)))
        reader.start()
        assert batches.paused.wait(30)
        token.cancel()  # Ctrl+C while llama.cpp evaluates batch 3 of ~20
        at_cancel = batches.calls
        batches.go.set()
        reader.join(30)
    assert batches.calls == at_cancel, f"{batches.calls - at_cancel} batches evaluated after the cancel"
    finished = [e for e in events if isinstance(e, Finished)]
    assert finished and finished[-1].reason == "cancelled"


def test_a_cancelled_request_stops_the_prefill_it_waits_for(runtime: LlamaCppRuntime) -> None:
    system = SystemMessage(long_text(runtime))
    prefill = ChatRequest((system,))
    request = ChatRequest((system, UserMessage("hi")), sampling=Sampling(max_tokens=8))
    token = CancelToken()
    events: list[Any] = []
    with Batches(runtime, pause_at=3) as batches:
        warming = threading.Thread(target=runtime.prefill, args=(prefill,))
        warming.start()  # what a session starts when it opens, while the user types
        assert batches.paused.wait(30)
        reader = threading.Thread(target=lambda: events.extend(runtime.stream(request, token)))
        reader.start()  # the first prompt: it waits for the prefill
        for _ in range(3000):
            if runtime._waiting:
                break
            threading.Event().wait(0.01)
        assert runtime._waiting, "the request never queued for the model"
        token.cancel()
        at_cancel = batches.calls
        batches.go.set()
        warming.join(30)
        reader.join(30)
    assert batches.calls == at_cancel, f"{batches.calls - at_cancel} batches evaluated after the cancel"
    finished = [e for e in events if isinstance(e, Finished)]
    assert finished and finished[-1].reason == "cancelled"
    assert runtime.prefill(ChatRequest((SystemMessage("short"),))) > 0  # the model is usable afterwards
