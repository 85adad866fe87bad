"""How many threads llama.cpp runs with while the machine changes under it: chosen from measured step times.

The CPU budget (cpus.py) says how many threads this process may use; it cannot say how many are fastest
now. llama.cpp's threads meet at a barrier after every operation, so one thread waiting for a core that
other work holds stalls all of them: measured on 2 cores at load 5-6, one thread decoded the 0.8B shape
at 11.0 tokens/s where two made 8.3. `ThreadControl` starts at the budget and, every `probe_every` steps,
runs a short probe of one thread fewer (or one more, below the budget): it keeps the probed count when
its steps were faster by `margin`, and goes back otherwise. A change in the machine's load since the last
decision brings the next probe forward (`busy_probe_every`), in the direction the load moved: risen, one
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

    Feed it each step's seconds (`observe`); it answers the count to run the next step with. A round is
    `window` steps at one count; the median of a round is what counts are compared on."""

    most: int
    least: int = 1
    window: int = 8
    probe_every: int = 256
    """Steps at a settled count between probes."""
    busy_probe_every: int = 32
    """The same, once the load moved by `load_step` since the last decision."""
    margin: float = 0.05
    """A probed count is kept only when its median step is this much faster."""
    load_step: float = 1.0
    load: LoadReader = load_average
    current: int = field(init=False)
    decisions: list[tuple[int, int, bool]] = field(default_factory=list, init=False)
    """(from, probed, kept) for each probe judged: what `--verbose` and tests read."""
    _phase: str = field(default="settled", init=False)
    """"baseline": measuring `current`; "probe": measuring `_probe`; "settled": counting to the next probe."""
    _times: list[float] = field(default_factory=list, init=False)
    _baseline: float | None = field(default=None, init=False)
    _probe: int = field(default=0, init=False)
    _since: int = field(default=0, init=False)
    _load_at: float | None = field(default=None, init=False)
    _direction: int = field(default=-1, init=False)
    """The way the next probe goes (-1 one fewer, +1 one more) where both are possible."""
    _fails: int = field(default=0, init=False)
    """Probes in a row that did not pay."""

    def __post_init__(self) -> None:
        if self.most < 1 or not 1 <= self.least <= self.most:
            raise ValueError(f"thread bounds {self.least}..{self.most} are not 1 <= least <= most")
        self.current = self.most
        self._load_at = self.load()

    @property
    def fixed(self) -> bool:
        """Nothing to choose between (a budget of one thread)."""
        return self.least == self.most

    def observe(self, seconds: float) -> int:
        """A step took `seconds` at the count last answered; the count for the next step."""
        if self.fixed or seconds <= 0:
            return self.running()
        if self._phase == "settled":
            self._since += 1
            if self._since >= self._wait():
                self._phase, self._times = "baseline", []  # a fresh baseline right before the probe
            return self.running()
        self._times.append(seconds)
        if len(self._times) < self.window:
            return self.running()
        median = statistics.median(self._times)
        self._times = []
        if self._phase == "baseline":
            self._baseline = median
            self._start_probe()
        else:
            self._judge(median)
        return self.running()

    def running(self) -> int:
        """The count steps run with now (the probed one during a probe)."""
        return self._probe if self._phase == "probe" else self.current

    def _wait(self) -> int:
        """Steps to wait at a settled count: `busy_probe_every` once the load moved since the last decision
        (its direction then picks the probe's); on a machine shared with other work (a load beyond our own
        threads) that, doubled with each probe in a row that did not pay; else `probe_every`."""
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
        self._probe, self._phase = self.current + step, "probe"

    def _judge(self, median: float) -> None:
        baseline = self._baseline if self._baseline is not None else median
        kept = median * (1 + self.margin) < baseline
        self.decisions.append((self.current, self._probe, kept))
        if kept:
            self._direction = self._probe - self.current  # it paid: the next probe goes on that way
            self.current, self._fails = self._probe, 0
        else:
            self._direction = self.current - self._probe  # the other way next time
            self._fails += 1
        self._settle()

    def _settle(self) -> None:
        self._phase, self._since, self._times = "settled", 0, []
        self._load_at = self.load()


__all__ = ["LoadReader", "ThreadControl", "load_average"]
