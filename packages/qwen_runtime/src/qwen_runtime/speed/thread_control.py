"""How many threads llama.cpp runs with while the machine changes under it: chosen from measured step times.

The CPU budget (cpus.py) says how many threads this process may use; it cannot say how many are fastest
now. llama.cpp's threads meet at a barrier after every operation, so one thread waiting for a core that
other work holds stalls all of them: measured on 2 cores at load 5-6, one thread decoded the 0.8B shape
at 11.0 tokens/s where two made 8.3. `ThreadControl` starts at the budget and, every `probe_every` steps,
runs a short probe of one thread fewer (or one more, below the budget), interleaved with the settled
count two steps at a time in the order settled, probed, probed, settled (so a cost that drifts steadily,
as a prompt's batches grow dearer with their position, falls on both alike): it keeps the probed count
when its steps were faster by `margin`, and goes back otherwise. Steps of different sizes (prompt batches:
per token, a 32-token batch costs ~40% more than a 512-token one) are compared only with steps of a like
size, and a probe that finds too few such pairs ends without a decision. A change in the machine's load since the
last decision brings the next probe forward (`busy_probe_every`), in the direction the load moved: risen, one
fewer first; fallen, one more first. Decode steps and batches (prompt evaluation, per token) each have
their own `ThreadControl`; `qwen-runtime tune`'s record, or threads given, fix the counts instead.

Only step times and the load average go in and only a thread count comes out, so tests drive it with
synthetic step times; nothing here reads a clock.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

LoadReader = Callable[[], float | None]
"""The machine's load now (the 1-minute load average), None where unknown."""


