"""Qwen 3.5 at its real shape: what a step costs on the hybrid (Gated DeltaNet + attention) models.

Writes bench/results/hybrid.md. Models: random-weight GGUFs with the dimensions of Qwen3.5-0.8B and 4B
(`qwen_runtime.testing.benchmodel`, written once into the user cache). Random weights make a draft's acceptance
meaningless, so this measures costs, side by side in one process per model:

- prefill and decode tokens/s (decode with and without the recurrent-state snapshots drafting keeps);
- verifying K drafted tokens (one decode of the sampled token and K drafts, K + 1 logit rows) followed
  by the rollback of all drafts but one, in decode steps, for K = 1, 2, 4, 8, 16;
- the decode speed-up that implies at 60% and 80% per-token acceptance (expected tokens per step over
  the step's cost, the best K);
- the state a checkpoint holds (partial: the recurrent layers; full: with the attention KV cache) at
  the prompt's length, and the time to copy it out and restore it.

BENCH_HYBRID_SHAPES picks the shapes (default "0.8b:q8_0,0.8b:q4_k,4b:q4_k"); BENCH_HYBRID_ROUNDS the
repetitions whose median is reported (default 3).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bench_runtime import Row, write_results
from qwen_runtime.backends.llamacpp import runtime as llamacpp
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.backends.llamacpp.state import copy_state, restore_state
from qwen_runtime.speed.cpus import cpu_budget
from qwen_runtime.testing.benchmodel import BENCH_SHAPES, bench_model_dir, bench_model_path

RESULTS = Path(__file__).resolve().parent / "results" / "hybrid.md"
ROUNDS = int(os.environ.get("BENCH_HYBRID_ROUNDS", "3"))
SHAPES = os.environ.get("BENCH_HYBRID_SHAPES", "0.8b:q8_0,0.8b:q4_k,4b:q4_k")
PROMPT_TOKENS = 256
DECODE_STEPS = 8
KS = (1, 2, 4, 8, 16)
GOAL_K, GOAL_STEPS = 8, 3.0
CORES = os.cpu_count() or 1
LOADED = os.getloadavg()[0] > CORES
THREADS = int(os.environ.get("BENCH_HYBRID_THREADS", "0")) or (1 if LOADED else cpu_budget().decode_threads)
"""One thread on a machine busier than its cores: measured here, two threads that must meet at every
op's barrier while other processes hold the cores took 6.4 s a step against 0.43 s for one thread."""


class _Printed(list[Row]):
    """The rows, each printed as it is measured (a slow machine still shows what it has)."""

    def __init__(self, rows: list[Row]) -> None:
        super().__init__()
        for row in rows:
            self.append(row)

    def append(self, row: Row) -> None:
        print(row.line(), flush=True)
        super().append(row)


