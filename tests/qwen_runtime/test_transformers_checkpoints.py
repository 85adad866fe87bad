"""The transformers backend on a hybrid model (the tiny `qwen3_5` folder: Gated DeltaNet layers whose cache
transformers cannot crop) keeps cache checkpoints: a follow-up prompt restores the longest prefix it
shares and evaluates only the rest, and its reply is the one a cold model gives."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime import AssistantMessage, ChatRequest, Completion, Sampling, SystemMessage, UserMessage
from qwen_runtime.backends.transformers_backend import TransformersRuntime

pytestmark = pytest.mark.timeout(300)

SYSTEM = SystemMessage("You are a careful coding assistant. Answer briefly and exactly. " * 6)


def ask(*messages: Any) -> ChatRequest:
    return ChatRequest((SYSTEM, *messages), sampling=Sampling(temperature=0, max_tokens=12), enable_thinking=False)


@pytest.fixture(scope="module")
def hybrid(tiny_hybrid_hf_dir: Path) -> Iterator[TransformersRuntime]:
    import torch

    threads = torch.get_num_threads()
    rt = TransformersRuntime(str(tiny_hybrid_hf_dir), n_threads=1, n_ctx=2048)
    yield rt
    rt.close()
    torch.set_num_threads(threads)


@pytest.fixture
def evaluated(hybrid: TransformersRuntime, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of tokens each forward pass of `hybrid` evaluates while it evaluates a prompt."""
    counts: list[int] = []
    forward, eval_prompt = hybrid.forward, hybrid.eval_prompt
    in_prompt = [False]

    def counted(tokens: Sequence[int], rows: int = 1) -> Any:
        if in_prompt[0]:
            counts.append(len(tokens))
        return forward(tokens, rows)

    def prompt(*args: Any, **kwargs: Any) -> bool:
        in_prompt[0] = True
        try:
            return eval_prompt(*args, **kwargs)
        finally:
            in_prompt[0] = False

    monkeypatch.setattr(hybrid, "forward", counted)
    monkeypatch.setattr(hybrid, "eval_prompt", prompt)
    return counts


def cold(rt: TransformersRuntime, request: ChatRequest) -> Completion:
    rt.clear_cache()
    return rt.complete(request)


def test_the_hybrid_cache_cannot_be_cropped_so_checkpoints_are_kept(hybrid: TransformersRuntime) -> None:
    assert hybrid.draft_source is None and hybrid.checkpoints.limit > 0
    hybrid.clear_cache()
    prompt = hybrid.prompt_tokens(hybrid.prompt_text(ask(UserMessage("Say hi."))))
    assert hybrid.eval_tokens(prompt)
    assert not hybrid.truncate(len(prompt) - 3)  # transformers refuses to cut a linear-attention state back


def test_a_new_question_after_the_same_system_prompt_evaluates_only_the_question(
    hybrid: TransformersRuntime, evaluated: list[int]
) -> None:
    second = ask(UserMessage("What does sorted() return for a list of strings?"))
    want = cold(hybrid, second)
    hybrid.clear_cache()
    hybrid.complete(ask(UserMessage("Rename add to plus in calc.py.")))
    evaluated.clear()
    got = hybrid.complete(second)
    usage = got.usage
    stable = len(hybrid.prompt_tokens(hybrid.prefix_text(ChatRequest((SYSTEM,)))))
    assert usage.restored_prompt_tokens == usage.cached_prompt_tokens == stable > 0
    assert sum(evaluated) == usage.prompt_tokens - stable  # the question and the generation prompt only
    assert got.text == want.text and usage.completion_tokens == want.usage.completion_tokens


def test_a_follow_up_turn_restores_the_conversation_and_replies_as_a_cold_model(
    hybrid: TransformersRuntime, evaluated: list[int]
) -> None:
    first = ask(UserMessage("Write a function that adds two numbers."))
    hybrid.clear_cache()
    reply = hybrid.complete(first)
    follow = ask(first.messages[1], AssistantMessage(reply.text), UserMessage("Now make it subtract."))
    evaluated.clear()
    warm = hybrid.complete(follow)
    assert warm.usage.cached_prompt_tokens > len(hybrid.prompt_tokens(hybrid.prefix_text(first))) - 8
    assert 0 < sum(evaluated) == warm.usage.prompt_tokens - warm.usage.cached_prompt_tokens
    want = cold(hybrid, follow)
    assert warm.text == want.text and warm.usage.completion_tokens == want.usage.completion_tokens


def test_checkpoints_are_bounded_the_oldest_dropped(tiny_hybrid_hf_dir: Path) -> None:
    rt = TransformersRuntime(str(tiny_hybrid_hf_dir), n_threads=1, n_ctx=2048, checkpoints=2)
    try:
        for question in ("One?", "Two?", "Three?"):
            rt.complete(
                ChatRequest(
                    (UserMessage(question),), sampling=Sampling(temperature=0, max_tokens=2), enable_thinking=False
                )
            )
            assert len(rt.checkpoints) <= 2
        again = rt.complete(
            ChatRequest((UserMessage("One?"),), sampling=Sampling(temperature=0, max_tokens=2), enable_thinking=False)
        )
        assert again.usage.restored_prompt_tokens == 0  # its checkpoints were the oldest: gone
        rt.clear_cache()
        assert len(rt.checkpoints) == 0
    finally:
        rt.close()
