"""What the llama.cpp backend chooses for speed at load: flash attention as llama-server chooses it
(llama.cpp's auto), and a hybrid's rollback snapshots allocated at its first draft instead of at load
(they cost memory and a few percent of every step: +258 MiB on the 0.8B shape)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from qwen_runtime import ChatRequest, Sampling, UserMessage
from qwen_runtime.backends.llamacpp.load import FLASH_ATTN_AUTO, Placement, open_llama
from qwen_runtime.backends.llamacpp.runtime import HYBRID_MAX_DRAFT, LlamaCppRuntime
from qwen_runtime.backends.llamacpp.threads import BATCH_TIMED_FROM, FollowedThreads
from qwen_runtime.speed.draft_control import DraftController

from .samples import CALC


def ask(text: str, max_tokens: int = 40) -> ChatRequest:
    return ChatRequest(
        (UserMessage(text),), sampling=Sampling(temperature=0, max_tokens=max_tokens), enable_thinking=False
    )


def rewrite() -> ChatRequest:
    return ask(f"Here is calc.py:\n```python\n{CALC}```\nRepeat calc.py exactly, with `add` renamed to `plus`.", 120)


def drafting(path: Path, **kwargs: Any) -> LlamaCppRuntime:
    """The model with prompt lookup, its controller timing a machine with cores to spare (scripted: the
    choices do not depend on how busy this machine is)."""
    rt = LlamaCppRuntime(str(path), n_ctx=1024, **kwargs)
    rt.draft_policy = DraftController(rt.max_draft, cost_model=lambda n: 1 + 0.05 * (n - 1))
    return rt


def snapshots_in_llama(rt: LlamaCppRuntime) -> int:
    """The rollback snapshots per sequence llama.cpp's context holds (`llama_n_rs_seq`)."""
    from qwen_runtime.backends.llamacpp.lib import llama_cpp

    return int(llama_cpp.llama_n_rs_seq(rt._native.llm.ctx))


# ---------------------------------------------------------------- flash attention


@pytest.mark.parametrize("model", ["tiny_gguf", "tiny_hybrid_gguf"])
def test_flash_attention_is_llama_cpps_auto_and_the_loaded_model_says_what_it_resolved_to(
    model: str, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="qwen_runtime")
    rt = LlamaCppRuntime(str(request.getfixturevalue(model)), n_ctx=512, draft="none")
    try:
        assert rt._native.llm.context_params.flash_attn_type == FLASH_ATTN_AUTO
        # the CPU backend runs flash attention, so auto turns it on (as llama-server's default does)
        assert rt.flash_attention == "enabled"
        assert "flash attention: enabled" in caplog.text
    finally:
        rt.close()


def test_a_quiet_load_that_did_not_hear_llama_cpp_says_auto_not_a_guess(tiny_gguf: Path) -> None:
    handle = open_llama(tiny_gguf, 256, Placement.choose(1, 1, 0, None), snapshots=0, verbose=False, quiet=True)
    try:
        assert handle.flash_attention == "auto"
        assert handle.llm.context_params.flash_attn_type == FLASH_ATTN_AUTO
    finally:
        handle.llm.close()


def test_a_reopened_context_keeps_flash_attention_auto(tiny_hybrid_gguf: Path) -> None:
    handle = open_llama(tiny_hybrid_gguf, 256, Placement.choose(1, 1, 0, None), snapshots=0, verbose=False)
    try:
        assert handle.reopen(HYBRID_MAX_DRAFT)
        assert handle.llm.context_params.flash_attn_type == FLASH_ATTN_AUTO
    finally:
        handle.llm.close()


# ---------------------------------------------------------------- rollback snapshots, lazily


