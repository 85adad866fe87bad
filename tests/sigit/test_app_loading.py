"""`SessionHost.open` loads the model while it sets the session up, and a failed or given-up open leaves nothing.

The proof of overlap is a gate, not a clock: a session_start hook (part of the setup) waits for a file that
only the model-load path creates, and the load waits until the hook has started. Run one after the other,
either order deadlocks until a deadline and the test fails; run side by side, both finish.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from onde import Runtime, load_runtime
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.app import SessionHost
from sigit.errors import ModelError
from sigit.options import HostOptions

DEADLINE = 60.0
"""How long either side waits for the other before the test calls it sequential (a shared machine is slow)."""


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll `condition` until it holds; fail (from the loading thread) after DEADLINE."""
    end = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > end:
            raise RuntimeError(f"gave up waiting for {what}: the setup and the load did not overlap")
        time.sleep(0.005)


async def until(condition: Callable[[], bool], what: str) -> None:
    """`wait_for` on the event loop."""
    end = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        await asyncio.sleep(0.01)


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def write_hook(config: Path, command: str) -> None:
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(
        f"[[hooks.session_start]]\ncommand = '''{command}'''\ntimeout_secs = {DEADLINE:g}\n"
    )


class GatedLoad:
    """`load_runtime` as `SessionHost` calls it, in the loading thread: it waits for the session_start hook
    to have started, opens the gate the hook waits on, then loads for real (and records what it loaded)."""

    def __init__(self, folder: Path, hold: threading.Event | None = None) -> None:
        self.started, self.gate = folder / "hook-started", folder / "gate"
        self.hold = hold
        self.events: list[str] = []
        self.loaded: list[Runtime] = []
        self.real = load_runtime

    def __call__(self, name: str, **options: Any) -> Runtime:
        self.events.append("load began")
        wait_for(self.started.exists, "the session_start hook to start")
        self.events.append("hook seen running")
        self.gate.touch()
        if self.hold is not None:
            self.hold.wait(DEADLINE)
        runtime = self.real(name, **options)
        self.loaded.append(runtime)
        self.events.append("load finished")
        return runtime


@pytest.fixture
def gated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GatedLoad]:
    load = GatedLoad(tmp_path)
    monkeypatch.setattr("sigit.app.load_runtime", load)  # what SessionHost.runtime calls, in its thread
    yield load


def hook_command(load: GatedLoad, done: Path) -> str:
    return (f"echo $$ > {load.started}.pid; touch {load.started}; "
            f"while [ ! -e {load.gate} ]; do sleep 0.01; done; touch {done}")


async def test_the_model_loads_while_the_session_start_hook_runs(
    workdir: Path, tmp_path: Path, tiny_gguf: Path, gated: GatedLoad
) -> None:
    passed = tmp_path / "hook-passed-the-gate"
    write_hook(tmp_path / "config", hook_command(gated, passed))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", model=str(tiny_gguf)))

    session = await host.open(workdir)

    assert gated.events == ["load began", "hook seen running", "load finished"]
    assert passed.exists()  # the hook got through the gate the load opened: it did not time out
    assert host.loaded_models == [str(tiny_gguf)]
    await session.close()
    assert host.loaded_models == []


async def test_a_load_error_stops_the_setup_and_comes_out_as_before(
    workdir: Path, tmp_path: Path, gated: GatedLoad
) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(64))  # a GGUF by its magic, with a version nobody writes
    never = tmp_path / "never-written"
    write_hook(tmp_path / "config", f"echo $$ > {gated.started}.pid; touch {gated.started}; sleep {DEADLINE:g}; "
                                     f"touch {never}")
    gated.gate = tmp_path / "unused-gate"
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", model=str(broken)))

    with pytest.raises(ModelError, match=r"could not load model .*broken\.gguf.*not a readable GGUF file"):
        await host.open(workdir)

    hook_pid = int(Path(f"{gated.started}.pid").read_text())
    assert not alive(hook_pid)  # the hook, still in its sleep, was killed with the setup
    assert not never.exists()
    assert host.loaded_models == []


async def test_an_open_given_up_while_loading_unloads_the_model_once_loaded(
    workdir: Path, tmp_path: Path, tiny_gguf: Path, gated: GatedLoad
) -> None:
    hold = threading.Event()  # keeps the load going after the hook passed its gate
    gated.hold = hold
    passed = tmp_path / "hook-passed-the-gate"
    write_hook(tmp_path / "config", hook_command(gated, passed))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", model=str(tiny_gguf)))

    opening = asyncio.ensure_future(host.open(workdir))
    await until(passed.exists, "the hook to pass the gate")  # the setup is done; the load is held
    opening.cancel()
    with pytest.raises(asyncio.CancelledError):
        await opening
    hold.set()  # the load finishes in its thread, for nobody

    releasing = [t for t in threading.enumerate() if t.name == f"release {tiny_gguf}"]
    assert releasing, "nothing waits to unload the model the open gave up"
    await asyncio.to_thread(releasing[0].join, DEADLINE)
    assert gated.events[-1] == "load finished"
    assert host.loaded_models == []
    runtime = gated.loaded[0]
    with pytest.raises(Exception, match="closed"):  # freed, and it says so instead of crashing
        runtime.count_tokens("hello")


async def test_a_second_open_keeps_the_model_a_given_up_open_was_loading(
    workdir: Path, tmp_path: Path, tiny_gguf: Path, gated: GatedLoad
) -> None:
    hold = threading.Event()
    gated.hold = hold
    passed = tmp_path / "hook-passed-the-gate"
    write_hook(tmp_path / "config", hook_command(gated, passed))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", model=str(tiny_gguf)))

    first = asyncio.ensure_future(host.open(workdir))
    await until(passed.exists, "the hook to pass the gate")
    first.cancel()
    second = asyncio.ensure_future(host.open(workdir))  # same model: waits for the load in progress
    hold.set()
    session = await second
    with pytest.raises(asyncio.CancelledError):
        await first
    for thread in [t for t in threading.enumerate() if t.name == f"release {tiny_gguf}"]:
        await asyncio.to_thread(thread.join, DEADLINE)

    assert host.loaded_models == [str(tiny_gguf)]
    assert len(gated.loaded) == 1
    assert gated.loaded[0].count_tokens("still here") > 0  # the session's model, not closed under it
    await session.close()
    assert host.loaded_models == []


async def test_a_model_without_tools_gets_none_and_a_prompt_that_offers_none(workdir: Path, tmp_path: Path) -> None:
    """The setup renders the prompt for the tools before the model says it takes none: then it is rendered again."""
    options = HostOptions(config_dir=tmp_path / "config")
    with_tools = await SessionHost(options, runtime=ScriptedRuntime([])).open(workdir)
    without = await SessionHost(options, runtime=ScriptedRuntime([], supports_tools=False)).open(workdir)

    assert "run_command" in with_tools.tools.names() and "# Git" in with_tools.system_prompt
    assert without.tools.names() == [] and "# Git" not in without.system_prompt
    await with_tools.close()
    await without.close()
