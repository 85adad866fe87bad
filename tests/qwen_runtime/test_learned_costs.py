"""The draft costs one process measured are where the next one starts: a new `sigit -p` on a hybrid
does not spend its first requests keeping rollback snapshots to learn what this machine already showed;
damaged, foreign or other-setup records are not used."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import HYBRID_MAX_DRAFT, LlamaCppRuntime
from qwen_runtime.speed.draft_control import DraftController
from qwen_runtime.speed.learned_costs import LearnedCosts, read_learned, write_learned
from qwen_runtime.types import ChatRequest, Sampling, UserMessage

CALC = "".join(f'def {name}(a, b):\n    """The {what} of a and b."""\n    return a {op} b\n\n\n'
               for name, what, op in (("add", "sum", "+"), ("sub", "difference", "-"), ("mul", "product", "*"),
                                      ("div", "quotient", "/")))
REWRITE = ChatRequest((UserMessage(f"Here is calc.py:\n{CALC}\nRepeat it with add renamed to plus."),),
                      sampling=Sampling(temperature=0, max_tokens=24), enable_thinking=False)
COPY = ChatRequest((UserMessage(f"Here is calc.py:\n```python\n{CALC}```\nRepeat calc.py exactly, with `add` "
                               "renamed to `plus`."),), sampling=Sampling(temperature=0, max_tokens=60),
                   enable_thinking=False)
NOTHING_PAYS = LearnedCosts({2: 1.95, 9: 8.6}, 1.1)  # one thread: a batch costs about its tokens
CHEAP = LearnedCosts({2: 1.02, 9: 1.2}, 1.05)  # many cores: verifying is nearly free


def hybrid(model: Path, cache: Path, **kwargs: object) -> LlamaCppRuntime:
    return LlamaCppRuntime(str(model), n_ctx=512, prompt_cache_dir=str(cache), **kwargs)  # type: ignore[arg-type]


def path_for(model: Path, cache: Path, **kwargs: object) -> Path:
    rt = hybrid(model, cache, **kwargs)
    try:
        assert rt.learned_costs_path is not None
        return rt.learned_costs_path
    finally:
        rt.close()


@contextlib.contextmanager
def opened_where_nothing_pays(model: Path, tmp_path: Path) -> Iterator[tuple[LlamaCppRuntime, LlamaCppRuntime]]:
    """The hybrid loaded where an earlier process measured that no draft pays, and the model undrafted."""
    cache = tmp_path / "cache"
    write_learned(path_for(model, cache), NOTHING_PAYS)
    plain = LlamaCppRuntime(str(model), n_ctx=512, draft="none")
    rt = hybrid(model, cache)
    try:
        yield rt, plain
    finally:
        rt.close()
        plain.close()


def test_what_a_process_measured_is_where_the_next_one_starts(tiny_hybrid_gguf: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = hybrid(tiny_hybrid_gguf, cache)
    try:
        assert first.verify_costs is None  # nothing measured here before: the controller measures
        policy = first.draft_controller()
        assert isinstance(policy, DraftController)
        for tokens, seconds in [(1, 0.01), (1, 0.01), (3, 0.016), (3, 0.016), (9, 0.05), (9, 0.05)]:
            policy.cost.observe(tokens, seconds)  # the first of each size only sizes buffers
        first.request_finished()
        assert first.learned_costs_path is not None
        saved = read_learned(first.learned_costs_path)
        assert saved is not None and saved.verify_costs == pytest.approx({3: 1.6, 9: 5.0})
        assert saved.rollback_overhead is None  # no paused step timed yet
    finally:
        first.close()
    second = hybrid(tiny_hybrid_gguf, cache)
    try:
        assert dict(second.verify_costs or {}) == pytest.approx({3: 1.6, 9: 5.0})
        policy = second.draft_controller()
        assert isinstance(policy, DraftController) and policy.cost.knows_batches()
    finally:
        second.close()


def test_every_request_that_could_draft_ends_by_keeping_what_it_measured(
    tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended: list[int] = []
    monkeypatch.setattr(LlamaCppRuntime, "request_finished", lambda self: ended.append(1))
    rt = hybrid(tiny_hybrid_gguf, tmp_path / "cache")
    try:
        for _ in range(3):
            rt.complete(REWRITE)
    finally:
        rt.close()
    assert len(ended) == 3


def test_a_hybrid_whose_known_costs_say_no_draft_pays_opens_without_snapshots(
    tiny_hybrid_gguf: Path, tmp_path: Path
) -> None:
    """No request spent learning, and no reopening at the first request: the context opens without them."""
    with opened_where_nothing_pays(tiny_hybrid_gguf, tmp_path) as (rt, plain):
        assert rt.rollback_snapshots == 0 and rt.overhead_prior == pytest.approx(1.1)
        want = plain.complete(REWRITE).text
        for _ in range(3):
            reply = rt.complete(REWRITE)
            assert reply.text == want and reply.usage.drafted_tokens == 0 and reply.usage.draft_backed_off
            assert rt.rollback_snapshots == 0


def test_where_known_costs_say_drafts_pay_the_hybrid_keeps_its_snapshots(
    tiny_hybrid_gguf: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    write_learned(path_for(tiny_hybrid_gguf, cache), CHEAP)
    rt = hybrid(tiny_hybrid_gguf, cache)
    try:
        assert rt.rollback_snapshots == 0  # allocated at the first draft, not at load (issue 52)
        assert rt.complete(COPY).usage.drafted_tokens > 0
        assert rt.rollback_snapshots == HYBRID_MAX_DRAFT
    finally:
        rt.close()


@pytest.mark.parametrize("saved", [b"{broken", b'{"verify_costs": {"2": -1}}', b'{"verify_costs": {}}',
                                   b'{"verify_costs": {"1": 1.0, "0": 3}}', b'{"verify_costs": {"2": 1.5}, '
                                   b'"rollback_overhead": 7}', b"[]"])
def test_a_damaged_record_is_not_used(tiny_hybrid_gguf: Path, tmp_path: Path, saved: bytes) -> None:
    cache = tmp_path / "cache"
    path_for(tiny_hybrid_gguf, cache).write_bytes(saved)
    rt = hybrid(tiny_hybrid_gguf, cache)
    try:
        assert rt.verify_costs is None and rt.rollback_snapshots == 0  # none before a first draft
    finally:
        rt.close()


def test_costs_given_or_another_setup_are_not_mixed_with_a_record(tiny_hybrid_gguf: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    write_learned(path_for(tiny_hybrid_gguf, cache, n_threads=2), NOTHING_PAYS)
    paths = {path_for(tiny_hybrid_gguf, cache, n_threads=t, n_ubatch=u)
             for t, u in itertools.product((1, 2), (64, 512))}
    assert len(paths) == 4  # threads and batch sizes change what a batch costs
    given = hybrid(tiny_hybrid_gguf, cache, n_threads=2, verify_costs={2: 1.1})
    try:
        assert given.verify_costs == {2: 1.1} and given.learned_costs_path is None
    finally:
        given.close()
    undrafted = hybrid(tiny_hybrid_gguf, cache, n_threads=2, draft="none")
    try:
        assert undrafted.learned_costs_path is None
    finally:
        undrafted.close()


def test_an_unwritable_cache_folder_costs_only_the_saving(tiny_hybrid_gguf: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    rt = hybrid(tiny_hybrid_gguf, blocked)
    try:
        rt.complete(REWRITE)
        rt.request_finished()
    finally:
        rt.close()




def test_a_hybrid_opened_without_snapshots_gets_them_back_when_drafting_comes_to_pay(
    tiny_hybrid_gguf: Path, tmp_path: Path
) -> None:
    with opened_where_nothing_pays(tiny_hybrid_gguf, tmp_path) as (rt, plain):
        assert rt.rollback_snapshots == 0 and rt.draft_source is not None  # drafting off for now, not for good
        rt.draft_policy = DraftController(rt.max_draft, verify_costs=CHEAP.verify_costs)  # the machine freed up
        reply = rt.complete(COPY)
        assert rt.rollback_snapshots == HYBRID_MAX_DRAFT and reply.usage.drafted_tokens > 0
        assert reply.text == plain.complete(COPY).text
