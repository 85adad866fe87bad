"""A quick probe of one cost bench_hybrid.py reports: a decode step against verifying 8 drafted tokens (one
decode of 9 with 9 logit rows, then the rollback), on a real-shape Qwen 3.5 bench model, with the knobs that
may change it: the recurrent-state snapshots (DRAFT=none loads none), llama.cpp's extra (repacked, AMX)
weight buffers, the thread count. Not run by `make bench` (its name has no bench_ prefix).

    python bench/verify_cost_probe.py [q8_0|q4_k] [extra buffers 0|1] [threads] [0.8b|4b]

Findings are in bench/results/hybrid.md ("Why verifying 8 drafts costs more than 3 decode steps").
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.backends.llamacpp.state import copy_state, restore_state
from qwen_runtime.testing.benchmodel import bench_model_path


def main(argv: list[str]) -> None:
    quant = argv[0] if argv else "q8_0"
    extra = len(argv) > 1 and argv[1] == "1"
    threads = int(argv[2]) if len(argv) > 2 else 1
    shape = argv[3] if len(argv) > 3 else "0.8b"
    rounds = int(os.environ.get("R", "5"))
    path = bench_model_path(shape, quant)  # type: ignore[arg-type]
    rt = LlamaCppRuntime(str(path), n_ctx=1024, n_threads=threads, n_threads_batch=threads, extra_buffers=extra,
                         draft=os.environ.get("DRAFT", "prompt-lookup"))
    rng = np.random.default_rng(0)
    prompt = [int(t) for t in rng.integers(0, 700, 64)]
    rt.eval_tokens(prompt)
    saved = copy_state(rt._llm.ctx, partial=True)
    assert saved is not None

    def back() -> None:
        assert restore_state(rt._llm.ctx, saved, partial_at=len(prompt))
        rt._llm.n_tokens = len(prompt)

    one, nine = [], []
    for _ in range(rounds):
        back()
        start = time.perf_counter()
        rt.eval_tokens([5])
        one.append(time.perf_counter() - start)
        back()
        start = time.perf_counter()
        rt.eval_with_rows([int(x) for x in rng.integers(0, 700, 9)], 9)
        if rt.rollback_snapshots:
            assert rt.truncate(len(prompt) + 2)
        nine.append(time.perf_counter() - start)
    step, verify = statistics.median(one), statistics.median(nine)
    print(f"{shape} {quant}, {rt.rollback_snapshots} snapshots, extra buffers {extra}, {threads} thread(s): "
          f"decode {step * 1000:.0f} ms, verify 8 {verify * 1000:.0f} ms = {verify / step:.2f} steps "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)
    rt.close()


if __name__ == "__main__":
    main(sys.argv[1:])
