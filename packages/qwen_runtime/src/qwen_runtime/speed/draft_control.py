"""How long a draft to ask for: from what verifying a batch costs on this machine and how often each
draft source is right, so that drafting never makes a reply slower.

Verifying a draft is one forward pass over 1 + k tokens, and on few cores that is not one step's cost:
on 2 cores a batch of 9 costs 3.4-3.9 one-token steps on the Qwen 3.5 shapes (bench/results/hybrid.md).
`DraftController` measures, while the runtime generates and across its requests:

- what evaluating a batch of n tokens costs relative to a one-token step (the average of each batch
  size's recent samples, fitted by cost(n) = a + b (n - 1); prior points from `verify_costs`, e.g. what
  `qwen-runtime tune` measured, or a default between the hybrid and small dense models),
- per draft source, how often its drafts are right, as runs (below; counts that decay with each
  verified draft),
- per source, what proposing costs per proposed token (prompt lookup ~0; a draft model or the MTP head
  one small decode each).

Drafts are right in runs: prompt lookup copies a phrase right through, then nothing matches. One
per-token rate a, a draft of k emitting (1 - a^(k+1)) / (1 - a) tokens, misjudges that (a draft wrong at
its first token and one cut after a long right run count alike): on Gemma 270M at 2 threads (batches of
2/3/5 tokens cost 1.74/2.04/3.3 steps) it read 56%, said a draft of 2 emits 1.87 tokens for 2.04 steps
and backed off, where a fixed k = 2 ran 1.16x as fast as no draft. So each source has two rates: `first`,
that a draft's first token is right, and `cont`, that a token is right when the one before it was (a
single rate a is first = cont = a, as in the what-ifs at a copy-heavy edit's 95%), and each draft
position its own record of how often it was right once reached (`SourceState.expected`: a copy that
breaks after three tokens makes a draft of 8 worth what one of 3 is; a position seldom reached follows
`cont`). The controller asks for the k (0 included) with the most tokens per unit of time, against
1 / cost(1) = 1 without a draft. When 0 wins the source is backed off: it is asked again only for a short
probe, after a wait that doubles with each failed probe (and at the start of each reply); a fully
accepted probe is followed at once by one twice as long. A source whose proposals cost nothing (prompt
lookup) is also asked while backed off, at every step without a draft, and its proposal is compared with
what the model then emits instead of evaluated (`observed`): the rates follow the text at no cost, and
drafting resumes within a step or two of a copied stretch, not at the next probe (on Gemma a probe costs
a step, so probes come every 50). Each reply's first draft is short (`probe_length`) until one is right
all through: a reply's opening is seldom a copy, and long drafts failing there cost Gemma 2-4 steps
each. Where even drafts that are always right would not pay (a batch costs about as many steps as it has
tokens: one thread, a loaded machine) only the timed probes stay, to measure.

A hybrid model (Qwen 3.5) pays for drafting even while no draft is asked for: it keeps recurrent-state
snapshots on every decode, so that rejected tokens can be dropped (5-8% of a one-token step on the 0.8B
shape). Where no source would draft at its measured acceptance, counting that overhead, the runtime
(asking `rollback_for_request`) drops the snapshots between requests for a pause that doubles with each
one in a row (2, 4, ... 64 requests where not even a copy-heavy edit's acceptance would pay; up to 8
where it would), then tries again; the one-token steps of a paused
request measure the overhead (`VerifyCost.overhead`), until then `DEFAULT_ROLLBACK_OVERHEAD` stands.

The cost source is injectable: a scripted clock (a test target that advances it by a cost model), or a
`cost_model` that replaces what was measured; under either every choice is deterministic.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from .draft_acceptance import SourceState, expected_tokens
from .draft_costs import DEFAULT_ROLLBACK_OVERHEAD, DEFAULT_VERIFY_COSTS, VerifyCost, check_verify_costs
from .learned_costs import LearnedCosts

Clock = Callable[[], float]
"""Seconds, monotonic: `time.perf_counter` by default, a scripted one in tests."""


class DraftPolicy(Protocol):
    """What the drafter asks before each step and tells after it (drafting.py's `Drafter`); a source is
    told apart by identity."""

    @property
    def clock(self) -> Clock:
        """What the drafter times evaluations and proposals with."""

    def begin(self) -> None:
        """A reply starts."""

    def want(self, source: object) -> int:
        """How many tokens to ask `source` for in this step (0: none)."""

    def evaluated(self, tokens: int, seconds: float) -> None:
        """The target evaluated a batch of `tokens` (with a logits row per draft position)."""

    def proposed(self, source: object, tokens: int, seconds: float) -> None:
        """`source` proposed `tokens` tokens, taking `seconds`."""

    def verified(self, source: object, drafted: int, accepted: int) -> None:
        """Of `drafted` tokens `source` proposed, the first `accepted` were confirmed."""

    # optional: `observed(source, drafted, accepted)`, a free source's proposal that was not evaluated,
    # compared with what the model emitted (the drafter calls it where the policy has it)


@dataclass
class DraftController:
    """Chooses each step's draft length to maximise expected tokens per second (module docstring);
    one per runtime, so what it measured serves every later request."""

    max_draft: int = 12
    verify_costs: Mapping[int, float] | None = None
    """Batch size -> cost relative to one step, measured beforehand (`qwen-runtime tune`); None: defaults."""
    clock: Clock = time.perf_counter
    cost_model: Callable[[int], float] | None = None
    """A scripted machine: a batch of n tokens costs `cost_model(n)` (proposals nothing), whatever the clock
    measured; for tests that must decide the same way however loaded the machine is. None: measure."""
    decay: float = 0.85
    """Weight the acceptance counts keep per verified draft (about the last ten drafts count)."""
    min_gain: float = 0.03
    """Drafting must promise this much more than no draft (3%): break-even drafts are noise, not gain."""
    probe_every: int = 16
    """The wait between probes of a backed-off source while nothing says what a probe costs."""
    probe_max: int = 256
    probe_overhead: float = 0.02
    """What probing may cost a backed-off source: its first wait is a probe's extra cost (in one-token
    steps) over this share, so cheap batches probe every few steps, dear ones seldom."""
    probe_growth: int = 8
    """Failed probes double the wait, up to this many first waits (and `probe_max`)."""
    probe_length: int = 2
    worth_probing: float = 0.15
    """The least gain drafts as right as a copy-heavy edit's (95%) must promise at the measured costs for
    a backed-off source to be probed at each reply's start and after a partly right probe. Below it (a
    batch costs nearly its tokens) the gain a copy-heavy edit could bring is smaller than what a probe
    per short reply costs: the source is probed only on its timed schedule, which grows with each
    probe."""
    stretch_after: int = 4
    rollback_overhead: float | None = None
    """A hybrid's one-token step with rollback snapshots against one without, measured beforehand (`qwen-runtime
    tune`); None: measured in paused requests, `DEFAULT_ROLLBACK_OVERHEAD` until then."""
    overhead_prior: float | None = None
    """What the snapshots added in an earlier process here (`learned_costs`): used until this one measures
    it, instead of `DEFAULT_ROLLBACK_OVERHEAD`."""
    pause_first: int = 2
    pause_max: int = 64
    """Requests a hybrid runs without rollback snapshots when no draft pays: `pause_first`, doubled with
    each pause in a row, up to `pause_max`."""
    pause_max_could_pay: int = 8
    """The longest pause while drafts as right as a copy-heavy edit's would pay (the sources were lately
    wrong, as on prose): shorter, so that an edit that copies is not long without drafting."""
    watch_enough: int = 16
    """Proposals watched during a pause that judge a source at its end instead of a probe
    (`rollback_for_request`)."""
    cost: VerifyCost = field(init=False)
    sources: dict[object, SourceState] = field(init=False, default_factory=dict)
    pauses: int = field(init=False, default=0)
    """Pauses in a row (each doubles the next)."""
    pause_left: int = field(init=False, default=0)
    """Requests still to run without rollback snapshots (0: not paused)."""

    def __post_init__(self) -> None:
        if self.max_draft < 0:
            raise ValueError(f"max_draft {self.max_draft}: a draft length cannot be negative")
        priors = check_verify_costs(self.verify_costs)
        self.cost = VerifyCost(priors=priors)

    # ---------------------------------------------------------------- DraftPolicy

    def begin(self) -> None:
        """Each reply opens with a probe for every backed-off source (the waits stay): a copy-heavy reply
        after prose drafts from its first copied tokens, not after the wait prose earned."""
        for source, s in self.sources.items():
            s.probing = False  # a probe the last reply ended on was dropped unverified
            s.short, s.streak = True, 0  # a reply's opening is seldom a copy: its first draft is short
            if s.backed_off and self.worth_a_probe(source):
                s.probe = s.probe or min(self.probe_length, self.max_draft)

    def want(self, source: object) -> int:
        if self.max_draft == 0:
            return 0
        s = self.state(source)
        if self.cost.stale() and not s.backed_off:
            return 0  # a one-token step is timed now and then: the unit of every cost (probes need none)
        if s.backed_off:
            if not s.probe:
                s.idle += 1
                if s.idle < self.probe_wait(s):
                    return 0
                s.idle, s.probe = 0, min(self.probe_length, self.max_draft)
            return s.probe
        k = self.best(source)
        if k == 0:
            s.backed_off, s.idle, s.streak = True, 0, 0
            return 0
        if s.short:
            return min(k, self.probe_length)
        if s.streak >= self.stretch_after and k < self.max_draft:
            s.streak = 0
            return min(self.max_draft, 2 * k)  # measure a longer batch: the fitted line may be too dear
        return k

    def evaluated(self, tokens: int, seconds: float) -> None:
        self.cost.observe(tokens, seconds if self.cost_model is None else self.cost_model(tokens))

    def proposed(self, source: object, tokens: int, seconds: float) -> None:
        s = self.state(source)
        s.dry = 0 if tokens > 0 else s.dry + 1
        seconds = seconds if self.cost_model is None else 0.0
        if tokens <= 0:
            return  # nothing to verify: an armed probe waits for a step that has something
        per_token = seconds / tokens
        old = s.seconds_per_token
        s.seconds_per_token = per_token if old is None else old + 0.2 * (per_token - old)
        if s.backed_off and s.probe:
            s.probe, s.probing = 0, True

    def verified(self, source: object, drafted: int, accepted: int) -> None:
        if drafted <= 0:
            return
        s = self.state(source)
        s.record(drafted, accepted, self.decay)
        if accepted >= drafted:
            s.short = False
        if not s.probing:
            s.streak = s.streak + 1 if accepted >= drafted else 0
            return
        s.probing = False
        if self.best(source) > 0:  # what the probe (and the costs measured meanwhile) say: it pays
            s.backed_off, s.probe, s.misses = False, 0, 0
        elif accepted == 0 or not self.worth_a_probe(source):  # a failed probe, or too little to win: wait longer
            s.misses += 1
        elif accepted >= drafted:  # right all through: try a longer one at once
            s.misses, s.probe = 0, min(self.max_draft, 2 * drafted)
        # partly right: the wait stays (a hit now and then is what text that does not pay looks like)

    def observed(self, source: object, drafted: int, accepted: int) -> None:
        """A proposal of a source whose proposals cost nothing (prompt lookup), asked while the source was
        backed off and never evaluated: of its `drafted` tokens the model then emitted the first `accepted`
        itself. What verifying it would have accepted, measured at no cost at every step without a draft,
        so the rates follow the text (a copied stretch shows within a step or two; prose keeps them low)
        and drafting resumes as soon as it pays, not at the next probe."""
        s = self.state(source)
        s.watched += 1  # asked: a source with nothing to propose would draft nothing either
        s.watched_offers += drafted > 0
        s.dry = 0 if drafted > 0 else s.dry + 1
        if drafted <= 0:
            return
        s.record(drafted, accepted, self.decay)
        if s.backed_off and self.best(source) > 0:
            s.backed_off, s.probe, s.probing, s.misses, s.idle, s.streak = False, 0, False, 0, 0, 0

    def plain_step(self, seconds: float) -> None:
        """A one-token step without rollback snapshots (a paused request) took `seconds`."""
        self.cost.observe_plain(seconds if self.cost_model is None else 1.0)

    # ---------------------------------------------------------------- rollback (hybrid models)

    def overhead(self) -> float:
        """What rollback snapshots add to a one-token step (a factor: 1.05 is 5%)."""
        if self.rollback_overhead is not None:
            return self.rollback_overhead
        measured = None if self.cost_model is not None else self.cost.overhead()
        if measured is not None:
            return measured
        return self.overhead_prior if self.overhead_prior is not None else DEFAULT_ROLLBACK_OVERHEAD

    def rollback_for_request(self) -> bool:
        """Asked once per request by a runtime that can run without rollback snapshots (a hybrid model):
        whether this request keeps them and drafts. False while no source would draft at its measured
        acceptance once the snapshots' own cost is counted: then the next `pause_first` requests (doubled
        with each pause in a row, up to `pause_max`; up to `pause_max_could_pay` while drafts right as
        often as a copy-heavy edit's would pay, since such an edit may come) run without.

        A paused request still compares a free source's proposals (prompt lookup) with what the model
        emits (`observed`), so a pause ends at the first request after the text turned copyable, and at its
        end a source watched at least `watch_enough` times is judged on what was watched: the pause goes
        on (doubled) where it still would not pay, with no request spent drafting to find out. A source
        that cannot be watched (a draft model, MTP) gets a probe when the pause ends, as before.

        Until a batch was measured a request keeps them, to learn what drafting costs here; but where
        every source was last asked `watch_enough` steps in a row (over replies) and proposed nothing
        (prompt lookup on text with nothing to copy), there is nothing to learn from, and it pauses
        (watching)."""
        overhead = self.overhead() if self.cost.knows_batches() else 1.0
        if self.pause_left:
            self.pause_left -= 1
            if any(s.watched_offers and self.best(src, overhead=overhead) > 0 for src, s in self.sources.items()):
                self.pause_left, self.pauses = 0, 0  # what was proposed meanwhile says drafting pays now
                return True
            if self.pause_left:
                return False
            blind = [s for s in self.sources.values() if s.watched < self.watch_enough]
            if self.sources and not blind:  # every source watched through the pause, none pays: pause on
                return self._pause(overhead)
            for s in blind:  # back from a pause: each source not watched probes at once
                if s.backed_off:
                    s.probe = s.probe or min(self.probe_length, self.max_draft)
            return True
        if not self.cost.knows_batches():
            if self.sources and all(s.dry >= self.watch_enough for s in self.sources.values()):
                return self._pause(overhead)  # no proposal in a long while: nothing to learn costs from
            return True  # nothing measured yet: draft, and learn what drafting costs here
        if self._pays(overhead):
            self.pauses = 0
            return True
        return self._pause(overhead)

    def learned(self) -> LearnedCosts | None:
        """What this controller measured of this machine, for the next process (None: nothing yet)."""
        if self.cost_model is not None:
            return None
        sizes = self.cost.measured_sizes()
        if not sizes:
            return None
        return LearnedCosts(sizes, self.cost.overhead())

    def _pays(self, overhead: float) -> bool:
        if self.sources:
            return any(self.best(src, overhead=overhead) > 0 for src in self.sources)
        # no source asked yet, but costs given (`qwen-runtime tune`): a free source right 95% of the time
        return any(self.cost.ratio(1 + k) * overhead * (1 + self.min_gain) < expected_tokens(k, 0.95, 0.95)
                   for k in range(1, self.max_draft + 1))

    def _pause(self, overhead: float) -> bool:
        """Start a pause (doubled with each in a row); False, the answer for this request."""
        if self.sources:
            could_pay = any(not self.hopeless(src, overhead) for src in self.sources)
        else:
            could_pay = self._pays(overhead)
        self.pauses += 1
        most = min(self.pause_max, self.pause_max_could_pay) if could_pay else self.pause_max
        self.pause_left = min(most, self.pause_first << min(self.pauses - 1, 16))
        for s in self.sources.values():
            s.watched = s.watched_offers = 0
        return False

    def paused(self) -> bool:
        """The last `rollback_for_request` said no: this request runs without drafting."""
        return self.pause_left > 0

    # ---------------------------------------------------------------- the model

    def state(self, source: object) -> SourceState:
        s = self.sources.get(source)
        if s is None:
            s = self.sources[source] = SourceState()
        return s

    def probe_wait(self, s: SourceState) -> int:
        """Steps between probes of a backed-off source: the first wait, doubled by each failed probe in a
        row up to `probe_growth` first waits and `probe_max`; computed from the costs known now, so a
        wait set before anything was measured shrinks once batches prove cheap."""
        if not self.cost.knows_batches():
            # what a probe costs is not known yet (only the cautious defaults): probe soon, to measure it;
            # the first batch of a size only sizes buffers, so this takes two or three short probes
            return 2 * self.probe_length
        first = self.first_wait()
        return min(self.probe_max, first * min(self.probe_growth, 1 << min(s.misses, 16)))

    def first_wait(self) -> int:
        """Steps a backed-off source waits before its next probe, before any probe failed: a probe's extra
        cost spread so that probing costs at most `probe_overhead` of the time (at least 2 steps; at
        most 4 x `probe_every`). A copy-heavy reply on a fast machine finds its copyable stretch within a
        few steps; a dear machine probes seldom."""
        if not self.cost.step_seconds and self.cost_model is None:
            return self.probe_every  # nothing measured yet: what a probe costs is not known
        extra = self.cost.ratio(1 + min(self.probe_length, max(1, self.max_draft))) - 1.0
        return max(2, min(4 * self.probe_every, math.ceil(extra / self.probe_overhead)))

    def proposal_cost(self, source: object, k: int) -> float:
        """What proposing `k` tokens costs `source`, in one-token steps of the target."""
        s, step = self.state(source), self.cost.step_seconds
        return k * s.seconds_per_token / step if s.seconds_per_token is not None and step else 0.0

    def speedup(self, source: object, k: int, acceptance: float | None = None, overhead: float = 1.0) -> float:
        """Expected tokens per unit of time with drafts of `k` tokens, relative to no draft (at the source's
        two rates, or every token right with probability `acceptance`); `overhead`: what drafting's mere
        readiness adds to every step (a hybrid's rollback snapshots), against a step without it."""
        if k <= 0:
            return 1.0
        s = self.state(source)
        emitted = s.expected(k) if acceptance is None else expected_tokens(k, acceptance, acceptance)
        cost = self.cost.ratio(1 + k) + self.proposal_cost(source, k)
        return emitted / (cost * overhead)

    def hopeless(self, source: object, overhead: float = 1.0) -> bool:
        """Even drafts right as often as a copy-heavy edit's (95%, or the source's own rate when higher)
        would not pay at the measured costs (one thread, a loaded machine: a batch costs about as many steps
        as it has tokens): then probes come only now and then, to measure."""
        return self.best(source, acceptance=max(0.95, self.state(source).acceptance), overhead=overhead) == 0

    def worth_a_probe(self, source: object) -> bool:
        """Drafts as right as a copy-heavy edit's (95%, or the source's own rate when higher) would gain at
        least `worth_probing` at the measured costs (see there)."""
        return self.best(source, acceptance=max(0.95, self.state(source).acceptance),
                         min_gain=self.worth_probing) > 0

    def best(self, source: object, acceptance: float | None = None, overhead: float = 1.0,
             min_gain: float | None = None) -> int:
        """The draft length with the highest expected rate; 0 unless one beats no draft by `min_gain`
        (the controller's own by default)."""
        best_k, best = 0, 1.0 + (self.min_gain if min_gain is None else min_gain)
        for k in range(1, self.max_draft + 1):
            rate = self.speedup(source, k, acceptance, overhead)
            if rate > best:
                best_k, best = k, rate
        return best_k


@dataclass
class FixedDraftLength:
    """Always `k` tokens, whatever they cost or however often they are right (benchmarks' baseline)."""

    k: int
    clock: Clock = time.perf_counter

    def begin(self) -> None:
        pass

    def want(self, source: object) -> int:
        return self.k

    def evaluated(self, tokens: int, seconds: float) -> None:
        pass

    def proposed(self, source: object, tokens: int, seconds: float) -> None:
        pass

    def verified(self, source: object, drafted: int, accepted: int) -> None:
        pass


__all__ = [
    "DEFAULT_ROLLBACK_OVERHEAD",
    "DEFAULT_VERIFY_COSTS",
    "Clock",
    "DraftController",
    "DraftPolicy",
    "FixedDraftLength",
    "SourceState",
    "VerifyCost",
    "check_verify_costs",
    "expected_tokens",
]
