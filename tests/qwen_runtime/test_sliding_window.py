"""A model with a sliding attention window (Gemma 3's layers) keeps only the window, as llama-server does.

Its windowed layers hold the last window's keys (`swa_full` off), so a prompt that shares only part of
what the cache holds can reuse it live only while the window before the shared part is still there;
otherwise a checkpoint serves it, and a cut that cannot be made is refused, never made wrong. The tiny
`gemma3` test model's window is 16 tokens; with 32-token batches its windowed cache holds 256 cells.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qwen_runtime.backends.llamacpp.load import LlamaHandle
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.testing.testmodel import SWA_WINDOW
from qwen_runtime.types import ChatRequest, Sampling, SystemMessage, UserMessage

from .prompt_logits import prompt_logits

SYSTEM = SystemMessage("You are a coding agent working in a repository. " * 10)
GREEDY = Sampling(max_tokens=12, temperature=0, seed=0)
LONG = "Here is a long file to read through before the question comes. " * 40
"""A user turn several times the windowed cache's 256 cells: the window before it is overwritten."""


def ask(text: str) -> ChatRequest:
    return ChatRequest((SYSTEM, UserMessage(text)), sampling=GREEDY, enable_thinking=False)


@pytest.fixture
def windowed(tiny_swa_gguf: Path) -> Iterator[LlamaCppRuntime]:
    rt = LlamaCppRuntime(str(tiny_swa_gguf), n_ctx=2048, n_ubatch=32, draft="none")
    yield rt
    rt.close()


@pytest.fixture
def fresh(tiny_swa_gguf: Path) -> Iterator[LlamaCppRuntime]:
    rt = LlamaCppRuntime(str(tiny_swa_gguf), n_ctx=2048, n_ubatch=32, draft="none", checkpoints=0)
    yield rt
    rt.close()


def system_tokens(rt: LlamaCppRuntime) -> int:
    """Tokens the two requests here share: the system turn and the user turn's opening."""
    a, b = (rt.prompt_tokens(rt.prompt_text(ask(t))) for t in (LONG, "What does main.py do?"))
    return next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)


def test_the_window_is_kept_as_llama_server_keeps_it(windowed: LlamaCppRuntime) -> None:
    assert windowed._native.attention_window == SWA_WINDOW
    assert windowed._native.llm.context_params.swa_full is False
    assert not windowed.cut_back  # a prefix may need a checkpoint, as a hybrid's does


def test_a_prompt_sharing_a_prefix_whose_window_is_gone_is_served_from_a_checkpoint(
    windowed: LlamaCppRuntime, fresh: LlamaCppRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    windowed.complete(ask(LONG))  # ~550 tokens in: the window before the shared system turn is overwritten
    shared = system_tokens(windowed)
    assert not windowed._native.can_cut_to(shared)
    follow = ask("What does main.py do?")
    expected, _ = prompt_logits(fresh, follow)
    got, cached = prompt_logits(windowed, follow)
    assert 0 < cached <= shared and windowed.last_restored == cached  # the checkpoint at the system turn
    assert np.array_equal(got, expected)

    # what the refusal prevents: the same cut made live attends to an overwritten window
    windowed.complete(ask(LONG))
    monkeypatch.setattr(LlamaHandle, "can_cut_to", lambda self, pos: True)
    windowed.prompt_cache.checkpoints.clear()
    wrong, cached = prompt_logits(windowed, follow)
    assert cached > 0 and windowed.last_restored == 0
    assert not np.allclose(wrong, expected, atol=1e-3)


def test_a_cut_inside_the_held_window_is_made_live(windowed: LlamaCppRuntime, fresh: LlamaCppRuntime) -> None:
    windowed.complete(ask("Read main.py please."))  # short: every position is still in the cache
    follow = ask("What does main.py do?")
    shared = system_tokens(windowed)
    assert windowed._native.can_cut_to(shared)
    expected, _ = prompt_logits(fresh, follow)
    got, cached = prompt_logits(windowed, follow)
    assert cached == shared and windowed.last_restored == 0  # cut back live, nothing restored
    assert np.allclose(got, expected, atol=1e-4)


@pytest.mark.parametrize("cut_back", [None, False], ids=["default", "checkpoints-only"])
def test_truncate_refuses_a_cut_past_the_held_window(tiny_swa_gguf: Path, cut_back: bool | None) -> None:
    rt = LlamaCppRuntime(str(tiny_swa_gguf), n_ctx=2048, n_ubatch=32, draft="none", cut_back=cut_back)
    try:
        rt.complete(ask(LONG))
        n = int(rt._native.llm.n_tokens)
        assert rt.truncate(n - 8)  # a rejected draft's tokens: the window before them is held
        assert int(rt._native.llm.n_tokens) == n - 8
        assert not rt.truncate(40)  # far back: refused, the cache left as it was
        assert int(rt._native.llm.n_tokens) == n - 8
        assert rt.complete(ask(LONG)).usage.cached_prompt_tokens > 0
    finally:
        rt.close()
