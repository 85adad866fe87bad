"""Run every bench/bench_*.py in turn, each in its own process; exit non-zero if any of them failed.

Each bench writes its own bench/results/<name>.md; this runner only sequences them and reports.
Usage: python bench/run.py [substring ...]  (only the benches whose file name contains one of them)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    benches = sorted(BENCH_DIR.glob("bench_*.py"))
    if argv:
        benches = [b for b in benches if any(word in b.name for word in argv)]
    if not benches:
        print(f"no bench_*.py in {BENCH_DIR} matches {argv}", file=sys.stderr)
        return 2
    failed: list[str] = []
    for bench in benches:
        print(f"== {bench.name}", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(bench)], cwd=BENCH_DIR.parent)
        print(f"== {bench.name}: exit {code} in {time.perf_counter() - start:.1f} s", flush=True)
        if code:
            failed.append(bench.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
