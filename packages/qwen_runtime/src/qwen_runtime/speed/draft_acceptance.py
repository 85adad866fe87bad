"""How often a draft source is right, as runs: a draft's first token and each later one once the one
before was right, with each draft position's own record (`draft_control`'s docstring says why), and the
tokens a verify step then emits.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def expected_tokens(k: int, first: float, cont: float) -> float:
    """Tokens one verify step emits with a draft of `k` whose first token is right with probability
    `first` and each later one, when the one before was, with `cont`: the accepted ones and the target's
    own (1 to k + 1, more with k)."""
    if k <= 0:
        return 1.0
    if cont > 1 - 1e-6:  # (1 - cont^k) / (1 - cont) -> k
        return 1 + first * k
    return 1 + first * (1 - cont**k) / (1 - cont)


def _rate(hits: float, misses: float) -> float:
    total = hits + misses
    return hits / total if total > 1e-300 else 0.5  # untried for thousands of drafts (underflow): the prior


@dataclass
class SourceState:
    """One draft source's record: its two acceptance rates' decayed trial counts, proposal time, backoff."""

    first_hits: float = 0.5
    first_misses: float = 0.5
    """A draft's first token right / wrong (one trial per verified draft)."""
    cont_hits: float = 0.5
    cont_misses: float = 0.5
    """A later token right / wrong when the one before was right (each position a draft reached). All four
    decay with each verified draft; the start (0.5, 0.5) for each says "half right" until drafts say
    otherwise, as light as the single rate's (1, 1) was."""
    position_hits: list[float] = field(default_factory=list)
    position_trials: list[float] = field(default_factory=list)
    """Per draft position (index 0: the first token): decayed trials (the position was reached: every
    token before it was right) and hits, for `expected`."""
    seconds_per_token: float | None = None
    backed_off: bool = True
    """Asked only for probes; a new source starts so, with a probe armed (what it is worth is unknown)."""
    idle: int = 0
    misses: int = 0
    """Failed probes in a row: each doubles the wait (`DraftController.probe_wait`)."""
    probe: int = 4
    """The length of the probe armed for the next step it can propose in (0: none armed)."""
    probing: bool = False
    """The draft in flight is a probe."""
    streak: int = 0
    """Drafts in a row confirmed whole at the chosen length (then one twice as long is tried)."""
    short: bool = False
    """The next draft is at most `probe_length` long: a reply just began, where the text seldom continues
    a copy (long drafts failing there cost Gemma 2-4 steps each, three per reply); one right all through
    ends it."""
    dry: int = 0
    """Steps in a row, over replies, it was asked in (by a draft or at no cost) and proposed nothing: a
    hybrid whose sources all stay dry for `watch_enough` steps stops keeping snapshots to learn costs."""
    watched: int = 0
    """Steps it was asked at no cost (`DraftController.observed`, a proposal or none) since the last pause
    began: what a probe would learn is then known (a paused hybrid request watches it too)."""
    watched_offers: int = 0
    """Of those, the steps it proposed something in: only these change what it is thought worth."""

    @property
    def first(self) -> float:
        """P(a draft's first token is right)."""
        return _rate(self.first_hits, self.first_misses)

    @property
    def cont(self) -> float:
        """P(a drafted token is right | the one before it was)."""
        return _rate(self.cont_hits, self.cont_misses)

    @property
    def accepted(self) -> float:
        """Decayed drafted tokens accepted (both rates' hits)."""
        return self.first_hits + self.cont_hits

    @property
    def rejected(self) -> float:
        """Decayed drafts cut short (both rates' misses: one per draft not accepted whole)."""
        return self.first_misses + self.cont_misses

    @property
    def acceptance(self) -> float:
        """The overall per-token rate (what reports show): accepted / (accepted + rejected)."""
        return self.accepted / (self.accepted + self.rejected)

    def record(self, drafted: int, accepted: int, decay: float) -> None:
        """Of `drafted` tokens the first `accepted` were right: position 1 is a `first` trial; each later
        position j that was reached (accepted >= j - 1) a `cont` trial, a hit when accepted >= j."""
        accepted = max(0, min(accepted, drafted))
        first_hit = 1 if accepted else 0
        cont_trials, cont_hits = min(drafted, accepted + 1) - 1, max(0, accepted - 1)
        self.first_hits = decay * self.first_hits + first_hit
        self.first_misses = decay * self.first_misses + 1 - first_hit
        self.cont_hits = decay * self.cont_hits + cont_hits
        self.cont_misses = decay * self.cont_misses + cont_trials - cont_hits
        reached = min(drafted, accepted + 1)  # positions 1..reached were tried
        grow = reached - len(self.position_hits)
        if grow > 0:
            self.position_hits.extend([0.0] * grow)
            self.position_trials.extend([0.0] * grow)
        for j in range(len(self.position_hits)):
            tried = j < reached
            self.position_hits[j] = decay * self.position_hits[j] + (1 if tried and j < accepted else 0)
            self.position_trials[j] = decay * self.position_trials[j] + (1 if tried else 0)

    def expected(self, k: int) -> float:
        """Tokens one verify step emits with a draft of `k`: 1 + the sum over positions i <= k of the chance
        that positions 1..i are all right. Position 1's is `first`; a later position's (given the one
        before was right) is read from its own trials, drawn toward the other positions' pooled rate by
        one trial's weight: a position seldom reached follows `cont`, one reached often its own record,
        so runs that break after two or three tokens make long drafts cost what they do."""
        total, through = 1.0, 1.0
        for j in range(max(0, k)):
            if j == 0:
                rate = self.first
            elif j < len(self.position_hits):
                hits, trials = self.position_hits[j], self.position_trials[j]
                others = _rate(self.cont_hits - hits, self.cont_misses - (trials - hits))
                rate = (hits + others) / (trials + 1.0)
            else:
                rate = self.cont
            through *= rate
            total += through
        return total


__all__ = ["SourceState", "expected_tokens"]