def median_time(run: Callable[[], None], reset: Callable[[], None], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        reset()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def speed_up(steps: dict[int, float], accept: float) -> tuple[float, int]:
    """Tokens per decode step's time with the best K, when each drafted token is right with
    probability `accept` independently: a step yields (1 - a^(K+1)) / (1 - a) tokens and costs
    steps[K] single decodes."""
    best = max(((1 - accept ** (k + 1)) / (1 - accept) / cost, k) for k, cost in steps.items())
    return best


def bench_shape(shape: str, quant: str) -> list[Row]:
    label = f"Qwen3.5-{shape.upper()} shape, {quant.upper()}"
    start = time.perf_counter()
    path = bench_model_path(shape, quant)  # type: ignore[arg-type]
    written = time.perf_counter() - start
    print(f"{label}: {path} ({path.stat().st_size / 2**30:.2f} GiB, ready in {written:.1f} s)", flush=True)
    rows = _Printed([Row(f"{label}: file size", f"{path.stat().st_size / 2**30:.2f} GiB", "", None)])

    llamacpp.HYBRID_MAX_DRAFT = max(KS)  # snapshots enough to take back every K measured here
    t0 = time.perf_counter()
    rt = LlamaCppRuntime(str(path), n_ctx=4096, n_threads=THREADS, n_threads_batch=THREADS)
    load_s = time.perf_counter() - t0
    plain = LlamaCppRuntime(str(path), n_ctx=4096, n_threads=THREADS, n_threads_batch=THREADS, draft="none")
    rows.append(Row(f"{label}: load (mmap, with {rt.rollback_snapshots} snapshots)", f"{load_s:.2f} s", "", None))
    llm: Any = rt._llm
    rng = np.random.default_rng(0)
    prompt = [int(t) for t in rng.integers(0, 700, PROMPT_TOKENS)]  # the BPE tokens: any ids cost the same
    decode_tokens = [int(t) for t in rng.integers(0, 700, DECODE_STEPS)]

    prefill = median_time(lambda: rt.eval_tokens(prompt), rt.clear_cache_unlocked, rounds=2)
    rows.append(Row(f"{label}: prefill, {PROMPT_TOKENS} tokens", f"{PROMPT_TOKENS / prefill:.1f} tokens/s", "", None))

    def at_prompt(runtime: LlamaCppRuntime) -> Callable[[], None]:
        """Evaluate the prompt once; the returned call puts the state back there (a partial state
        restored over the attention cache, which is cut back: what the prompt cache does)."""
        runtime.clear_cache_unlocked()
        runtime.eval_tokens(prompt)
        saved = copy_state(runtime._llm.ctx, partial=True)
        assert saved is not None

        def back() -> None:
            if not restore_state(runtime._llm.ctx, saved, partial_at=len(prompt)):
                raise RuntimeError("the prompt's state did not restore")
            runtime._llm.n_tokens = len(prompt)

        return back

    def decode_step(runtime: LlamaCppRuntime) -> float:
        back = at_prompt(runtime)
        return median_time(lambda: [runtime.eval_tokens([t]) for t in decode_tokens], back) / len(decode_tokens)

    step = decode_step(rt)
    step_plain = decode_step(plain)
    rows.append(
        Row(
            f"{label}: decode, with snapshots / without",
            f"{1 / step:.2f} / {1 / step_plain:.2f} tokens/s ({step * 1000:.0f} / {step_plain * 1000:.0f} ms a step)",
            "",
            None,
        )
    )
    plain.close()

    steps: dict[int, float] = {}
    rollback_ms: dict[int, float] = {}
    back = at_prompt(rt)
    base = len(prompt)
    for k in KS:
        tokens = [int(t) for t in rng.integers(0, 700, k + 1)]
        verify, undo = [], []
        for _ in range(ROUNDS):
            back()
            start = time.perf_counter()
            rt.eval_with_rows(tokens, k + 1)
            mid = time.perf_counter()
            ok = rt.truncate(base + 2)  # keep the sampled token and one draft, drop the rest
            end = time.perf_counter()
            if not ok:
                raise RuntimeError(f"rollback of {k - 1} tokens refused ({rt.rollback_snapshots} snapshots)")
            verify.append(mid - start)
            undo.append(end - mid)
        steps[k] = statistics.median(verify) / step
        rollback_ms[k] = statistics.median(undo) * 1000
        goal = k == GOAL_K
        rows.append(
            Row(
                f"{label}: verify {k} drafted token{'s' if k > 1 else ''} (one decode of {k + 1}), in decode steps",
                f"{steps[k]:.2f} ({steps[k] / (k + 1):.2f} per token)",
                f"<= {GOAL_STEPS:.0f}" if goal else "",
                steps[k] <= GOAL_STEPS if goal else None,
            )
        )
    rows.append(
        Row(
            f"{label}: rollback of K-1 drafts (snapshot), K = {', '.join(map(str, KS))}",
            " / ".join(f"{rollback_ms[k]:.3f}" for k in KS) + " ms",
            "",
            None,
        )
    )
    for accept in (0.6, 0.8):
        gain, k = speed_up(steps, accept)
        rows.append(
            Row(f"{label}: implied decode speed-up at {accept:.0%} acceptance", f"{gain:.2f}x (K = {k})", "", None)
        )

    back()
    ctx = llm.ctx
    n = llm.n_tokens
    for partial in (True, False):
        data = copy_state(ctx, partial=partial)
        assert data is not None
        at = n if partial else None

        def copy_out(p: bool = partial) -> None:
            copy_state(ctx, partial=p)

        def restore(d: Any = data, p: int | None = at) -> None:
            if not restore_state(ctx, d, partial_at=p):
                raise RuntimeError("a saved state did not restore")

        copy_ms = median_time(copy_out, lambda: None) * 1000
        restore_ms = median_time(restore, lambda: None) * 1000
        kind = "partial (recurrent layers)" if partial else "full (recurrent + attention KV)"
        rows.append(
            Row(
                f"{label}: {kind} state at {n} tokens: size, copy out, restore",
                f"{len(data) / 2**20:.1f} MiB, {copy_ms:.1f} ms, {restore_ms:.1f} ms",
                "",
                None,
            )
        )
    s = BENCH_SHAPES[shape]
    per_snapshot = (
        (s.n_layer - s.n_layer // s.full_attention_interval)
        * (
            s.linear_value_head_dim * s.linear_key_head_dim * s.linear_num_value_heads
            + (s.linear_conv_kernel - 1) * (2 * s.key_dim + s.value_dim)
        )
        * 4
    )
    rows.append(
        Row(
            f"{label}: memory of the {llamacpp.HYBRID_MAX_DRAFT} rollback snapshots drafting keeps "
            f"(default {8}: {8 * per_snapshot / 2**20:.0f} MiB)",
            f"{llamacpp.HYBRID_MAX_DRAFT * per_snapshot / 2**20:.0f} MiB "
            f"({per_snapshot / 2**20:.1f} MiB each, the recurrent state)",
            "",
            None,
        )
    )
    rt.close()
    return rows


def main() -> int:
    rows: list[Row] = []
    for item in SHAPES.split(","):
        shape, _, quant = item.strip().partition(":")
        rows += bench_shape(shape, quant or "q8_0")
    load = os.getloadavg()[0]
    loaded = load > (os.cpu_count() or 1)
    busy = "busier than its cores: absolute rates are low and noisy" if loaded else "not busier than its cores"
    note = (
        f"Load average {load:.1f} on {os.cpu_count()} cores at the end ({busy}); ratios in decode steps are "
        "measured back to back and hold better than rates. Weights are random: acceptance is not measured "
        "here (bench/results/draft.md has it on a pretrained model)."
    )
    return write_results(
        RESULTS,
        "qwen_runtime: Qwen 3.5 hybrid shapes (costs of a step, drafting, state)",
        f"{THREADS} thread(s) for decode and batch{' (the machine was busier than its cores)' if LOADED else ''}, "
        f"medians of {ROUNDS} runs, random-weight models from qwen_runtime.testing.benchmodel in {bench_model_dir()}.",
        rows,
        note,
    )


if __name__ == "__main__":
    sys.exit(main())
