"""How many threads llama.cpp should use here: the CPUs this process may really run on.

llama-cpp-python's own default is `os.cpu_count() // 2`, which assumes every core has a hyperthread
sibling: on a 2-vCPU VM or CI container that is 1 thread, half the decode speed the machine has.
Decoding is bound by memory bandwidth and by the slowest thread, so it wants one thread per
physical core; prompt evaluation (batches) gains from every logical CPU. Both are capped by the
CPU affinity mask and by a cgroup CPU quota (a container given 1.5 CPUs of an 8-core host).

`QWEN_RUNTIME_THREADS=N` caps both where the machine is shared with other heavy work (a build, a test
suite, several agents): llama.cpp's threads meet at a barrier after every operation, so a thread
waiting for a busy core stalls the others, and on a small model one thread decodes faster than two
contending ones (the test suite sets 1).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SYS_CPU = Path("/sys/devices/system/cpu")
THREADS_ENV = "QWEN_RUNTIME_THREADS"
CGROUP = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class CpuBudget:
    """What this process may use, and where each number came from (for `--verbose` and reports)."""

    logical: int  # CPUs in the affinity mask
    physical: int  # distinct cores among them (hyperthread siblings counted once)
    quota: float | None  # the cgroup CPU quota in CPUs, None when unlimited or unknown
    cap: int | None = None  # QWEN_RUNTIME_THREADS, None when unset

    @property
    def decode_threads(self) -> int:
        """One thread per physical core, no more than the quota allows."""
        return max(1, min(self.physical, self._quota_cap()))

    @property
    def batch_threads(self) -> int:
        """Every logical CPU, no more than the quota allows."""
        return max(1, min(self.logical, self._quota_cap()))

    def _quota_cap(self) -> int:
        quota = self.logical if self.quota is None else max(1, math.ceil(self.quota))
        return quota if self.cap is None else min(quota, self.cap)

    def describe(self) -> str:
        quota = "no CPU quota" if self.quota is None else f"a CPU quota of {self.quota:g}"
        cap = "" if self.cap is None else f", {THREADS_ENV}={self.cap}"
        return (f"{self.decode_threads} decode / {self.batch_threads} batch threads "
                f"({self.logical} CPUs usable, {self.physical} physical cores, {quota}{cap})")


def cpu_budget(sys_cpu: Path = SYS_CPU, cgroup: Path = CGROUP, cpus: set[int] | None = None,
               env: Mapping[str, str] | None = None) -> CpuBudget:
    """The CPUs usable now; the paths are parameters so tests can hand in a fake machine. ValueError
    when QWEN_RUNTIME_THREADS is set to anything but a positive whole number."""
    usable = cpus if cpus is not None else _affinity()
    return CpuBudget(len(usable), _physical_cores(usable, sys_cpu), _cgroup_quota(cgroup),
                     thread_cap(env))


def thread_cap(env: Mapping[str, str] | None = None) -> int | None:
    """QWEN_RUNTIME_THREADS as a number, None when unset; ValueError when it is not a positive number."""
    raw = (os.environ if env is None else env).get(THREADS_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{THREADS_ENV}={raw!r} is not a positive whole number of threads (unset it to "
                         "use one thread per core)")
    return int(raw)


def _affinity() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return set(range(os.cpu_count() or 1))


def _physical_cores(cpus: set[int], sys_cpu: Path) -> int:
    """Distinct (package, core) pairs among `cpus`; every CPU its own core when topology is unknown."""
    cores: set[tuple[str, str] | int] = set()
    for cpu in cpus:
        topology = sys_cpu / f"cpu{cpu}" / "topology"
        try:
            package = (topology / "physical_package_id").read_text().strip()
            core = (topology / "core_id").read_text().strip()
        except OSError:
            cores.add(cpu)
            continue
        cores.add((package, core))
    return max(1, len(cores))


def _cgroup_quota(cgroup: Path) -> float | None:
    """cgroup v2 `cpu.max` ("max 100000" or "150000 100000"), else v1's cfs quota and period."""
    try:
        fields = (cgroup / "cpu.max").read_text().split()
        if len(fields) == 2 and fields[0] != "max":
            return _ratio(fields[0], fields[1])
        return None
    except OSError:
        pass
    try:
        quota = (cgroup / "cpu" / "cpu.cfs_quota_us").read_text().strip()
        period = (cgroup / "cpu" / "cpu.cfs_period_us").read_text().strip()
    except OSError:
        return None
    return _ratio(quota, period)


def _ratio(quota: str, period: str) -> float | None:
    try:
        value, per = int(quota), int(period)
    except ValueError:
        return None
    return value / per if value > 0 and per > 0 else None
