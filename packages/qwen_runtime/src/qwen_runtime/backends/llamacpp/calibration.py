"""`qwen-runtime tune`: measure, on the user's machine, what makes one model fastest there, and choose.

The defaults (one decode thread per physical core, every CPU for batches, 512-token batches, prompt
lookup drafting up to 12 tokens, an f16 KV cache) are guesses that fit most machines; the right values
depend on the CPU, its caches and the model. A short calibration measures each on the real model:

- decode threads and batch (prefill) threads, separately (1..N CPUs, and the physical-core count);
- the prefill chunk a graph computes at once (`n_ubatch`; a llama_decode still takes 2,048), a few sizes up to 512;
- verifying a draft: one pass over 1+k tokens (k = 1, 2, 4, 8, 12) against one decode step, the verify
  cost curve; then tokens/s with each draft source (none, prompt lookup, the model's MTP head when it
  has one) on a copy-heavy prompt, and the draft length the curve and the measured acceptance favour;
- the KV cache type: q8_0 only when a short constrained tool call comes out token for token as with
  f16 and it is not slower (llama.cpp quantizes the V cache only with flash attention).

A value is changed from the default only when it measured better by more than `MARGIN`: on a busy
machine a tie is noise. Timings are medians over interleaved rounds, so a burst of other work hurts
every candidate alike.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import QwenRuntimeError
from ...home import expand_home
from ...speed.cpus import cpu_budget
from ...speed.draft_sources import MTP, NO_DRAFT, PROMPT_LOOKUP
from ...speed.tuning import MachineId, ModelFile, TunedSettings
from ...types import ChatRequest, Completion, Sampling, ToolSpec, UserMessage
from .load import DEFAULT_N_BATCH

if TYPE_CHECKING:
    from .runtime import LlamaCppRuntime

log = logging.getLogger(__name__)

MARGIN = 0.03
"""How much faster than the default a candidate must measure to replace it."""
N_CTX = 2048
DEFAULT_MAX_DRAFT = 12
DRAFT_LENGTHS = (1, 2, 4, 8, 12)
CALC_FUNCTIONS = (
    ("add", "The sum of a and b.", "+"),
    ("sub", "The difference of a and b.", "-"),
    ("mul", "The product of a and b.", "*"),
    ("div", "The quotient of a and b.", "/"),
    ("power", "a raised to the power b.", "**"),
    ("modulo", "The remainder of a divided by b.", "%"),
    ("floor_div", "a divided by b, rounded down.", "//"),
)
"""calc.py's functions: (name, docstring, operator)."""


def calc_file(functions: int = 4, *, hints: bool = True) -> str:
    """A small Python file to copy back with a change (what prompt lookup and other drafts feed on): the
    first `functions` of `CALC_FUNCTIONS`, typed or not. Tune measures on it, and the drafting benches
    and tests on their own sizes of it."""
    signature = "(a: float, b: float) -> float" if hints else "(a, b)"
    return "".join(f'def {name}{signature}:\n    """{doc}"""\n    return a {op} b\n\n\n'
                   for name, doc, op in CALC_FUNCTIONS[:functions])


SOURCE = calc_file()
COPY_PROMPT = (f"Here is calc.py:\n```python\n{SOURCE}```\n"
               "Print calc.py again in full, with the function `add` renamed to `plus`.")
READ = ToolSpec("read_file", "Read a file", {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
    "additionalProperties": False})
EDIT = ToolSpec("edit_file", "Replace text in a file", {
    "type": "object", "properties": {"path": {"type": "string"}, "old_text": {"type": "string"},
                                     "new_text": {"type": "string"}},
    "required": ["path", "old_text", "new_text"], "additionalProperties": False})