def test_a_hybrid_that_never_drafts_holds_no_rollback_snapshots(tiny_hybrid_gguf: Path) -> None:
    rt = drafting(tiny_hybrid_gguf)  # prompt lookup: drafting available
    try:
        assert rt.draft_source is not None
        assert rt.rollback_snapshots == 0 == snapshots_in_llama(rt)  # none at load
        done = rt.complete(ask("What is two plus two?"))  # nothing in it to copy
        assert done.usage.completion_tokens > 20 and done.usage.drafted_tokens == 0
        assert rt.rollback_snapshots == 0 == snapshots_in_llama(rt)  # nor after a reply that drafted nothing
    finally:
        rt.close()


def test_the_first_draft_allocates_the_snapshots_and_the_reply_is_the_eager_ones_token_for_token(
    tiny_hybrid_gguf: Path, emitted: list[list[int]]
) -> None:
    lazy = drafting(tiny_hybrid_gguf)
    eager = drafting(tiny_hybrid_gguf)
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, draft="none")
    try:
        assert eager.prepare_draft(HYBRID_MAX_DRAFT)  # snapshots from the start, as loads made them before
        assert snapshots_in_llama(eager) == HYBRID_MAX_DRAFT and snapshots_in_llama(lazy) == 0
        want = plain.complete(rewrite())
        before = eager.complete(rewrite())
        got = lazy.complete(rewrite())
        assert got.usage.drafted_tokens > 0 and before.usage.drafted_tokens > 0
        assert snapshots_in_llama(lazy) == HYBRID_MAX_DRAFT == lazy.rollback_snapshots  # allocated mid-reply
        assert emitted[2] == emitted[1] == emitted[0] and got.text == before.text == want.text
        # the next request reuses the prompt kept through the reopened context
        again = lazy.complete(rewrite())
        assert again.usage.cached_prompt_tokens > 0 and again.text == want.text
        assert plain.rollback_snapshots == 0 == snapshots_in_llama(plain)
    finally:
        for rt in (lazy, eager, plain):
            rt.close()


def test_a_model_that_cannot_take_drafts_back_drafts_nothing_and_says_so_once(
    tiny_hybrid_gguf: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """llama.cpp keeps no snapshots for a recurrent architecture that cannot roll back: the first draft
    finds that out, and the reply goes on undrafted (what it emits unchanged)."""
    rt = drafting(tiny_hybrid_gguf)
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, draft="none")
    monkeypatch.setattr(rt._native, "reopen", lambda snapshots: False)
    caplog.set_level(logging.INFO, logger="qwen_runtime")
    try:
        done = rt.complete(rewrite())
        assert done.usage.drafted_tokens == 0 and done.text == plain.complete(rewrite()).text
        assert caplog.text.count("keeps no rollback snapshots") == 1
        assert rt.draft_source is None and not rt.drafting_now()  # later requests do not try again
    finally:
        rt.close()
        plain.close()


# ---------------------------------------------------------------- threads that follow the machine


def test_threads_from_the_budget_follow_the_machine_and_given_ones_stay(tiny_gguf: Path) -> None:
    from qwen_runtime.backends.llamacpp.lib import llama_cpp

    given = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none", n_threads=1, n_threads_batch=1)
    followed = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none", tuned=False)
    try:
        assert given.threads is None and isinstance(followed.threads, FollowedThreads)
        # two threads each way on a machine where one is faster (synthetic step times, a shared machine)
        threads = followed.threads = FollowedThreads(followed._native, 2, 2)
        for control in (threads.decode, threads.batch):
            control.load = lambda: 6.0
        ctx = followed._native.llm.ctx
        for _ in range(200):
            decode = threads.running[0]
            threads.evaluated(1, {1: 1.0, 2: 1.5}[decode])
            assert int(llama_cpp.llama_n_threads(ctx)) == threads.running[0]
        for _ in range(40):
            batch = threads.running[1]
            threads.evaluated(BATCH_TIMED_FROM, {1: 1.0, 2: 1.5}[batch] * BATCH_TIMED_FROM)
            assert int(llama_cpp.llama_n_threads_batch(ctx)) == threads.running[1]
        assert (threads.decode.current, threads.batch.current) == (1, 1)
        # the model still generates with what was chosen, and a context reopened later keeps it
        assert followed.complete(ask("Say something.", 5)).usage.completion_tokens > 0
        assert followed._native.reopen(0)
        assert int(llama_cpp.llama_n_threads(followed._native.llm.ctx)) == threads.running[0]
    finally:
        given.close()
        followed.close()


