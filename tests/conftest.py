"""Session-wide fixtures: the tiny Qwen 3-shaped test model, built once per test run into a tmp dir;
and the check that every scripted model a test builds used up its whole script."""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.testing.testmodel import write_test_gguf, write_test_hf

# One llama.cpp thread per model, in this process and every `sigit` it starts: xdist runs more workers
# than cores, and two threads meeting at a barrier after every operation on a busy machine spend most
# of their time waiting for each other (a tiny model decoded 6x slower on two threads than on one).
os.environ.setdefault("QWEN_RUNTIME_THREADS", "1")

# No model host unless a test asks for one (tests/qwen_runtime/host): every `sigit` and session a test
# starts loads its model in its own process, as before keep-alive, and no host outlives the suite.
os.environ["SIGIT_KEEP_ALIVE"] = "0"

# Hypothesis without its explain phase: on Python 3.11 it re-runs a failing example under sys.settrace,
# and an example that runs real inference then took past the 300 s timeout, hiding the failure it had found.
# No clock either: its deadline and its "input generation is slow" health check time the machine, not the
# code; a clean-clone run with a second suite beside it failed the history round trip on the health check
# (4 inputs in 1.34 s). Tests that list their own health checks to suppress add too_slow there too.
settings.register_profile("suite", phases=[p for p in Phase if p is not Phase.explain], deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


HEAVY_GROUPS = {
    "torch": ("tiny_hf_dir", "tiny_hybrid_hf_dir", "transformers"),
    "gemma": ("gemma",),
    "mcp-client": ("tests/sigit/extensions/test_mcp_client.py::",),
    "mcp-http": ("tests/sigit/mcp_server/test_mcp_http.py::",),
}
"""Groups of tests xdist keeps on one worker (`make test` runs `--dist loadgroup`): a worker that imports
torch and transformers pays ~7 s of CPU, one that loads Gemma 3's 262k vocabulary ~4 s; once is enough.
A module whose module-scoped fixture starts servers is one group too: `loadgroup` hands ungrouped tests
out one by one, so each of the three workers started its own (test_mcp_client's five MCP servers, ~3 s
of CPU a worker; test_mcp_http's `sigit mcp`, ~1 s)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """A worker's imports and its 3,000-odd collected tests are frozen out of the collector (as sigit's own
    start is, sigit.startup_gc), and young objects are collected every 7,000 allocations instead of
    CPython's 700: the tests build and drop Textual apps, agents and sessions by the thousand, and the
    young collections took ~8% of the TUI tests' CPU (interleaved runs of tests/sigit/tui, 2 cores).
    Only when collection runs changes; what is garbage is collected all the same."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(7000, 10, 10)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks into the node ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ())) | {item.nodeid}
        for group, needles in HEAVY_GROUPS.items():
            if any(needle in name for needle in needles for name in names):
                item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ~0.5 MB random-weight GGUF with Qwen 3's architecture, tokens and chat template."""
    return write_test_gguf(tmp_path_factory.mktemp("tiny-gguf") / "tiny-qwen3.gguf")


@pytest.fixture(scope="session")
def tiny_swa_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with Gemma 3's layers: a 16-token sliding attention window on its first layer."""
    return write_test_gguf(tmp_path_factory.mktemp("tiny-swa") / "tiny-gemma3.gguf", arch="gemma3")


@pytest.fixture(scope="session")
def tiny_hybrid_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with Qwen 3.5's hybrid architecture (Gated DeltaNet + attention), ~0.8 MB."""
    return write_test_gguf(tmp_path_factory.mktemp("tiny-hybrid") / "tiny-qwen35.gguf", arch="qwen35")


@pytest.fixture(scope="session")
def tiny_vision_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny hybrid with its random vision projector beside it (`mmproj-tiny-qwen35.gguf`): it can see."""
    from qwen_runtime.testing.testmodel_qwen35 import SHAPE
    from qwen_runtime.testing.testmodel_vision import mmproj_path_for, write_test_mmproj

    model = write_test_gguf(tmp_path_factory.mktemp("tiny-vision") / "tiny-qwen35.gguf", arch="qwen35")
    write_test_mmproj(mmproj_path_for(model), out_dim=SHAPE.n_embd)
    return model


@pytest.fixture(scope="session")
def make_png(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """`make_png(width, height, seed=0)`: a PNG of random pixels (same arguments, same file)."""
    import numpy as np
    from PIL import Image

    folder = tmp_path_factory.mktemp("images")

    def make(width: int, height: int, seed: int = 0) -> Path:
        path = folder / f"random-{width}x{height}-{seed}.png"
        if not path.exists():
            pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(path)
        return path

    return make


@pytest.fixture(scope="session")
def tiny_hf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tiny model as a transformers folder (importing torch makes this the slow one)."""
    return write_test_hf(tmp_path_factory.mktemp("tiny-hf"))


@pytest.fixture(scope="session")
def tiny_hybrid_hf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny hybrid model as a transformers `qwen3_5` folder (same weights as `tiny_hybrid_gguf`)."""
    return write_test_hf(tmp_path_factory.mktemp("tiny-hybrid-hf"), arch="qwen35")


@pytest.fixture(autouse=True)
def scripts_fully_used(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A scripted turn nobody asked for means the agent stopped earlier than the test thinks.

    Every ScriptedRuntime built during a test is checked at teardown. A test that means to leave turns
    unused (a cancelled turn, a refused prompt) says so with `@pytest.mark.script_may_remain`.
    """
    built: list[ScriptedRuntime] = []
    original = ScriptedRuntime.__init__

    @functools.wraps(original)  # keeps the signature: load_runtime reads it to pick options
    def record(self: ScriptedRuntime, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(ScriptedRuntime, "__init__", record)
    yield
    if request.node.get_closest_marker("script_may_remain") is None:
        for runtime in built:
            runtime.assert_consumed()


@pytest.fixture(autouse=True, scope="session")
def private_sigit_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """sigit's prompt cache (and any other cache) in a tmp dir, for this process and the `sigit` it starts:
    no test reads or fills the user's ~/.cache."""
    import os

    old = os.environ.get("SIGIT_CACHE_DIR")
    os.environ["SIGIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("sigit-cache"))
    yield
    if old is None:
        os.environ.pop("SIGIT_CACHE_DIR", None)
    else:
        os.environ["SIGIT_CACHE_DIR"] = old


@pytest.fixture(autouse=True, scope="session")
def private_tuning_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`qwen-runtime tune`'s records in a tmp dir, for this process and every subprocess: no test takes the
    user's tuned settings for a model (the bench models and Gemma live in the user's cache)."""
    old = os.environ.get("QWEN_RUNTIME_TUNING_DIR")
    os.environ["QWEN_RUNTIME_TUNING_DIR"] = str(tmp_path_factory.mktemp("tuning"))
    yield
    if old is None:
        os.environ.pop("QWEN_RUNTIME_TUNING_DIR", None)
    else:
        os.environ["QWEN_RUNTIME_TUNING_DIR"] = old


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty hub cache of our own (no model cached: a first run), online, with no token from the real
    user; HF_ENDPOINT is the test's to point at a fake hub."""
    cache = tmp_path / "hub-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return cache
