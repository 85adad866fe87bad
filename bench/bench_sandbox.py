"""Sandbox start-up cost: a sandboxed `true` against a plain one, median of 50 each.

Writes bench/results/sandbox.md. Target (issue 13): at most 15 ms more than unsandboxed, in
`workspace-write` with the network off and a git repository in the workspace (the full plan: user,
mount and network namespaces, three bind mounts, Landlock). Also measured, to back the design:
the same confinement applied by a `preexec_fn` instead of the launcher, with and without 1 GiB of
resident memory in the parent (a `preexec_fn` forces fork(), which copies the page tables; the
launcher keeps subprocess on vfork). The last two rows are the path a user takes: `run_command`
through the tool registry, as the agent calls it, with the session's default sandbox and with none.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "sandbox.md"
RUNS = 50
TARGET_MS = 15.0


def medians_ms(starts: dict[str, Callable[[], object]], runs: int = RUNS) -> dict[str, tuple[float, float]]:
    """Median and minimum start time of each, measured round-robin so that load from other
    processes on a shared machine falls on all of them alike (the minimum is the quiet-machine cost)."""
    times: dict[str, list[float]] = {name: [] for name in starts}
    for _ in range(runs):
        for name, start in starts.items():
            began = time.perf_counter()
            start()
            times[name].append(time.perf_counter() - began)
    return {name: (statistics.median(t) * 1000, min(t) * 1000) for name, t in times.items()}


def main() -> int:
    from sigit.sandbox import SandboxPolicy, detect_support, open_sandbox
    from sigit.sandbox import _enforce as enforce

    support = detect_support()
    rows: list[tuple[str, tuple[float, float]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
        env = dict(os.environ)

        def run(argv: list[str], **kw: object) -> None:
            subprocess.run(argv, env=env, cwd=workspace, check=True, **kw)  # type: ignore[call-overload]

        with open_sandbox(SandboxPolicy(workspace=workspace), support) as full, \
                open_sandbox(SandboxPolicy(workspace=workspace, network=True), support) as net_on:
            assert full.active, full.warnings
            wrapped = full.wrap(["true"], env)
            plan = enforce.parse(wrapped.argv[6:])  # [python, -I, -S, -c, BOOT, CODE, PLAN..., --, true]

            def preexec() -> None:
                enforce.apply(plan)

            rows = list(medians_ms({
                "`true`, no sandbox": lambda: run(["true"]),
                "`true`, workspace-write, network off (launcher)": lambda: run(full.wrap(["true"], env).argv),
                "`true`, workspace-write, network on (launcher)": lambda: run(net_on.wrap(["true"], env).argv),
                "`true`, same confinement by preexec_fn (not used)": lambda: run(["true"], preexec_fn=preexec),
            }).items())
            ballast = bytearray(1 << 30)
            ballast[:: 4096] = b"\x01" * len(range(0, 1 << 30, 4096))  # touch every page: really resident
            rows += list(medians_ms({
                "`true`, no sandbox, parent holding 1 GiB": lambda: run(["true"]),
                "`true`, launcher, parent holding 1 GiB": lambda: run(full.wrap(["true"], env).argv),
                "`true`, preexec_fn, parent holding 1 GiB (not used)": lambda: run(["true"], preexec_fn=preexec),
            }).items())
            del ballast
            rows += run_command_rows(workspace)

    (plain, plain_min), (sandboxed, sandboxed_min) = rows[0][1], rows[1][1]
    extra = sandboxed - plain
    lines = [
        "# Sandbox start-up",
        "",
        f"Machine: {os.cpu_count()} cores, Linux {support.kernel}, Landlock ABI {support.landlock_abi}, "
        f"Python {sys.version.split()[0]}. `python bench/bench_sandbox.py`; median of {RUNS} starts each.",
        "",
        "| measure | median ms | min ms |",
        "|---|---|---|",
        *(f"| {name} | {median:.1f} | {least:.1f} |" for name, (median, least) in rows),
        "",
        f"Sandbox cost (workspace-write, network off): **{extra:+.1f} ms** median "
        f"({sandboxed_min - plain_min:+.1f} ms on the minimums; target <= {TARGET_MS:.0f} ms): "
        f"{'met' if extra <= TARGET_MS else 'NOT met'}.",
        "",
        "Where it goes: Python starting with `-I -S` (about 6 ms quiet), importing ctypes (about 2 ms),",
        "the user, mount and network namespaces with three bind mounts (1-2 ms), Landlock (under 1 ms).",
        "A `preexec_fn` would be cheaper on an idle small parent but forces fork() instead of vfork:",
        "with 1 GiB resident (a loaded model) every start then costs tens of ms more, and it runs",
        "Python between fork and exec in a threaded parent.",
    ]
    (tool_plain, _), (tool_sandboxed, _) = rows[-2][1], rows[-1][1]
    lines[-6:-6] = ["", f"Through run_command: **{tool_sandboxed - tool_plain:+.1f} ms** median per command."]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0  # a missed target shows in the table; on a shared machine it is load, not a crash


def run_command_rows(workspace: Path) -> list[tuple[str, tuple[float, float]]]:
    """`true` through run_command (registry and ToolContext, as the agent calls it), sandboxed or not."""
    import asyncio

    from sigit.sandbox import SandboxPolicy, open_sandbox
    from sigit.tools import ToolContext, default_registry

    registry = default_registry()
    loop = asyncio.new_event_loop()
    plain = ToolContext(cwd=workspace, attribution=None)
    sandbox = open_sandbox(SandboxPolicy.from_settings(None, workspace=workspace))
    confined = ToolContext(cwd=workspace, attribution=None, sandbox=sandbox)

    def invoke(ctx: ToolContext) -> None:
        out = loop.run_until_complete(registry.invoke("run_command", {"command": "true"}, ctx))
        assert not out.is_error, out.text

    try:
        return list(medians_ms({
            "run_command `true`, no sandbox": lambda: invoke(plain),
            "run_command `true`, the default sandbox": lambda: invoke(confined),
        }).items())
    finally:
        sandbox.close()
        loop.close()


if __name__ == "__main__":
    sys.exit(main())
