"""The transformers backend on a hybrid model: prompt tokens served from its cache checkpoints over a
10-round agent loop, with and without them (the tiny `qwen3_5` folder; transformers cannot crop its
linear-attention cache, so without checkpoints every round evaluates its whole prompt again).

The same loop as bench_prompt_cache.py's llama.cpp hybrid rows. Writes
bench/results/transformers_hybrid.md.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from bench_prompt_cache import hybrid_loop

RESULTS = Path(__file__).resolve().parent / "results" / "transformers_hybrid.md"


def main() -> int:
    from qwen_runtime.backends.transformers_backend import TransformersRuntime
    from qwen_runtime.testing.testmodel import write_test_hf

    rows: list[str] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        folder = write_test_hf(Path(tmp_name) / "tiny-qwen35-hf", arch="qwen35")
        for checkpoints in (4, 0):
            rt = TransformersRuntime(str(folder), n_ctx=16384, n_threads=1, checkpoints=checkpoints)
            start = time.perf_counter()
            share, prompt, cached = hybrid_loop(folder, checkpoints, rt)
            seconds = time.perf_counter() - start
            note = "goal >= 90%" if checkpoints else "without checkpoints (the only path before)"
            rows.append(f"| 10-round agent loop, tiny hybrid `qwen3_5` through transformers: rounds 2-10 from "
                        f"cache, {checkpoints} checkpoints | {share:.1%} | {cached:,} of {prompt:,} tokens | "
                        f"{seconds:.1f} s for the 10 rounds | {note} |")
            print(rows[-1], flush=True)
    lines = [
        "# transformers backend: hybrid checkpoints",
        "",
        f"Machine: {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}, load average "
        f"{os.getloadavg()[0]:.1f} at the end (shared with other engineers' test runs: times are noisy, the "
        "token counts are not). `python bench/bench_transformers_hybrid.py`.",
        "",
        "| measure | value | tokens | time | notes |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Each round restores the checkpoint kept at the end of the previous round's prompt (a copy of the "
        "whole cache: attention keys and values and every linear layer's state) and evaluates the reply "
        "and the tool result after it.",
        "",
    ]
    RESULTS.write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