@dataclass(frozen=True)
class Effort:
    """How many measurements each step takes (`--quick` halves the work)."""

    rounds: int
    decode_steps: int
    batch_tokens: int
    batch_sizes: tuple[int, ...]
    verify_rounds: int
    generate_tokens: int
    generate_runs: int

    @classmethod
    def pick(cls, quick: bool) -> Effort:
        if quick:
            return cls(rounds=2, decode_steps=4, batch_tokens=128, batch_sizes=(128, 512), verify_rounds=3,
                       generate_tokens=48, generate_runs=1)
        return cls(rounds=3, decode_steps=6, batch_tokens=128, batch_sizes=(128, 256, 512), verify_rounds=5,
                   generate_tokens=64, generate_runs=2)


@dataclass(frozen=True)
class Row:
    """One line of the table `tune` prints: a candidate, what it measured, whether it was chosen."""

    step: str
    option: str
    figure: str
    chosen: bool = False
    note: str = ""


@dataclass
class Calibration:
    settings: TunedSettings
    rows: list[Row] = field(default_factory=list)

    def table(self) -> str:
        """The measurements and choices as aligned text (`*` marks what was chosen)."""
        head = ("step", "option", "measured", "", "note")
        body = [(r.step, r.option, r.figure, "*" if r.chosen else "", r.note) for r in self.rows]
        widths = [max(len(row[i]) for row in (head, *body)) for i in range(4)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True)) + "  " + row[4]
                 for row in (head, *body)]
        return "\n".join(line.rstrip() for line in lines)


def calibrate(model_path: str | Path, *, quick: bool = False,
              progress: Callable[[str], None] | None = None) -> Calibration:
    """Measure `model_path` here and choose its settings (not saved: `tuning.save_tuned` does that).
    Raises QwenRuntimeError when the model cannot be loaded."""
    say = progress or (lambda _text: None)
    effort = Effort.pick(quick)
    path = expand_home(model_path)
    started = time.perf_counter()
    rows: list[Row] = []
    measured: dict[str, Any] = {"load_average_before": _load_average()}
    try:
        budget = cpu_budget()
    except ValueError as exc:  # QWEN_RUNTIME_THREADS set to nonsense
        raise QwenRuntimeError(str(exc)) from None

    say("loading the model (no draft)")
    with _loaded(path, draft=NO_DRAFT) as plain:
        material = _material(plain)
        say("decode threads")
        candidates = _thread_candidates(budget.logical, budget.physical)
        decode = _decode_rates(plain, material, candidates, effort, batch_threads=budget.batch_threads)
        threads = _pick(decode, budget.decode_threads)
        rows += _rows("decode threads", decode, threads, "tok/s", budget.decode_threads)
        say("batch threads")
        batch = _prefill_rates(plain, material, candidates, effort, decode_threads=threads)
        batch_threads = _pick(batch, max(threads, budget.batch_threads))
        rows += _rows("batch threads", batch, batch_threads, "tok/s", max(threads, budget.batch_threads))
        _set_threads(plain, threads, batch_threads)
        say("prefill chunk (n_batch)")
        chunks = _chunk_rates(plain, material, effort)
        n_batch = _pick(chunks, 512)
        rows += _rows("n_batch", chunks, n_batch, "tok/s", 512)
        measured.update(decode_tok_s=_keyed(decode), batch_tok_s=_keyed(batch), prefill_tok_s_by_n_batch=_keyed(chunks))
        say("copy-heavy generation without a draft")
        sources: dict[str, tuple[float, float | None]] = {NO_DRAFT: _generation_rate(plain, effort)}
        kv, kv_rows, kv_figures = _choose_kv(plain, path, material, effort, threads, batch_threads, say)

    placed = {"n_threads": threads, "n_threads_batch": batch_threads, "n_batch": n_batch}
    say("loading the model with prompt lookup")
    with _loaded(path, draft=PROMPT_LOOKUP, **placed) as drafting:
        has_mtp = drafting._native.n_layer_nextn > 0
        recurrent = drafting._native.recurrent  # a sliding window drops a draft's tokens as a plain cache does
        if recurrent:  # a hybrid allocates its rollback snapshots at its first draft: now
            from .runtime import HYBRID_MAX_DRAFT

            drafting.prepare_draft(HYBRID_MAX_DRAFT)
        limit = min(DEFAULT_MAX_DRAFT, drafting.rollback_snapshots) if recurrent else DEFAULT_MAX_DRAFT
        lengths = [k for k in DRAFT_LENGTHS if k <= limit]
        say("verify costs")
        verify_ms = _verify_times(drafting, material, [1, *(k + 1 for k in lengths)], effort)
        one = verify_ms[1]
        costs = {n: ms / one for n, ms in verify_ms.items()}
        for n, ms in verify_ms.items():
            rows.append(Row("verify 1+k tokens", f"k={n - 1}", f"{ms:.1f} ms = {costs[n]:.2f} steps"))
        say("copy-heavy generation with prompt lookup")
        if limit > 0:
            sources[PROMPT_LOOKUP] = _generation_rate(drafting, effort)
    if has_mtp and limit > 0:
        say("loading the model with its MTP head")
        with _loaded(path, draft=MTP, **placed) as mtp:
            sources[MTP] = _generation_rate(mtp, effort)
    draft = _pick({name: rate for name, (rate, _) in sources.items()}, PROMPT_LOOKUP if limit > 0 else NO_DRAFT)
    for name, (rate, accepted) in sources.items():
        note = "" if accepted is None else f"{accepted:.0%} of drafted tokens accepted"
        rows.append(Row("draft source", name, f"{rate:.1f} tok/s", name == draft, note))
    acceptance = sources[draft][1] if draft != NO_DRAFT else None
    max_draft = _draft_length(costs, lengths, acceptance, limit)
    for k in lengths:
        rows.append(Row("max draft", str(k), _expected(costs, k, acceptance), k == max_draft,
                        "expected tokens per unit of verify time" if k == lengths[0] else ""))
    measured.update(verify_ms={str(n): round(ms, 3) for n, ms in verify_ms.items()},
                    draft_tok_s={name: round(rate, 2) for name, (rate, _) in sources.items()},
                    draft_acceptance={name: None if a is None else round(a, 3) for name, (_, a) in sources.items()})

    rows += kv_rows
    measured["kv_cache"] = kv_figures
    seconds = time.perf_counter() - started
    measured["load_average_after"] = _load_average()
    settings = TunedSettings(
        # the chunk measured is what a graph computes at once (n_ubatch); a llama_decode still takes
        # llama-server's 2,048 tokens (fewer calls: at load the call size was most of a prefill gap)
        n_threads=threads, n_threads_batch=batch_threads, n_batch=max(DEFAULT_N_BATCH, n_batch), n_ubatch=n_batch,
        draft=draft,
        max_draft=max_draft, kv_cache_type=kv, verify_costs={n: round(c, 4) for n, c in costs.items()},
        machine=MachineId.here(), model=ModelFile.of(path), tuned_at=time.time(), seconds=round(seconds, 1),
        measured=measured, quick=quick,
    )
    return Calibration(settings, rows)