@pytest.fixture
def busy_batch_threads(tiny_gguf: Path) -> Iterator[FollowedThreads]:
    """A real runtime's followed threads, two each way, whose batch control sees a machine at load 6 (its
    probes come soon); the batch step times are the test's own."""
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none", tuned=False)
    try:
        threads = rt.threads = FollowedThreads(rt._native, 2, 2)
        threads.batch.load = lambda: 6.0
        yield threads
    finally:
        rt.close()


def test_a_prompts_dearer_second_batch_is_not_always_the_probed_counts(busy_batch_threads: FollowedThreads) -> None:
    """An agent's ~3,000-token prompt goes to llama.cpp as a 2,048-token batch and a shorter one further
    along, which costs more per token. Here one batch thread is truly 8% faster while every second batch
    costs 30% more per token: the probe still finds the faster count (alternating one batch each, the
    probed count would always have had the dearer batch, and the settled one every cheap first one)."""
    threads = busy_batch_threads
    for _ in range(60):
        for position_cost in (1.0, 1.3):  # the prompt's first batch, then its dearer second one
            speed = {1: 0.92, 2: 1.0}[threads.running[1]]
            threads.evaluated(BATCH_TIMED_FROM, speed * position_cost * BATCH_TIMED_FROM)
        if threads.batch.decisions:
            break
    assert threads.batch.decisions[0] == (2, 1, True) and threads.running[1] == 1


def test_a_probe_that_got_the_larger_batches_is_not_kept_for_them(busy_batch_threads: FollowedThreads) -> None:
    """An agent's later prompts are tool results of every size, and per token a small batch costs more
    (Gemma 3 270M: 2.8 ms at 32 tokens, 2.0 ms at 512). Here one batch thread is truly 8% slower, yet it
    gets mostly large batches while two threads get mostly small ones: compared like with like, two stay."""
    threads = busy_batch_threads
    sizes = {1: iter((512, 512, 40) * 100), 2: iter((40, 40, 512) * 100)}
    for _ in range(200):
        count = threads.running[1]
        size = next(sizes[count])
        threads.evaluated(size, {1: 1.08, 2: 1.0}[count] * (1 + 12 / size) * size)
        if threads.batch.decisions:
            break
    assert threads.batch.decisions[0] == (2, 1, False) and threads.running[1] == 2


# ---------------------------------------------------------------- sampling


def test_greedy_sampling_by_argmax_picks_what_llama_cpps_greedy_sampler_picks(tiny_gguf: Path) -> None:
    """Greedy with no penalties skips llama.cpp's sampler (which sorts the whole vocabulary per token) for an
    argmax over the same logits, masked ones included; with penalties the chain still samples."""
    from qwen_runtime.backends.llamacpp.sampling import LlamaSampler, plain_greedy, sampler_chain

    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none")
    try:
        greedy = Sampling(temperature=0)
        assert plain_greedy(greedy) and not plain_greedy(Sampling(temperature=0, presence_penalty=1.0))
        assert not plain_greedy(Sampling(temperature=0.7))
        fast = rt.new_sampler(greedy)
        chain = LlamaSampler(sampler_chain(greedy, rt._n_vocab, 64), rt._native, lambda: -1)
        rt.eval_tokens(rt.tokenize("The quick brown fox jumps over"))
        for step in range(12):
            logits = rt.logits()
            if step % 3 == 2:  # as the tool-call constraint masks them, in place
                logits[np.argsort(logits)[-2:]] = -np.inf
            token = fast.sample()
            assert token == chain.sample()
            rt.eval_tokens([token])
        fast.close()
        chain.close()
    finally:
        rt.close()
