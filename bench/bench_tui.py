"""TUI benchmark: time to first paint, and typing latency with a 2,000-message scrollback.

Runs in-process with Textual's Pilot on the scripted model (no real model, no terminal):
    .venv/bin/python bench/bench_tui.py            # writes bench/results/tui.md
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from textual import events

SCROLLBACK = 2000
KEYS = 60
FIRST_PAINT_TARGET_MS = 500.0


async def first_paint(work: Path) -> tuple[float, float]:
    """Milliseconds from creating the app (imports included) to the first frame, and to a ready session."""
    started = time.perf_counter()
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.frontends.tui.app import create_app

    app = create_app(work, runtime=ScriptedRuntime([]), config_dir=work / "config")
    async with app.run_test(size=(120, 40)) as pilot:
        painted = (time.perf_counter() - started) * 1000
        while app.agent_session is None:
            await pilot.pause(0.005)
        ready = (time.perf_counter() - started) * 1000
    return painted, ready


async def typing_latency(work: Path) -> tuple[list[float], float]:
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.frontends.tui.app import create_app
    from sigit.frontends.tui.chat import AssistantMessage, UserMessage

    app = create_app(work, runtime=ScriptedRuntime([]), config_dir=work / "config")
    async with app.run_test(size=(120, 40)) as pilot:
        while app.agent_session is None:
            await pilot.pause(0.005)
        t0 = time.perf_counter()
        widgets = []
        for i in range(SCROLLBACK // 2):
            widgets.append(UserMessage(f"question {i}: how does module {i} work? ünïcødé ✓"))
            widgets.append(AssistantMessage(f"Module **{i}** does `thing_{i}()`:\n\n- step one\n- step two"))
        await app.chat.mount_all(widgets)
        await pilot.pause()
        fill_s = time.perf_counter() - t0
        latencies = []
        prompt = app.prompt_input
        for i in range(KEYS):
            key = "abcdefghij"[i % 10]
            before = prompt.text
            t = time.perf_counter()
            app.post_message(events.Key(key, key))
            while prompt.text == before:
                await asyncio.sleep(0)
            await asyncio.sleep(0)  # let the input's refresh run
            latencies.append((time.perf_counter() - t) * 1000)
        assert app.prompt_input.text.startswith("abc")
    return latencies, fill_s


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["SIGIT_CONFIG_DIR"] = str(work / "config")
        painted, ready = asyncio.run(first_paint(work))
        latencies, fill_s = asyncio.run(typing_latency(work))
    p50 = statistics.median(latencies)
    p95 = sorted(latencies)[int(len(latencies) * 0.95) - 1]
    verdict = "meets" if painted <= FIRST_PAINT_TARGET_MS else "misses"
    report = f"""# TUI benchmark

Measured with `bench/bench_tui.py` (Textual Pilot, in-process, scripted model, 120x40), Python
{sys.version.split()[0]}, {os.cpu_count()} CPUs.

| measure | value |
|---|---|
| first paint (imports + app + first frame) | {painted:.0f} ms ({verdict} the {FIRST_PAINT_TARGET_MS:.0f} ms target) |
| session ready (scripted model opened) | {ready:.0f} ms |
| mounting a {SCROLLBACK}-message scrollback | {fill_s:.1f} s |
| typing latency with that scrollback, p50 | {p50:.1f} ms |
| typing latency, p95 | {p95:.1f} ms |
| typing latency, max | {max(latencies):.1f} ms |

Typing latency is the time from posting a key event to the app until the input holds the new
character (Pilot's own `press` waits for every widget's queue to drain, which measures Pilot, not
the app: about 1 s per key at this size). Mounting a long scrollback is the slow part: each reply is a
Markdown widget with its own block widgets. The first paint figure includes importing Textual and sigit in a
fresh process.
"""
    out = Path(__file__).parent / "results" / "tui.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
