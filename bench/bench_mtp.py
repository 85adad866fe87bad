"""Qwen 3.5's MTP head at real size: what `--draft mtp` costs and gains against `--draft none` (issue 52).

Writes bench/results/mtp.md. Models: the bench shapes (random weights at the real dimensions of
Qwen3.5-0.8B and 4B, qwen_runtime.testing.benchmodel) with an MTP head that agrees with the model by
construction (`make-test-model --shape 0.8b --mtp --mtp-agrees`, benchmodel_agreeing): every matrix has
its real size and quantization, so a step, a verify and a head's draft cost what they cost on the real
model, and the head's drafts are mostly right, as a trained head's are on easy text.

Each run is a fresh process (so its peak RSS is its own): load with `draft="none"` or `draft="mtp"`,
one warm-up reply (the controller learns this machine's costs, as over a session's first request), then
the timed greedy reply, its emitted tokens recorded. Modes: none; mtp with the default draft controller
(what users get); mtp with the draft length fixed at 1 and at 3 (the per-draft cost at real size, whether
or not it pays). Rounds interleave the modes; tokens/s are medians, a mode's ratio to none the median of
each round's ratio to the none run just before it. BENCH_MTP_SHAPES (default "0.8b:q4_k:128,0.8b:q8_0:128,4b:q4_k:48":
shape, quantization, reply tokens) and BENCH_MTP_ROUNDS (default 3) change it.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_runtime import Row, write_results
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.speed.draft_acceptance import expected_tokens
from qwen_runtime.speed.draft_control import DraftController, FixedDraftLength
from qwen_runtime.testing.benchmodel import bench_model_path
from qwen_runtime.types import ChatRequest, Sampling, UserMessage
from recording import emitted_tokens

RESULTS = Path(__file__).resolve().parent / "results" / "mtp.md"
ROUNDS = int(os.environ.get("BENCH_MTP_ROUNDS", "3"))
SHAPES = os.environ.get("BENCH_MTP_SHAPES", "0.8b:q4_k:128,0.8b:q8_0:128,4b:q4_k:48")
MODES = ("none", "mtp", "k=1", "k=3")
LABELS = {"none": "--draft none", "mtp": "--draft mtp (default controller)", "k=1": "--draft mtp, k fixed at 1",
          "k=3": "--draft mtp, k fixed at 3"}
MIN_NOISE = 0.03
PROMPT = "Write a Python function that reads a text file and returns how many lines it has."


def request(tokens: int) -> ChatRequest:
    return ChatRequest((UserMessage(PROMPT),), sampling=Sampling(temperature=0, max_tokens=tokens),
                       enable_thinking=False)


# ---------------------------------------------------------------- one run, in its own process


class ProposeTimer:
    """Time spent in the draft source's `propose` (the MTP head's forward passes) and tokens proposed."""

    def __init__(self, source: Any) -> None:
        self.seconds, self.tokens = 0.0, 0
        propose: Callable[[Any, int], list[int]] = source.propose

        def timed(context: Any, k: int) -> list[int]:
            start = time.perf_counter()
            out = propose(context, k)
            self.seconds += time.perf_counter() - start
            self.tokens += len(out)
            return out

        setattr(source, "propose", timed)  # noqa: B010



def child(path: str, mode: str, tokens: int) -> dict[str, Any]:
    rt = LlamaCppRuntime(path, n_ctx=2048, draft="none" if mode == "none" else "mtp")
    try:
        if mode.startswith("k="):
            rt.draft_policy = FixedDraftLength(int(mode.removeprefix("k=")))
        timer = ProposeTimer(rt.draft_source) if rt.draft_source is not None else None
        rt.clear_cache()
        rt.complete(request(max(16, tokens // 2)))  # warm-up: the controller measures this machine
        if timer is not None:
            timer.seconds, timer.tokens = 0.0, 0
        rt.clear_cache()
        done, emitted = emitted_tokens(rt, request(tokens))
        policy = rt.draft_policy
        learned = policy.learned() if isinstance(policy, DraftController) else None
        threads = f"{rt.n_threads}/{rt.n_threads_batch}"
    finally:
        rt.close()
    u = done.usage
    return {
        "completion": u.completion_tokens, "gen_s": u.generation_ms / 1000, "drafted": u.drafted_tokens,
        "accepted": u.accepted_draft_tokens, "draft_length": u.draft_length, "verify_cost": u.draft_verify_cost,
        "propose_s": timer.seconds if timer else 0.0, "tokens": emitted, "threads": threads,
        "learned": {str(k): round(v, 2) for k, v in sorted(learned.verify_costs.items())} if learned else {},
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_child(path: Path, mode: str, tokens: int) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--child", str(path), mode, str(tokens)],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{mode} run failed ({done.returncode}): {done.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


# ---------------------------------------------------------------- the comparison


def break_even(k: int, step_cost: float) -> float:
    """The per-token acceptance at which a draft of `k` costing `step_cost` undrafted steps a step (verify,
    the head following and proposing) yields as many tokens as it costs (1.0: none reaches it)."""
    low, high = 0.0, 1.0
    if expected_tokens(k, high, high) < step_cost:
        return 1.0
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if expected_tokens(k, mid, mid) < step_cost else (low, mid)
    return high


def rate(run: dict[str, Any]) -> float:
    return float(run["completion"]) / float(run["gen_s"])


def first_difference(a: list[int], b: list[int]) -> int | None:
    at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), None)
    return at if at is not None else (None if len(a) == len(b) else min(len(a), len(b)))


def bench_shape(shape: str, quant: str, tokens: int) -> tuple[list[Row], list[str], list[str]]:
    path = bench_model_path(shape, quant, mtp=True, mtp_agrees=True)  # type: ignore[arg-type]
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    load = [os.getloadavg()[0]]
    for r in range(ROUNDS):
        for mode in MODES:
            runs[mode].append(run_child(path, mode, tokens))
            print(f"{shape} round {r + 1} {mode}: {rate(runs[mode][-1]):.2f} tokens/s", flush=True)
    load.append(os.getloadavg()[0])
    none = [rate(x) for x in runs["none"]]
    noise = max(MIN_NOISE, (max(none) - min(none)) / statistics.median(none))
    label = f"Qwen3.5-{shape.upper()} shape {quant.upper()}, agreeing head"
    table, notes, rows = [], [], []
    for mode in MODES:
        got = runs[mode]
        med = statistics.median(rate(x) for x in got)
        ratio = statistics.median(rate(x) / n for x, n in zip(got, none, strict=True))
        drafted, accepted = sum(x["drafted"] for x in got), sum(x["accepted"] for x in got)
        parts = [first_difference(n["tokens"], x["tokens"]) for n, x in zip(runs["none"], got, strict=True)]
        same = "yes" if all(p is None for p in parts) else "parts at token " + ", ".join(
            "-" if p is None else str(p) for p in parts)
        rss = statistics.median(x["rss_mib"] for x in got)
        cost = head = even = "-"
        if mode != "none":
            # in undrafted steps (the none run of the same round): a draft step's time, verify and following
            # apart from the head's proposals, and the head's cost per token it proposed
            step = [(x["gen_s"] / max(1, x["completion"] - x["accepted"])) / (n["gen_s"] / n["completion"])
                    for x, n in zip(got, runs["none"], strict=True)]
            per = [(x["propose_s"] / max(1, x["drafted"])) / (n["gen_s"] / n["completion"])
                   for x, n in zip(got, runs["none"], strict=True) if x["drafted"]]
            cost = f"{statistics.median(step):.2f}"
            head = f"{statistics.median(per):.2f}" if per else "-"
            if mode.startswith("k="):
                even = f"{break_even(int(mode[2:]), statistics.median(step)):.0%}"
        fixed = [int(mode[2:])] if mode.startswith("k=") else []
        lengths = sorted({x["draft_length"] for x in got}) if mode == "mtp" else fixed
        table.append(
            f"| {shape} {quant} | {LABELS[mode]} | {med:.2f} | {ratio:.2f}x | "
            f"{f'{drafted}, {accepted} ({accepted / drafted:.0%})' if drafted else '-'} | "
            f"{', '.join(map(str, lengths)) or '-'} | {cost} | {head} | {even} | {same} | {rss:.0f} |")
        if mode == "mtp":
            rows.append(Row(f"{label}: --draft mtp / none (noise {noise:.0%})", f"{ratio:.2f}x", f">= {1 - noise:.2f}x",
                            ratio >= 1 - noise))
            learned = got[-1]["learned"]
            notes.append(f"{shape} {quant}: the default controller's measured verify costs (batch size: undrafted "
                         f"steps), last round: {learned or 'none measured'}; threads (decode/batch) "
                         f"{got[-1]['threads']}.")
        if mode != "none":
            rows.append(Row(f"{label}: {LABELS[mode]} reply vs none", "identical, token for token" if same == "yes"
                            else same, "identical", same == "yes"))
    notes.append(f"{shape} {quant}: load average (1 min) {load[0]:.1f} at its start, {load[1]:.1f} at its end.")
    return rows, table, notes


def main() -> int:
    load_start = os.getloadavg()
    rows: list[Row] = []
    table = ["| shape | mode | tokens/s | / none | drafted, accepted | draft length | step cost (undrafted steps) "
             "| head per drafted token (steps) | break-even acceptance | reply = none's | peak RSS MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    notes: list[str] = []
    code = 0
    for spec in SHAPES.split(","):
        shape, quant, tokens = spec.split(":")
        print(f"== {shape} {quant}, {tokens} tokens", flush=True)
        got_rows, got_table, got_notes = bench_shape(shape, quant, int(tokens))
        rows += got_rows
        table += got_table
        notes += got_notes
        code = write(rows, table, notes, load_start)  # after each shape: what is done is kept
    return code


def write(rows: list[Row], table: list[str], notes: list[str], load_start: tuple[float, float, float]) -> int:
    note = "\n".join([
        "Greedy decode of one prompt, tokens/s = completion tokens over generation time (prompt excluded), "
        "medians; `/ none` the median of each round's ratio. Drafted and accepted are summed over the rounds. "
        "Step cost: a drafting step's time (verify of 1 + k tokens, the head following the model's decode, "
        "its proposals, rollback) over an undrafted step's; head per drafted token: the head's proposal time "
        "per token it proposed, in undrafted steps; break-even: the per-token acceptance a fixed k needs to "
        "emit as many tokens a step as the step costs.",
        "",
        *table,
        "",
        *(f"- {n}" for n in notes),
        f"- Load average (1, 5, 15 min) at the start: {', '.join(f'{x:.2f}' for x in load_start)}; at the end: "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}, on {os.cpu_count()} cores shared with other work.",
    ])
    return write_results(RESULTS, "qwen_runtime: Qwen 3.5's MTP head at real size (--draft mtp vs none)",
                         f"fresh process per run, {ROUNDS} interleaved rounds.", rows, note)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        sys.exit(0)
    sys.exit(main())
