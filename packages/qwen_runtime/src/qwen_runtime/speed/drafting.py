"""Speculative decoding for the shared token loop: draft sources, the drafter that asks them for what
its `DraftPolicy` wants (the cost-aware `DraftController` of draft_control.py by default) and times what
they and the verifying batches cost, and the bookkeeping that keeps the KV cache equal to what the loop
accepted.

Most of what a coding agent writes is copied from its context (`old_text`, whole-file rewrites, paths),
so a cheap guess of the next tokens is often right. After the loop has decided a batch of tokens,
`Drafter.advance` evaluates that batch and a draft of up to K guessed tokens in one forward pass,
keeping logits for every drafted position. The loop then samples at each of those positions exactly as
it would have without a draft (same mask, same sampler, same random draws); while what it samples
equals the draft, the next position's logits are already there and cost nothing. At the first
difference the rest of the draft is removed from the KV cache as if it had never been evaluated.

Acceptance rule: the target token at each drafted position is drawn from the target's own
distribution p (greedy at temperature 0) and the draft token x is accepted iff it equals that token.
For a deterministic draft (prompt lookup, a greedy draft model: q is a point mass on x) this is the
standard speculative-sampling rule: x is accepted with probability min(1, p(x)/q(x)) = p(x), and on
rejection the token comes from p with x removed and renormalised, since the draw already was not x.
The output distribution is exactly p's, and with a fixed seed the random draws happen in the same
order as without drafting, so only float rounding between batched and single-token logits can make
the two outputs differ (at near-ties; README has the measured rate).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..errors import ModelLoadError
from ..runtime import CancelToken
from .draft_control import Clock, DraftController, DraftPolicy, FixedDraftLength
from .draft_sources import DRAFT_CHOICES, MTP, NO_DRAFT, PROMPT_LOOKUP, DraftSpec, parse_draft

log = logging.getLogger(__name__)

class DraftSource(Protocol):
    """Guesses the tokens that follow `context` (the prompt and the reply so far)."""

    def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
        """Up to `k` tokens that may come next; fewer or none when there is no good guess."""

    def close(self) -> None:
        """Free what the source holds."""


class DraftTarget(Protocol):
    """What the drafter needs of a backend beyond `eval_tokens`."""

    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool: ...

    def eval_with_rows(self, tokens: Sequence[int], rows: int) -> None:
        """Evaluate `tokens` in one pass, keeping the logits of the last `rows` positions; row 0 is current."""

    def select_row(self, row: int) -> None:
        """Make row `row` of the last `eval_with_rows` the logits that `logits()` and the sampler read."""

    def truncate(self, n_tokens: int) -> bool:
        """Keep the first `n_tokens` of the KV cache; False when the model cannot drop tokens."""

    def clear_cache_unlocked(self) -> None: ...

    # optional: `prepare_draft(n) -> bool`, ready to take back n drafted tokens (a hybrid allocates its
    # rollback snapshots at its first draft; False: do not draft), and `rollback_live`, whether a
    # one-token step now pays for them (the drafter times steps before the first draft as plain ones)


SHADOW_LENGTH = 2
"""Tokens of a shadow draft (`Drafter._shadow_draft`): short, so that it is judged within two steps and
the next one asked (a long one right all through would be judged only at its end, while the copy it
found went undrafted); the rates still learn how runs continue from the drafts made once it pays."""


class PromptLookup:
    """Prompt-lookup drafting: find the latest earlier occurrence of the context's last n tokens
    (longest n first) and propose what followed it. Costs a few numpy scans, no model call."""

    free_proposals = True
    """Proposing costs nothing: while backed off it is still asked, and its unevaluated proposal is
    compared with what the model emits (`Drafter`'s shadow draft, the policy's `observed`)."""

    def __init__(self, max_ngram: int = 4, min_ngram: int = 2) -> None:
        self.max_ngram = max_ngram
        self.min_ngram = min_ngram

    def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
        size = int(context.shape[0])
        if k <= 0:
            return []
        for n in range(min(self.max_ngram, size - 1), self.min_ngram - 1, -1):
            suffix = context[size - n :]
            # candidate starts: where the n-gram's first token occurs, the suffix itself excluded
            starts = np.flatnonzero(context[: size - n] == suffix[0])
            for i in range(1, n):
                if not starts.size:
                    break
                starts = starts[context[starts + i] == suffix[i]]
            if starts.size:
                at = int(starts[-1]) + n
                return [int(t) for t in context[at : at + k]]
        return []

    def close(self) -> None:
        pass


class DraftModel(Protocol):
    """What a draft model must offer to draft (an in-process backend's runtime, `LocalRuntime`, does):
    its KV cache reused by prefix, tokens evaluated, the last logits, its end tokens."""

    @property
    def context_size(self) -> int: ...

    def reuse_prefix(self, tokens: Sequence[int]) -> int: ...

    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool: ...

    def logits(self) -> npt.NDArray[np.float32]: ...

    def is_end(self, token: int) -> bool: ...

    def close(self) -> None: ...


class ModelDraft:
    """A small model with the same tokenizer drafting greedily; its own KV cache follows the context
    by prefix reuse, so only new tokens are evaluated on each proposal."""

    def __init__(self, runtime: DraftModel) -> None:
        self.runtime = runtime

    def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
        rt = self.runtime
        if k <= 0 or context.shape[0] + k >= rt.context_size:
            return []
        tokens = context.tolist()
        cached = rt.reuse_prefix(tokens)
        rt.eval_tokens(tokens[cached:])
        out: list[int] = []
        while True:
            token = int(np.argmax(rt.logits()))
            if rt.is_end(token):
                break
            out.append(token)
            if len(out) >= k:
                break
            rt.eval_tokens([token])
        return out

    def close(self) -> None:
        self.runtime.close()


class LongestDraft:
    """Several sources asked in turn; the longest proposal wins. Prompt lookup goes first: it costs no
    model call, and when it already fills the draft the model's own head is not asked. The `Drafter`
    asks the parts itself, each for the length the policy wants of it (their acceptance differs)."""

    def __init__(self, *sources: DraftSource) -> None:
        self.sources = sources

    def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
        best: list[int] = []
        for source in self.sources:
            if len(best) >= k:
                break
            got = source.propose(context, k)
            if len(got) > len(best):
                best = got
        return best

    def close(self) -> None:
        for source in self.sources:
            source.close()


@dataclass
class DraftLength:
    """The schedule before the cost-aware `DraftController` (kept as a `DraftPolicy`): how many tokens to
    draft next from acceptance alone: doubles while whole drafts are accepted, follows the accepted
    length after a partial one, halves on a miss down to 0, and then probes with one token every
    `probe_every` steps, a wait that doubles (up to `probe_max`) with each failed probe."""

    k_max: int = 12
    k: int = 4
    probe_every: int = 16
    probe_max: int = 256
    _idle: int = 0
    _wait: int = 0
    clock: Clock = time.perf_counter

    @classmethod
    def up_to(cls, k_max: int) -> DraftLength:
        """The default schedule with drafts of at most `k_max` tokens (a hybrid model can drop only as
        many rejected tokens as it keeps recurrent-state snapshots)."""
        k_max = max(1, min(cls.k_max, k_max))
        return cls(k_max=k_max, k=min(cls.k, k_max))

    def want(self, source: object = None) -> int:
        if self.k > 0:
            return self.k
        self._idle += 1
        if self._idle >= (self._wait or self.probe_every):
            self._idle = 0
            return 1
        return 0

    def update(self, drafted: int, accepted: int) -> None:
        if self.k == 0 and accepted == 0:  # a failed probe: wait longer for the next one
            self._wait = min(self.probe_max, 2 * (self._wait or self.probe_every))
            return
        if accepted > 0:
            self._wait = 0
        if accepted >= drafted:
            self.k = min(self.k_max, max(self.k, 1) * 2)
        elif accepted == 0:
            self.k //= 2
        else:
            self.k = min(self.k_max, accepted + 1)

    def begin(self) -> None:
        pass

    def evaluated(self, tokens: int, seconds: float) -> None:
        pass

    def proposed(self, source: object, tokens: int, seconds: float) -> None:
        pass

    def verified(self, source: object, drafted: int, accepted: int) -> None:
        self.update(drafted, accepted)


@dataclass(frozen=True)
class DraftReport:
    """What the draft length policy decided over one reply (it goes into `Usage`)."""

    length: int = 0
    """The draft length chosen for most of the reply's steps (0: mostly no draft)."""
    verify_cost: float = 0.0
    """What verifying a draft of `length` tokens (of the longest allowed, when 0) costs, in one-token steps."""
    acceptance: float = 0.0
    """The per-token acceptance rate of the source that drafted most (smoothed, across requests)."""
    backed_off: bool = False
    """Drafting had stopped paying and was backed off (only probes) when the reply ended."""


@dataclass
class Drafter:
    """One request's speculative state, standing in for the loop's `eval_tokens(batch)`.

    `limit(draft)` says how much of a proposal may be evaluated (end tokens, the tool-call grammar);
    `n_past` is what the KV cache holds when the loop starts (the prompt). `policy` chooses each step's
    draft length and is told what evaluations and proposals cost (timed with its clock) and what was
    accepted; `max_draft` caps any policy's choice (the model's rollback limit).
    """

    target: DraftTarget
    source: DraftSource
    context: list[int]
    limit: Callable[[list[int]], int]
    policy: DraftPolicy = field(default_factory=DraftController)
    max_draft: int = DraftLength.k_max
    drafted: int = 0
    accepted: int = 0
    #: evaluated draft tokens the loop has not yet confirmed (the current row predicts the first)
    _inflight: list[int] = field(default_factory=list)
    _row: int = 0
    _draft_size: int = 0
    _draft_accepted: int = 0
    _draft_from: DraftSource | None = None
    _off: bool = False
    _shadow: list[int] = field(default_factory=list)
    """A free source's proposal not evaluated (it was backed off), still being compared with the reply."""
    _shadow_size: int = 0
    _shadow_matched: int = 0
    _shadow_from: DraftSource | None = None
    _chosen: Counter[int] = field(default_factory=Counter)
    _drafted_by: Counter[int] = field(default_factory=Counter)
    _n_past: int = field(init=False)
    _buffer: npt.NDArray[np.int32] = field(init=False)

    def __post_init__(self) -> None:
        self._n_past = len(self.context)
        self._buffer = np.zeros(max(64, 2 * len(self.context)), dtype=np.int32)
        self._buffer[: len(self.context)] = self.context
        self._size = len(self.context)
        self._parts: tuple[DraftSource, ...] = (
            self.source.sources if isinstance(self.source, LongestDraft) else (self.source,))
        self.policy.begin()

    @property
    def length(self) -> DraftPolicy:
        """The policy under its former name (it was always a `DraftLength`)."""
        return self.policy

    def advance(self, batch: Sequence[int], room: int) -> None:
        """`batch` was emitted: confirm it against the draft in flight, or evaluate it with a new draft.
        `room` is how many more tokens the loop may emit after this batch."""
        self._append(batch)
        if self._shadow:
            self._follow_shadow(batch)
        if self._inflight:
            m = _common_prefix(self._inflight, batch)
            self.accepted += m
            self._draft_accepted += m
            self._n_past += m
            if m == len(batch):
                del self._inflight[:m]
                self._row += m
                self.target.select_row(self._row)
                if not self._inflight:
                    self._verified()
                return
            self._verified()
            self._inflight = []
            self._drop_rest()
            batch = batch[m:]
        draft = self._propose(room)
        clock = self.policy.clock
        started = clock()
        if draft:
            self.target.eval_with_rows([*batch, *draft], len(draft) + 1)
            self.policy.evaluated(len(batch) + len(draft), clock() - started)
            self.drafted += len(draft)
        else:
            self.target.eval_tokens(batch)
            if len(batch) == 1:  # a batch of forced tokens keeps one logits row: no verify, no step
                plain = getattr(self.policy, "plain_step", None)
                if plain is not None and not getattr(self.target, "rollback_live", True):
                    plain(clock() - started)  # a hybrid before its first draft: no snapshots to pay for yet
                else:
                    self.policy.evaluated(1, clock() - started)
        self._n_past += len(batch)
        self._inflight, self._row = draft, 0
        self._draft_size, self._draft_accepted = len(draft), 0

    def watch(self, batch: Sequence[int], room: int) -> None:
        """`batch` was emitted in a request that cannot draft (a hybrid paused without rollback snapshots)
        and the caller evaluates it: only a free source's proposals are compared with what the model emits
        (`observed`), so the controller sees a copyable stretch come without a request spent drafting."""
        self._append(batch)
        self._n_past += len(batch)
        if self._shadow:
            self._follow_shadow(batch)
        if not self._shadow and hasattr(self.policy, "observed"):
            self._shadow_draft([0] * len(self._parts), self._buffer[: self._size], room)

    def finish(self) -> None:
        """Drop the draft tokens the loop never confirmed, so the cache holds only the real reply (a
        shadow draft the reply ended in is dropped unjudged: what follows the end is unknown)."""
        self._shadow, self._shadow_from = [], None
        if self._inflight:
            self._inflight = []
            self._drop_rest()

    def report(self) -> DraftReport:
        """What the policy chose over this reply, and what it knows now."""
        length = max(self._chosen, key=lambda k: (self._chosen[k], k)) if self._chosen else 0
        policy = self.policy
        if not isinstance(policy, DraftController):
            share = self.accepted / self.drafted if self.drafted else 0.0
            return DraftReport(length=length, acceptance=share)
        main = (self._parts[max(self._drafted_by, key=lambda i: self._drafted_by[i])] if self._drafted_by
                else self._parts[0])
        state = policy.state(main)
        return DraftReport(length=length, verify_cost=policy.cost.ratio(1 + (length or self.max_draft)),
                           acceptance=state.acceptance, backed_off=state.backed_off or self._off)

    def _verified(self) -> None:
        if self._draft_from is not None:
            self.policy.verified(self._draft_from, self._draft_size, self._draft_accepted)

    def _propose(self, room: int) -> list[int]:
        """The longest proposal of the sources, each asked for the length the policy wants of it (a
        source is not asked when a longer proposal is already in hand), timed for the policy."""
        wants = [0 if self._off else min(self.policy.want(part), self.max_draft) for part in self._parts]
        self._chosen[max(wants)] += 1
        best: list[int] = []
        winner = -1
        clock = self.policy.clock
        context = self._buffer[: self._size]
        for i, (part, want) in enumerate(zip(self._parts, wants, strict=True)):
            k = min(want, room - 1)
            if k <= len(best):
                continue
            started = clock()
            draft = part.propose(context, k)[:k]
            self.policy.proposed(part, len(draft), clock() - started)
            draft = draft[: self.limit(draft)] if draft else draft
            if len(draft) > len(best):
                best, winner = draft, i
        prepare = getattr(self.target, "prepare_draft", None)
        if best and prepare is not None and not prepare(len(best)):
            self._off, best = True, []  # the model cannot take a draft back: none from here on
        self._draft_from = self._parts[winner] if best else None
        if best:
            self._drafted_by[winner] += len(best)
        elif not self._off and not self._shadow and hasattr(self.policy, "observed"):
            self._shadow_draft(wants, context, room)
        return best

    def _shadow_draft(self, wants: Sequence[int], context: npt.NDArray[np.int32], room: int) -> None:
        """No draft this step: ask a backed-off source whose proposals cost nothing for one anyway, to be
        compared with the tokens the model emits next (`_follow_shadow`) instead of evaluated."""
        for part, want in zip(self._parts, wants, strict=True):
            if want or not getattr(part, "free_proposals", False):
                continue
            k = min(SHADOW_LENGTH, self.max_draft, room - 1)
            shadow = part.propose(context, k)[:k] if k > 0 else []
            shadow = shadow[: self.limit(shadow)] if shadow else shadow
            if shadow:
                self._shadow, self._shadow_size, self._shadow_matched = shadow, len(shadow), 0
                self._shadow_from = part
            elif k > 0 and (observed := getattr(self.policy, "observed", None)) is not None:
                observed(part, 0, 0)  # asked, with nothing to copy here: drafting would draft nothing
            return

    def _follow_shadow(self, batch: Sequence[int]) -> None:
        m = _common_prefix(self._shadow, batch)
        self._shadow_matched += m
        if m == len(batch) and m < len(self._shadow):
            del self._shadow[:m]  # right so far, more to compare
            return
        observed = getattr(self.policy, "observed", None)
        if observed is not None and self._shadow_from is not None:
            observed(self._shadow_from, self._shadow_size, self._shadow_matched)
        self._shadow, self._shadow_from = [], None

    def _drop_rest(self) -> None:
        if self.target.truncate(self._n_past):
            return
        # a model whose state cannot drop tokens (recurrent): evaluate what was accepted once more
        log.warning("the model cannot drop rejected draft tokens; drafting is off for this request")
        self._off = True
        self.target.clear_cache_unlocked()
        self.target.eval_tokens(self._buffer[: self._n_past].tolist())

    def _append(self, tokens: Sequence[int]) -> None:
        end = self._size + len(tokens)
        if end > self._buffer.shape[0]:
            grown = np.zeros(max(2 * self._buffer.shape[0], end), dtype=np.int32)
            grown[: self._size] = self._buffer[: self._size]
            self._buffer = grown
        self._buffer[self._size : end] = tokens
        self._size = end


def paused_report(policy: DraftController, max_draft: int) -> DraftReport:
    """What a request that ran paused (no drafting, no rollback snapshots) reports: backed off, with the
    cost and acceptance the controller knows."""
    main = max(policy.sources.values(), key=lambda s: s.accepted + s.rejected, default=None)
    return DraftReport(length=0, verify_cost=policy.cost.ratio(1 + max_draft),
                       acceptance=main.acceptance if main is not None else 0.0, backed_off=True)


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def draft_source(
    draft: str | DraftSpec | None, load_model: Callable[[Path], DraftModel] | None = None
) -> DraftSource | None:
    """The source a `draft` setting names (read by `parse_draft`): prompt lookup (also None), none, or a
    draft model's path, loaded with `load_model` (a backend without one rejects a path). "mtp" needs the
    model's own head, which only the llama.cpp backend opens (before it gets here)."""
    spec = draft if isinstance(draft, DraftSpec) else parse_draft(draft)
    if spec.kind == PROMPT_LOOKUP:
        return PromptLookup()
    if spec.kind == NO_DRAFT:
        return None
    if spec.kind == MTP:
        raise ModelLoadError(f"draft {MTP!r} needs a GGUF model with multi-token-prediction layers (Qwen 3.5)")
    if load_model is None:
        raise ModelLoadError(
            f"draft {str(spec)!r}: this backend drafts with {PROMPT_LOOKUP!r} or {NO_DRAFT!r} only"
        )
    assert spec.path is not None
    return ModelDraft(load_model(spec.path))


def describe(source: DraftSource | None) -> str:
    """The draft source in words, for logs and `--verbose`."""
    if source is None:
        return NO_DRAFT
    if isinstance(source, ModelDraft):
        return f"draft model {getattr(source.runtime, 'model_path', '?')}"
    if isinstance(source, LongestDraft):
        return " or ".join(describe(s) for s in source.sources) + " (the longer)"
    if isinstance(source, PromptLookup):
        return PROMPT_LOOKUP
    return f"{MTP} (the model's multi-token-prediction head)"


__all__ = [
    "DRAFT_CHOICES",
    "MTP",
    "NO_DRAFT",
    "PROMPT_LOOKUP",
    "DraftController",
    "DraftLength",
    "DraftPolicy",
    "DraftReport",
    "DraftSource",
    "DraftTarget",
    "Drafter",
    "FixedDraftLength",
    "LongestDraft",
    "ModelDraft",
    "PromptLookup",
    "describe",
    "draft_source",
    "paused_report",
]
