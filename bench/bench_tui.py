"""TUI benchmark: time to first paint, resuming a 2,000-message session, typing latency with it.

Runs in-process with Textual's Pilot on the scripted model (no real model, no terminal):
    .venv/bin/python bench/bench_tui.py            # writes bench/results/tui.md
First paint is measured in fresh processes (imports included), the median of FIRST_PAINT_RUNS.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual import events

SCROLLBACK = 2000
KEYS = 60
FIRST_PAINT_RUNS = 5
FIRST_PAINT_TARGET_MS = 500.0
RESUME_TARGET_MS = 2000.0


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


def first_paint_in_fresh_processes() -> tuple[list[float], list[float]]:
    painted, ready = [], []
    for _ in range(FIRST_PAINT_RUNS):
        out = subprocess.run([sys.executable, __file__, "--first-paint"], capture_output=True, text=True,
                             check=True)
        p, r = json.loads(out.stdout.strip().splitlines()[-1])
        painted.append(p)
        ready.append(r)
    return painted, ready


def saved_session(work: Path, config: Path) -> str:
    """A saved session of SCROLLBACK messages: questions, Markdown answers, a tool call every tenth turn."""
    from qwen_runtime.types import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
    from sigit.sessions import Session, SessionStore

    messages: list[Message] = []
    i = 0
    while len(messages) < SCROLLBACK:
        messages.append(UserMessage(f"question {i}: how does module {i} work? ünïcødé ✓"))
        if i % 10 == 0:
            call = ToolCall(f"call-{i}", "read_file", {"path": f"src/module_{i}.py"})
            messages.append(AssistantMessage("", tool_calls=(call,)))
            messages.append(ToolMessage(f"call-{i}", f"def thing_{i}():\n    return {i}\n"))
        messages.append(AssistantMessage(
            f"Module **{i}** does `thing_{i}()`:\n\n- step one\n- step two\n\n```python\nthing_{i}()\n```"))
        i += 1
    session = Session.create(work, "scripted")
    session.messages = messages[:SCROLLBACK]
    SessionStore(config / "sessions").save(session)
    return session.id


async def resumed_session(work: Path) -> tuple[float, float, list[float]]:
    """Milliseconds to show a resumed SCROLLBACK-message session, to load earlier messages once, and
    the typing latencies with it open."""
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.frontends.tui.app import create_app
    from sigit.frontends.tui.chat import NoticeLine

    config = work / "config"
    sid = saved_session(work, config)
    app = create_app(work, runtime=ScriptedRuntime([]), config_dir=config, resume=sid)
    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        while not any("Resumed session" in str(n.render()) for n in app.query(NoticeLine)):
            await pilot.pause(0.005)
        await pilot.pause()
        shown = (time.perf_counter() - started) * 1000
        t = time.perf_counter()
        await app.chat.load_earlier()
        await pilot.pause()
        earlier = (time.perf_counter() - t) * 1000
        latencies = []
        prompt = app.prompt_input
        prompt.focus()
        for i in range(KEYS):
            key = "abcdefghij"[i % 10]
            before = prompt.text
            t = time.perf_counter()
            app.post_message(events.Key(key, key))
            while prompt.text == before:
                await asyncio.sleep(0)
            await asyncio.sleep(0)  # let the input's refresh run
            latencies.append((time.perf_counter() - t) * 1000)
        assert prompt.text.startswith("abc")
    return shown, earlier, latencies


def main() -> int:
    if sys.argv[1:] == ["--first-paint"]:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["SIGIT_CONFIG_DIR"] = str(Path(tmp) / "config")
            print(json.dumps(asyncio.run(first_paint(Path(tmp)))))
        return 0
    painted, ready = first_paint_in_fresh_processes()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["SIGIT_CONFIG_DIR"] = str(work / "config")
        shown, earlier, latencies = asyncio.run(resumed_session(work))
    paint = statistics.median(painted)
    p50 = statistics.median(latencies)
    p95 = sorted(latencies)[int(len(latencies) * 0.95) - 1]

    runs = ", ".join(f"{p:.0f}" for p in painted)
    ready_ms = statistics.median(ready)

    def verdict(value: float, target: float) -> str:
        return f"{'meets' if value <= target else 'misses'} the {target:.0f} ms target"

    from sigit.frontends.tui.chat import REPLAY_WINDOW

    report = f"""# TUI benchmark

Measured with `bench/bench_tui.py` (Textual Pilot, in-process, scripted model, 120x40), Python
{sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} when written.

| measure | value |
|---|---|
| first paint (fresh process: imports, app, first frame), median of {FIRST_PAINT_RUNS} | \
{paint:.0f} ms ({verdict(paint, FIRST_PAINT_TARGET_MS)}; runs: {runs}) |
| session ready (scripted model opened), median | {ready_ms:.0f} ms |
| resumed {SCROLLBACK}-message session shown (open + replay + paint) | \
{shown:.0f} ms ({verdict(shown, RESUME_TARGET_MS)}) |
| "load earlier" ({REPLAY_WINDOW} more items) | {earlier:.0f} ms |
| typing latency with that session open, p50 | {p50:.1f} ms |
| typing latency, p95 | {p95:.1f} ms |
| typing latency, max | {max(latencies):.1f} ms |

Before this round (same machine): first paint 1047 ms; mounting a 2,000-message scrollback as full
Markdown widgets took 48.5 s. Now a resumed conversation mounts only its last {REPLAY_WINDOW} items (past replies are
one `Static` each with a Rich Markdown renderable; only the reply being streamed is a Markdown widget),
and a "load earlier" button at the top mounts {REPLAY_WINDOW} more per press.

Typing latency is the time from posting a key event to the app until the input holds the new
character (Pilot's own `press` waits for every widget's queue to drain, which measures Pilot, not
the app). The first-paint figure includes importing Python's asyncio, Textual and the TUI in a
fresh process; importing `textual.app` alone is most of it (see `python -X importtime`). Figures on a
shared 2-CPU machine vary by about ±30% with its load.
"""
    out = Path(__file__).parent / "results" / "tui.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