def load_average() -> float | None:
    """`os.getloadavg()`'s 1-minute figure; None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


@dataclass
class ThreadControl:
    """Thread count for one kind of evaluation, between `least` and `most` (the CPU budget).

    Feed it each step's seconds (`observe`); it answers the count to run the next step with. A probe
    alternates the settled count and the probed one every `chunk` steps, in blocks of settled, probed,
    probed, settled, until each ran `window` steps: a burst of other work on the machine falls on both
    alike, and so does a steady drift in what a step costs (a whole number of blocks has both counts at
    the same mean position). Each probed step is compared with the median of the settled steps of a like
    size (within `size_match`); the median of those ratios decides. Where every step has one size (decode)
    that is the ratio of the two medians."""

    most: int
    least: int = 1
    window: int = 8
    """Steps at each of the two counts a probe compares (a multiple of 2 x `chunk`: whole blocks)."""
    chunk: int = 2
    """Steps in a row at one count during a probe."""
    probe_every: int = 1024
    """Steps at a settled count between probes on a machine nothing else loads."""
    busy_probe_every: int = 32
    """The same once the load moved by `load_step` since the last decision, or while other work loads the
    machine (then doubled with each probe in a row that did not pay, up to `probe_every`)."""
    margin: float = 0.05
    """A probed count is kept only when its median step is this much faster."""
    load_step: float = 1.0
    size_match: float = 2.0
    """Steps are of a like size when the larger is at most this many times the smaller."""
    patience: int = 3
    """A probe that has run `patience` x `window` steps at each count with fewer than half a window of
    like-sized pairs on either side ends without a decision (prompts of ever different sizes)."""
    load: LoadReader = load_average
    current: int = field(init=False)
    decisions: list[tuple[int, int, bool]] = field(default_factory=list, init=False)
    """(from, probed, kept) for each probe judged: what `--verbose` and tests read."""
    _probe: int = field(default=0, init=False)
    """The count being probed (0: no probe running)."""
    _steps: int = field(default=0, init=False)
    """Steps since the last decision (settled) or since the probe began."""
    _at_current: list[tuple[int, float]] = field(default_factory=list, init=False)
    _at_probe: list[tuple[int, float]] = field(default_factory=list, init=False)
    """(size, seconds) of each step of the running probe, at the settled and the probed count."""
    _load_at: float | None = field(default=None, init=False)
    _direction: int = field(default=-1, init=False)
    """The way the next probe goes (-1 one fewer, +1 one more) where both are possible."""
    _fails: int = field(default=0, init=False)
    """Probes in a row that did not pay."""

    def __post_init__(self) -> None:
        if self.most < 1 or not 1 <= self.least <= self.most:
            raise ValueError(f"thread bounds {self.least}..{self.most} are not 1 <= least <= most")
        if self.window < 1 or self.chunk < 1 or self.patience < 1:
            raise ValueError("a probe needs a window, a chunk and a patience of at least one step")
        if self.size_match < 1:
            raise ValueError(f"size_match {self.size_match} is below 1: no step would be like itself")
        self.current = self.most
        self._load_at = self.load()

    @property
    def fixed(self) -> bool:
        """Nothing to choose between (a budget of one thread)."""
        return self.least == self.most

    def running(self) -> int:
        """The count the next step runs with (during a probe, the settled and probed counts in turn)."""
        if self._probe and (self._steps // self.chunk) % 4 in (1, 2):  # settled, probed, probed, settled
            return self._probe
        return self.current

    def observe(self, seconds: float, size: int = 1) -> int:
        """A step of `size` (tokens in a batch; its `seconds` per token) took `seconds` at the count last
        answered (`running`); the count for the next step."""
        if self.fixed or seconds <= 0 or size < 1:
            return self.running()
        if not self._probe:
            self._steps += 1
            if self._steps >= self._wait():
                self._start_probe()
            return self.running()
        (self._at_probe if self.running() == self._probe else self._at_current).append((size, seconds))
        self._steps += 1
        if len(self._at_probe) >= self.window and len(self._at_current) >= self.window:
            ratio = self._ratio()
            if ratio is not None:
                self._judge(ratio)
            elif min(len(self._at_probe), len(self._at_current)) >= self.patience * self.window:
                self._fails += 1  # sizes that never matched: no decision; the next probe waits longer
                self._settle()
        return self.running()

    def _like(self, a: int, b: int) -> bool:
        return max(a, b) <= self.size_match * min(a, b)

    def _ratio(self) -> float | None:
        """Probed over settled step time, from like-sized pairs; None while either side has fewer than
        half a window of steps with a like-sized partner."""
        need = (self.window + 1) // 2
        ratios = []
        for size, seconds in self._at_probe:
            like = [s for n, s in self._at_current if self._like(n, size)]
            if like:
                ratios.append(seconds / statistics.median(like))
        matched = sum(any(self._like(n, size) for size, _ in self._at_probe) for n, _ in self._at_current)
        if len(ratios) < need or matched < need:
            return None
        return statistics.median(ratios)

    def _wait(self) -> int:
        """Steps to wait at a settled count: `busy_probe_every` after a probe that paid (the next count that
        way may pay too) or once the load moved since the last decision (its direction then picks the
        probe's); on a machine shared with other work (a load beyond our own
        threads) that, doubled with each probe in a row that did not pay; else `probe_every`."""
        if self.decisions and self.decisions[-1][2]:
            return self.busy_probe_every  # the last probe paid: the next count that way is tried soon
        now = self.load()
        if now is None:
            return self.probe_every
        if self._load_at is not None and abs(now - self._load_at) >= self.load_step:
            self._direction = -1 if now > self._load_at else 1
            self._fails = 0
            return self.busy_probe_every
        if now - self.current >= self.load_step:
            return min(self.probe_every, self.busy_probe_every << min(self._fails, 16))
        return self.probe_every

    def _start_probe(self) -> None:
        step = self._direction
        if not self.least <= self.current + step <= self.most:
            step = -step
        if not self.least <= self.current + step <= self.most:
            self._settle()
            return
        self._probe, self._steps = self.current + step, 0
        self._at_current, self._at_probe = [], []

    def _judge(self, ratio: float) -> None:
        kept = ratio * (1 + self.margin) < 1
        self.decisions.append((self.current, self._probe, kept))
        if kept:
            self._direction = self._probe - self.current  # it paid: the next probe goes on that way
            self.current, self._fails = self._probe, 0
        else:
            self._direction = self.current - self._probe  # the other way next time
            self._fails += 1
        self._settle()

    def _settle(self) -> None:
        self._probe, self._steps = 0, 0
        self._load_at = self.load()


__all__ = ["LoadReader", "ThreadControl", "load_average"]
