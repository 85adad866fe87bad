"""Thread defaults from the CPUs a process may really use (a fake /sys and cgroup tree per test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.errors import ModelLoadError
from qwen_runtime.speed.cpus import THREADS_ENV, cpu_budget


@pytest.fixture(autouse=True)
def no_thread_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite caps threads for its own many workers; these tests read the machine as a user's."""
    monkeypatch.delenv(THREADS_ENV, raising=False)


def fake_machine(root: Path, cores: list[tuple[int, int]], cpu_max: str | None = None) -> tuple[Path, Path]:
    """`cores[i]` = (package, core) of CPU i; `cpu_max` the cgroup v2 line, None for no cgroup file."""
    sys_cpu, cgroup = root / "cpu", root / "cgroup"
    for index, (package, core) in enumerate(cores):
        topology = sys_cpu / f"cpu{index}" / "topology"
        topology.mkdir(parents=True)
        (topology / "physical_package_id").write_text(f"{package}\n")
        (topology / "core_id").write_text(f"{core}\n")
    cgroup.mkdir()
    if cpu_max is not None:
        (cgroup / "cpu.max").write_text(cpu_max + "\n")
    return sys_cpu, cgroup


def test_two_vcpus_without_siblings_get_two_decode_threads(tmp_path: Path) -> None:
    # the CI/VM case llama-cpp-python's cpu_count // 2 turns into one thread
    sys_cpu, cgroup = fake_machine(tmp_path, [(0, 0), (0, 1)], "max 100000")
    budget = cpu_budget(sys_cpu, cgroup, cpus={0, 1})
    assert (budget.decode_threads, budget.batch_threads) == (2, 2)


def test_hyperthread_siblings_count_once_for_decode_and_all_for_batches(tmp_path: Path) -> None:
    sys_cpu, cgroup = fake_machine(tmp_path, [(0, 0), (0, 1), (0, 0), (0, 1), (1, 0), (1, 1), (1, 0), (1, 1)])
    budget = cpu_budget(sys_cpu, cgroup, cpus=set(range(8)))
    assert (budget.physical, budget.decode_threads, budget.batch_threads) == (4, 4, 8)
    pinned = cpu_budget(sys_cpu, cgroup, cpus={0, 2})  # taskset to one core's two threads
    assert (pinned.decode_threads, pinned.batch_threads) == (1, 2)


def test_a_cgroup_quota_caps_both(tmp_path: Path) -> None:
    sys_cpu, cgroup = fake_machine(tmp_path, [(0, c) for c in range(8)], "150000 100000")
    budget = cpu_budget(sys_cpu, cgroup, cpus=set(range(8)))
    assert budget.quota == 1.5 and (budget.decode_threads, budget.batch_threads) == (2, 2)
    assert "a CPU quota of 1.5" in budget.describe()


def test_cgroup_v1_and_an_unknown_topology(tmp_path: Path) -> None:
    sys_cpu, cgroup = tmp_path / "no-sys", tmp_path / "cgroup"
    (cgroup / "cpu").mkdir(parents=True)
    (cgroup / "cpu" / "cpu.cfs_quota_us").write_text("300000\n")
    (cgroup / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    budget = cpu_budget(sys_cpu, cgroup, cpus=set(range(4)))  # no topology: each CPU its own core
    assert (budget.physical, budget.quota, budget.decode_threads) == (4, 3.0, 3)
    (cgroup / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")  # unlimited
    assert cpu_budget(sys_cpu, cgroup, cpus={0, 1}).quota is None


@pytest.mark.slow
def test_the_runtime_uses_the_budget_unless_told(tiny_gguf: Path) -> None:
    budget = cpu_budget()
    default = LlamaCppRuntime(str(tiny_gguf), n_ctx=512)
    assert (default.n_threads, default._llm.n_threads) == (budget.decode_threads, budget.decode_threads)
    assert default._llm.n_threads_batch == max(budget.decode_threads, budget.batch_threads)
    default.close()
    pinned = LlamaCppRuntime(str(tiny_gguf), n_ctx=512, n_threads=1)
    assert pinned._llm.n_threads == 1
    pinned.close()


def test_qwen_runtime_threads_caps_both_on_a_shared_machine(tmp_path: Path) -> None:
    sys_cpu, cgroup = fake_machine(tmp_path, [(0, i) for i in range(8)])
    budget = cpu_budget(sys_cpu, cgroup, cpus=set(range(8)), env={THREADS_ENV: "3"})
    assert (budget.decode_threads, budget.batch_threads) == (3, 3)
    assert "QWEN_RUNTIME_THREADS=3" in budget.describe()
    # a cap above what the machine has changes nothing
    roomy = cpu_budget(sys_cpu, cgroup, cpus={0, 1}, env={THREADS_ENV: "16"})
    assert (roomy.decode_threads, roomy.batch_threads) == (2, 2)


@pytest.mark.parametrize("raw", ["0", "-2", "two", "1.5"])
def test_a_bad_qwen_runtime_threads_is_a_clear_load_error(
    raw: str, tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(THREADS_ENV, raw)
    with pytest.raises(ModelLoadError, match=f"QWEN_RUNTIME_THREADS='{raw}' is not a positive whole number"):
        LlamaCppRuntime(str(tiny_gguf), n_ctx=256)


def test_the_runtime_follows_qwen_runtime_threads(tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=256)
    assert (runtime._llm.n_threads, runtime._llm.n_threads_batch) == (1, 1)
    runtime.close()


def test_the_transformers_backend_follows_qwen_runtime_threads_too(
    tiny_hf_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch
    from qwen_runtime.backends.transformers_backend import TransformersRuntime

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        monkeypatch.setenv(THREADS_ENV, "1")
        TransformersRuntime(str(tiny_hf_dir)).close()
        assert torch.get_num_threads() == 1
        monkeypatch.setenv(THREADS_ENV, "many")
        with pytest.raises(ModelLoadError, match="QWEN_RUNTIME_THREADS='many' is not a positive whole number"):
            TransformersRuntime(str(tiny_hf_dir))
    finally:
        torch.set_num_threads(before)