def busy_warning(settings: TunedSettings) -> str | None:
    """A sentence when other work kept the CPUs busy while measuring (the load average above half the
    CPUs): the figures, the thread counts above all, then describe a busy machine."""
    loads = [v for k in ("load_average_before", "load_average_after")
             if isinstance(v := settings.measured.get(k), int | float)]
    cpus = settings.machine.logical_cpus
    if not loads or max(loads) <= cpus / 2:
        return None
    return (f"the machine was busy while measuring (load average up to {max(loads):.1f} on {cpus} CPUs): the "
            "figures, the thread counts above all, describe it busy; tune again when it is idle")


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # not on this platform
        return None


# ---------------------------------------------------------------- loading


def _open(path: Path, **options: Any) -> LlamaCppRuntime:
    """The model as the runtime loads it, with no tuned settings, projector or checkpoints, and threads that
    stay where the measurement sets them (`_set_threads`)."""
    from .runtime import LlamaCppRuntime

    runtime = LlamaCppRuntime(str(path), n_ctx=N_CTX, tuned=False, mmproj="none", checkpoints=0, **options)
    runtime.threads = None  # the thread counts are what is measured here: nothing may move them meanwhile
    return runtime


@contextmanager
def _loaded(path: Path, **options: Any) -> Iterator[LlamaCppRuntime]:
    runtime = _open(path, **options)
    try:
        yield runtime
    finally:
        runtime.close()


