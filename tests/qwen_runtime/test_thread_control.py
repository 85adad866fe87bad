"""The thread controller's decisions, driven by synthetic step times and a scripted load average."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from qwen_runtime.speed.thread_control import ThreadControl


class Machine:
    """A scripted machine: what a step costs at each thread count, and its load average."""

    def __init__(self, cost: Callable[[int], float], load: float = 0.5) -> None:
        self.cost = cost
        self.load = load

    def run(self, control: ThreadControl, steps: int) -> list[int]:
        """The thread count of each of `steps` steps."""
        used = []
        threads = control.running()
        for _ in range(steps):
            used.append(threads)
            threads = control.observe(self.cost(threads))
        return used


def controller(machine: Machine, most: int = 2, **kwargs: float) -> ThreadControl:
    return ThreadControl(most=most, load=lambda: machine.load, **kwargs)  # type: ignore[arg-type]


def test_on_a_quiet_machine_it_keeps_every_thread_and_only_probes_now_and_then() -> None:
    machine = Machine(lambda n: 1.0 / n, load=2.0)  # our own two threads make the load
    control = controller(machine)
    used = machine.run(control, 2000)
    assert used[0] == 2 and used[-1] == 2
    assert used.count(1) <= 0.05 * len(used)  # the probes' cost
    assert control.decisions and not any(kept for _, _, kept in control.decisions)


def test_on_a_loaded_machine_a_thread_is_dropped_when_steps_are_faster_without_it() -> None:
    machine = Machine(lambda n: {1: 1.0, 2: 1.5}[n], load=6.0)  # the barrier waits for a busy core
    control = controller(machine)
    used = machine.run(control, 1000)
    assert control.decisions[0] == (2, 1, True) and control.current == 1
    assert used[-500:].count(2) <= 0.05 * 500  # only the probes of two, ever less often


def test_the_thread_comes_back_when_the_load_goes_and_two_are_faster_again() -> None:
    machine = Machine(lambda n: {1: 1.0, 2: 1.5}[n], load=6.0)
    control = controller(machine)
    machine.run(control, 300)
    assert control.current == 1
    before = len(control.decisions)
    machine.cost, machine.load = (lambda n: 1.0 / n), 1.0  # the other work finished
    used = machine.run(control, 100)  # the load's fall brings the probe forward: within a short wait
    assert control.current == 2 and used[-20:].count(2) >= 16  # (a probe of one fewer may follow, and fail)
    assert control.decisions[before] == (1, 2, True)


def test_a_difference_within_the_margin_changes_nothing() -> None:
    machine = Machine(lambda n: {1: 0.98, 2: 1.0}[n], load=6.0)  # 2% faster with one thread: noise
    control = controller(machine)
    machine.run(control, 1000)
    assert control.current == 2 and control.decisions
    assert not any(kept for _, _, kept in control.decisions)


def test_on_a_steadily_shared_machine_failed_probes_come_ever_less_often() -> None:
    machine = Machine(lambda n: 1.0 / n, load=6.0)  # shared, but two threads still win
    control = controller(machine)
    machine.run(control, 4000)
    waits = len(control.decisions)
    # after 32, 64, 128, ... 1024 steps (and the probe's own 16 each): 7 probes, not 4000 / 32
    assert 5 <= waits <= 8


def test_it_never_leaves_the_budget() -> None:
    machine = Machine(lambda n: 1.0 / n, load=0.0)
    control = controller(machine, most=4)
    used = machine.run(control, 3000)
    assert max(used) == 4 and min(used) >= 3  # it probes one fewer, never more than the budget
    single = controller(machine, most=1)
    assert single.fixed and set(machine.run(single, 500)) == {1} and not single.decisions


def test_below_the_budget_it_probes_one_more_first_when_the_load_falls() -> None:
    machine = Machine(lambda n: {1: 1.0, 2: 1.5, 3: 2.0, 4: 2.5}[n], load=8.0)
    control = controller(machine, most=4)
    machine.run(control, 2000)
    assert control.current == 1  # step by step down to where steps are fastest
    machine.cost, machine.load = (lambda n: 1.0 / n), 2.0
    machine.run(control, 2000)
    assert control.current == 4  # and back up, one thread per probe that paid


def test_a_probe_interleaves_the_two_counts_so_a_burst_of_other_work_falls_on_both() -> None:
    """Steps are slower for a while in the middle of a probe (another process's burst): compared one
    after the other, that burst would be pinned on whichever count ran then; interleaved, it is not."""
    machine = Machine(lambda n: 1.0 / n, load=6.0)
    control = controller(machine)
    used = machine.run(control, 32)  # the first wait on a shared machine
    assert used[-1] == 2 and control.running() == 2
    burst = iter([*([5.0] * 8), *([1.0] * 100)])  # the first 8 probe steps: half of each count's share
    counts = []
    while not control.decisions:
        counts.append(control.running())
        control.observe(next(burst) / control.running())
    assert counts[:8] == [2, 2, 1, 1, 1, 1, 2, 2]
    assert control.decisions == [(2, 1, False)] and control.current == 2


@pytest.mark.parametrize(("chunk", "window"), [(2, 8), (1, 4)])  # the decode's and the batches' controls
def test_a_cost_that_grows_through_the_probe_is_not_pinned_on_the_probed_count(chunk: int, window: int) -> None:
    """A prompt's batches, and a reply's steps, cost more the further along they are. Here one thread is
    truly 8% faster while each step costs 5% of the first one more than the step before: were the probed
    count always the later of each pair, the drift would hide its gain."""
    machine = Machine(lambda n: 1.0, load=6.0)
    control = controller(machine, chunk=chunk, window=window)
    machine.run(control, 32)  # the first wait on a shared machine
    step = 0
    while not control.decisions:
        speed = 0.92 if control.running() == 1 else 1.0
        control.observe(speed * (1 + 0.05 * step))
        step += 1
    assert control.decisions == [(2, 1, True)] and control.current == 1


def per_token(size: int) -> float:
    """What a prompt batch costs per token by its size, as measured on Gemma 3 270M (2.8 ms at 32 tokens,
    2.0 ms at 512): a small batch pays for reading the weights over fewer tokens."""
    return 1.0 + 12.0 / size


def probe_with_sizes(control: ThreadControl, probed_speed: float, probed: tuple[int, ...],
                     settled: tuple[int, ...], limit: int = 200) -> None:
    """Run `control` until its first probe ends: steps at the probed count are `probed_speed` times the
    settled count's at the same size, and each side's batches cycle through its own sizes."""
    for _ in range(6):  # the batches' first wait on a shared machine
        control.observe(per_token(512), 512)
    assert control.running() != control.current or control._probe, "no probe started"
    sides = {True: iter(probed * limit), False: iter(settled * limit)}
    for _ in range(limit):
        if not control._probe:
            return
        at_probe = control.running() != control.current
        size = next(sides[at_probe])
        control.observe((probed_speed if at_probe else 1.0) * per_token(size), size)
    raise AssertionError("the probe never ended")


def batches_control(load: float = 6.0) -> ThreadControl:
    """The batches' control as FollowedThreads makes it."""
    return ThreadControl(most=2, window=4, chunk=1, probe_every=48, busy_probe_every=6, load=lambda: load)


@pytest.mark.parametrize(("probed_speed", "probed", "settled", "kept"), [
    (1.08, (512, 512, 40), (40, 40, 512), False),  # truly slower, though its batches were mostly the cheap big ones
    (0.92, (40, 40, 512), (512, 512, 40), True),   # truly faster, though its batches were mostly the dear small ones
])
def test_batches_are_compared_with_batches_of_a_like_size(probed_speed: float, probed: tuple[int, ...],
                                                        settled: tuple[int, ...], kept: bool) -> None:
    """An agent's prompts after the first are tool results of every size. Compared per token whatever
    their size, the count that happened to get the larger batches would look faster than it is."""
    control = batches_control()
    probe_with_sizes(control, probed_speed, probed, settled)
    assert control.decisions == [(2, 1, kept)]
    assert control.current == (1 if kept else 2)


def test_a_probe_that_never_meets_a_like_sized_batch_ends_without_a_decision() -> None:
    """One thread is truly 8% slower, and every batch it gets is large while the settled count gets only
    small ones: per token it would look 15% faster. With nothing to compare like with like, nothing moves."""
    control = batches_control()
    probe_with_sizes(control, 1.08, (512,), (40,))
    assert control.decisions == [] and control.current == 2 and control.running() == 2
    waited = 0
    while not control._probe:  # the next probe waits longer, as after a probe that did not pay
        control.observe(per_token(512), 512)
        waited += 1
    assert waited == 12


@pytest.mark.parametrize(("least", "most"), [(0, 2), (3, 2), (1, 0)])
def test_bounds_that_make_no_sense_are_refused(least: int, most: int) -> None:
    with pytest.raises(ValueError, match="thread bounds"):
        ThreadControl(most=most, least=least)


def test_a_size_match_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"size_match 0\.5 is below 1"):
        ThreadControl(most=2, size_match=0.5)
