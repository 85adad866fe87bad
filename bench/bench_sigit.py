"""sigit benchmarks: search and glob against ripgrep and find, start-up time, loop overhead per round.

Writes bench/results/sigit.md. Targets (issue 5): search_files <= 2x rg, glob <= 2x find on 50,000
files; `sigit --version` <= 150 ms; per-round loop overhead with the scripted runtime <= 5 ms.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "sigit.md"
VENV_BIN = Path(sys.executable).parent
N_DIRS, FILES_PER_DIR = 500, 100


def make_tree(root: Path) -> None:
    for d in range(N_DIRS):
        folder = root / f"pkg{d:03d}" / "src"
        folder.mkdir(parents=True)
        for f in range(FILES_PER_DIR):
            suffix = ".py" if f % 2 else ".txt"
            needle = "NEEDLE_TOKEN = 1\n" if (d * FILES_PER_DIR + f) % 1000 == 0 else ""
            (folder / f"mod{f:03d}{suffix}").write_text(f"# file {d}/{f}\nvalue = {f}\n{needle}def fn():\n    pass\n")


def best_of(fn: Any, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.app import HostOptions, SessionHost
    from sigit.tools import ToolContext, default_registry

    rows: list[tuple[str, str, str, str]] = []
    rg = shutil.which("rg", path=str(VENV_BIN)) or shutil.which("rg") or "rg"
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        make_tree(tree)
        registry = default_registry()
        ctx = ToolContext(cwd=tree)

        def tool(name: str, **args: Any) -> None:
            out = asyncio.run(registry.invoke(name, args, ctx))
            assert not out.is_error, out.text

        t_search = best_of(lambda: tool("search_files", pattern="NEEDLE_TOKEN", max_results=100))
        t_rg = best_of(lambda: subprocess.run([rg, "-n", "NEEDLE_TOKEN", "."], cwd=tree, capture_output=True))
        rows.append(("search_files vs rg (50,000 files)", f"{t_search * 1000:.0f} ms vs {t_rg * 1000:.0f} ms",
                     f"{t_search / t_rg:.2f}x", "<= 2x"))
        t_glob = best_of(lambda: tool("glob", pattern="**/mod00*.py"))
        t_find = best_of(lambda: subprocess.run(["find", ".", "-name", "mod00*.py"], cwd=tree, capture_output=True))
        rows.append(("glob vs find (50,000 files)", f"{t_glob * 1000:.0f} ms vs {t_find * 1000:.0f} ms",
                     f"{t_glob / t_find:.2f}x", "<= 2x"))

        sigit = str(VENV_BIN / "sigit")
        startup = []
        for _ in range(15):
            start = time.perf_counter()
            subprocess.run([sigit, "--version"], capture_output=True, check=True)
            startup.append(time.perf_counter() - start)
        rows.append(("`sigit --version` start-up (median of 15)", f"{statistics.median(startup) * 1000:.0f} ms",
                     "", "<= 150 ms"))

        rounds = 23
        turns: list[Any] = [
            {"tool_calls": [{"name": "write_todos", "arguments": {"todos": [{"content": f"step {i}"}]}}]}
            for i in range(rounds)
        ] + ["done"]
        os.environ["SIGIT_CONFIG_DIR"] = str(Path(tmp) / "config")

        async def one_turn() -> float:
            host = SessionHost(HostOptions(config_dir=Path(tmp) / "config"),
                               runtime=ScriptedRuntime(list(turns), chunk_size=1 << 20))
            session = await host.open(tree)
            start = time.perf_counter()
            async for _ in session.prompt("go"):
                pass
            elapsed = time.perf_counter() - start
            await session.close()  # ends its sandbox too (its temp dir)
            return elapsed

        per_round = min(asyncio.run(one_turn()) for _ in range(3)) / (rounds + 1)
        rows.append(("agent loop overhead per round (scripted model)", f"{per_round * 1000:.2f} ms", "",
                     "<= 5 ms"))

    lines = ["# sigit benchmarks", "", f"Machine: {os.cpu_count()} cores. `python bench/bench_sigit.py`.", "",
             "| measure | value | ratio | target |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