def _material(rt: LlamaCppRuntime) -> list[int]:
    """Real text's tokens (code), repeated to the longest prompt the steps need."""
    base = rt.tokenize(SOURCE) or [0]
    return (base * (1024 // len(base) + 1))[:1024]


def _thread_candidates(logical: int, physical: int) -> list[int]:
    """1..N on small machines; powers of two, the physical cores and all CPUs on big ones."""
    if logical <= 8:
        return list(range(1, logical + 1))
    picks = {1, physical, logical} | {1 << i for i in range(1, logical.bit_length()) if 1 << i <= logical}
    return sorted(picks)


def _set_threads(rt: LlamaCppRuntime, decode: int, batch: int) -> None:
    from .lib import llama_cpp

    llama_cpp.llama_set_n_threads(rt._llm.ctx, decode, batch)


# ---------------------------------------------------------------- the measurements


def _decode_rates(rt: LlamaCppRuntime, material: Sequence[int], threads: Sequence[int], effort: Effort, *,
                  batch_threads: int) -> dict[int, float]:
    """Tokens/s of single-token decoding after a short prompt, per decode thread count. The context
    grows by a few tokens per burst instead of being evaluated again (a few hundred tokens in all: the
    attention's share of a step hardly changes)."""
    steps: dict[int, list[float]] = {t: [] for t in threads}
    _set_threads(rt, threads[-1], batch_threads)
    rt.clear_cache_unlocked()
    rt.eval_tokens(list(material[:64]))
    at = 64
    for _ in range(effort.rounds):
        for t in threads:
            _set_threads(rt, t, batch_threads)
            rt.eval_tokens([material[at % len(material)]])  # warm: the first step after a change pays for it
            for _ in range(effort.decode_steps):
                at += 1
                start = time.perf_counter()
                rt.eval_tokens([material[at % len(material)]])
                steps[t].append(time.perf_counter() - start)
    return {t: 1.0 / statistics.median(times) for t, times in steps.items()}


def _prefill_rates(rt: LlamaCppRuntime, material: Sequence[int], threads: Sequence[int], effort: Effort, *,
                   decode_threads: int) -> dict[int, float]:
    """Tokens/s of evaluating one batch of `effort.batch_tokens`, per batch thread count."""
    chunk = list(material[: effort.batch_tokens])
    times: dict[int, list[float]] = {t: [] for t in threads}
    for _ in range(effort.rounds):
        for t in threads:
            _set_threads(rt, decode_threads, t)
            rt.clear_cache_unlocked()
            start = time.perf_counter()
            rt.eval_tokens(chunk)
            times[t].append(time.perf_counter() - start)
    return {t: len(chunk) / statistics.median(spent) for t, spent in times.items()}


def _chunk_rates(rt: LlamaCppRuntime, material: Sequence[int], effort: Effort) -> dict[int, float]:
    """Tokens/s of one chunk of each `n_batch` candidate from an empty cache (a prompt is a run of them;
    two rounds: prefill is the costliest thing measured)."""
    times: dict[int, list[float]] = {b: [] for b in effort.batch_sizes}
    for _ in range(2):
        for size in effort.batch_sizes:
            rt.clear_cache_unlocked()
            start = time.perf_counter()
            rt.eval_tokens(list(material[:size]))
            times[size].append(time.perf_counter() - start)
    return {b: b / statistics.median(spent) for b, spent in times.items()}


def _verify_times(rt: LlamaCppRuntime, material: Sequence[int], sizes: Sequence[int],
                  effort: Effort) -> dict[int, float]:
    """Milliseconds of one pass over n tokens with a logit row each (a draft being verified), after a
    128-token prompt, rolled back after each pass (cut back, or a hybrid's saved recurrent state)."""
    from .state import copy_state, restore_state

    prompt = list(material[:128])
    rt.clear_cache_unlocked()
    rt.eval_tokens(prompt)
    recurrent = rt._native.recurrent  # a sliding window's cache takes a verify back as a plain one does
    saved = copy_state(rt._llm.ctx, partial=True) if recurrent else None
    if recurrent and saved is None:
        raise QwenRuntimeError(f"cannot measure verify costs on {rt.model_path.name}: its state cannot be saved")

    def back() -> None:
        if not recurrent:
            if not rt.truncate(len(prompt)):
                raise QwenRuntimeError(f"cannot measure verify costs on {rt.model_path.name}: "
                                       "its cache would not drop the verified tokens")
            return
        assert saved is not None
        if not restore_state(rt._llm.ctx, saved, partial_at=len(prompt)):
            raise QwenRuntimeError(f"cannot measure verify costs on {rt.model_path.name}: a state restore failed")
        rt._llm.n_tokens = len(prompt)
        if rt._mtp is not None:
            rt._mtp.after_restore(len(prompt), len(prompt))

    times: dict[int, list[float]] = {n: [] for n in sizes}
    rt.eval_with_rows(list(material[128:130]), 2)  # warm-up
    back()
    for _ in range(effort.verify_rounds):
        for n in sizes:
            tokens = list(material[128 : 128 + n])
            start = time.perf_counter()
            rt.eval_with_rows(tokens, n)
            times[n].append(time.perf_counter() - start)
            back()
    return {n: 1000 * statistics.median(spent) for n, spent in times.items()}


def _generation_rate(rt: LlamaCppRuntime, effort: Effort) -> tuple[float, float | None]:
    """Tokens/s of a greedy copy-heavy reply (the best of the runs) and the share of drafted tokens accepted."""
    request = ChatRequest((UserMessage(COPY_PROMPT),), enable_thinking=False,
                          sampling=Sampling(temperature=0, max_tokens=effort.generate_tokens))
    best, acceptance = 0.0, None
    rt.clear_cache()  # later runs keep the prompt (its time is not counted) and generate the same reply again
    for _ in range(effort.generate_runs):
        done = Completion()
        for event in rt.stream(request):
            done.add(event)
        usage = done.usage
        if usage.completion_tokens == 0 or usage.generation_ms <= 0:
            why = done.finish_detail or "no tokens"
            raise QwenRuntimeError(f"{rt.model_path.name} generated nothing to time ({why})")
        best = max(best, usage.completion_tokens / (usage.generation_ms / 1000))
        if usage.drafted_tokens:
            acceptance = usage.accepted_draft_tokens / usage.drafted_tokens
    return best, acceptance


def _tool_call_tokens(rt: LlamaCppRuntime) -> list[int]:
    """The tokens of a short greedy, constrained tool call (what a quantized cache must not change)."""
    request = ChatRequest((UserMessage("Read src/calc.py, then rename `add` to `plus` in it."),), tools=(READ, EDIT),
                          tool_choice="required", sampling=Sampling(temperature=0, max_tokens=40),
                          enable_thinking=False)
    rt.clear_cache()
    for _event in rt.stream(request):
        pass
    llm = rt._llm
    return [int(t) for t in llm.input_ids[: llm.n_tokens]]


def _choose_kv(plain: LlamaCppRuntime, path: Path, material: Sequence[int], effort: Effort, threads: int, batch: int,
               say: Callable[[str], None]) -> tuple[str, list[Row], dict[str, Any]]:
    """q8_0 when the tool call is the same token for token as with `plain`'s f16 cache and neither decoding
    nor prefill is slower; both models are loaded at once and measured in alternate rounds."""
    say("tool call with an f16 KV cache")
    f16_tokens = _tool_call_tokens(plain)
    say("loading the model with a q8_0 KV cache")
    try:
        quantized = _open(path, draft=NO_DRAFT, kv_cache_type="q8_0", n_threads=threads, n_threads_batch=batch)
    except QwenRuntimeError as exc:
        text = str(exc)  # "llama.cpp cannot load PATH: Failed to create llama_context (llama.cpp's reason)"
        reason = text[text.rfind(" (") + 2 : -1] if text.endswith(")") and " (" in text else text
        return "f16", [Row("KV cache", "f16", "", True),
                       Row("KV cache", "q8_0", "unavailable", False, f"llama.cpp refused it: {reason}")], \
            {"q8_0": {"unavailable": str(exc)}}
    once = dataclasses.replace(effort, rounds=1)
    speeds: dict[str, tuple[list[float], list[float]]] = {"f16": ([], []), "q8_0": ([], [])}
    try:
        say("tool call with a q8_0 KV cache")
        same = _tool_call_tokens(quantized) == f16_tokens
        say("f16 against q8_0, alternate rounds")
        _set_threads(plain, threads, batch)
        for _ in range(effort.rounds):
            for name, rt in (("f16", plain), ("q8_0", quantized)):
                speeds[name][0].append(_decode_rates(rt, material, [threads], once, batch_threads=batch)[threads])
                speeds[name][1].append(_prefill_rates(rt, material, [batch], once, decode_threads=threads)[batch])
    finally:
        quantized.close()
    f16, q8 = ((statistics.median(d), statistics.median(b)) for d, b in speeds.values())
    fast = all(q >= f * (1 - MARGIN) for q, f in zip(q8, f16, strict=True))
    chosen = "q8_0" if same and fast else "f16"
    figures = {"f16": {"decode_tok_s": round(f16[0], 2), "prefill_tok_s": round(f16[1], 2)},
               "q8_0": {"decode_tok_s": round(q8[0], 2), "prefill_tok_s": round(q8[1], 2), "same_tool_call": same}}
    note = ("the tool call differs from f16's: kept f16" if not same else
            "slower than f16: kept f16" if not fast else "same tool call tokens as f16; half the KV memory")
    return chosen, [
        Row("KV cache", "f16", f"{f16[0]:.1f} tok/s decode, {f16[1]:.0f} tok/s prefill", chosen == "f16"),
        Row("KV cache", "q8_0", f"{q8[0]:.1f} tok/s decode, {q8[1]:.0f} tok/s prefill", chosen == "q8_0", note),
    ], figures


# ---------------------------------------------------------------- choosing


def _pick(rates: dict[Any, float], default: Any) -> Any:
    """The fastest candidate, unless the default is within MARGIN of it (then the default)."""
    best = max(rates, key=lambda k: rates[k])
    if default in rates and rates[default] >= rates[best] * (1 - MARGIN):
        return default
    return best


def _rows(step: str, rates: dict[int, float], chosen: int, unit: str, default: int) -> list[Row]:
    return [Row(step, str(k), f"{v:.1f} {unit}", k == chosen, "default" if k == default else "")
            for k, v in sorted(rates.items())]


def _keyed(rates: dict[int, float]) -> dict[str, float]:
    return {str(k): round(v, 2) for k, v in sorted(rates.items())}


def _expected_tokens(k: int, acceptance: float) -> float:
    """Tokens one verify pass yields with a draft of k, each accepted with probability `acceptance`
    (the first miss ends it; the pass always yields one token of its own): the runtime's own formula
    (`draft_control.expected_tokens`) with one rate, all the calibration measures."""
    from ...speed.draft_control import expected_tokens

    return expected_tokens(k, acceptance, acceptance)


def _expected(costs: dict[int, float], k: int, acceptance: float | None) -> str:
    if acceptance is None or k + 1 not in costs:
        return f"{costs.get(k + 1, float('nan')):.2f} steps"
    return f"{_expected_tokens(k, acceptance) / costs[k + 1]:.2f} tokens per step"


def _draft_length(costs: dict[int, float], lengths: Sequence[int], acceptance: float | None, limit: int) -> int:
    """The k with the most expected tokens per unit of verify time; the default when nothing was drafted."""
    if acceptance is None or not lengths:
        return max(1, min(DEFAULT_MAX_DRAFT, limit or DEFAULT_MAX_DRAFT))
    return max(lengths, key=lambda k: _expected_tokens(k, acceptance) / costs[k + 1])


__all__ = ["Calibration", "Effort", "Row", "busy_warning", "calibrate"]
