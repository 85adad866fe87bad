"""A first run as a new user makes it, `sigit -p` (`sigit.cli.main` in this process): no model cached, a
local fake hub. Where llama.cpp's C log lines go is a matter of the process's file descriptors, so that
one test runs a real `sigit` subprocess.

Nothing multi-gigabyte is downloaded unless the user says so (`--download`, `download = "auto"`), and
the refusal names the command that downloads it; llama.cpp's own log lines stay off the terminal.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from qwen_runtime.models.registry import get_model
from qwen_runtime.testing.fake_hub import FakeHub, serve_fake_hub
from sigit.config.settings import default_model

from ..in_process import run_sigit_main

SIGIT = str(Path(sys.executable).parent / "sigit")
DEFAULT = get_model(default_model())  # what a user with no settings gets


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with serve_fake_hub() as served:
        yield served


@pytest.fixture
def home(tmp_path: Path) -> dict[str, Path]:
    paths = {name: tmp_path / name for name in ("work", "config", "state", "hub-cache")}
    paths["work"].mkdir()
    return paths


def environment(home: dict[str, Path], endpoint: str) -> dict[str, str | None]:
    """A new user's: no settings, no token, online, the hub at `endpoint` (None: unset)."""
    env: dict[str, str | None] = {
        "SIGIT_CONFIG_DIR": str(home["config"]), "SIGIT_STATE_DIR": str(home["state"]),
        "HF_HUB_CACHE": str(home["hub-cache"]), "HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1"}
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN", "SIGIT_PERMISSION_DEFAULT", "SIGIT_LOG"):
        env[name] = None
    return env


def run(args: list[str], home: dict[str, Path], endpoint: str, timeout: float = 15) -> subprocess.CompletedProcess[str]:
    return run_sigit_main(args, cwd=home["work"], env=environment(home, endpoint), timeout=timeout)


def run_process(
    args: list[str], home: dict[str, Path], endpoint: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    """A real `sigit` subprocess, for what only a process shows: what reaches its stderr file descriptor."""
    env = {**os.environ, **environment(home, endpoint), **extra}
    real_env = {name: value for name, value in env.items() if value is not None}
    return subprocess.run([SIGIT, *args], cwd=home["work"], env=real_env, capture_output=True, text=True,
                          timeout=240)


def closed_port() -> int:
    with socket.socket() as sock:  # bound, never listening, closed: nobody answers there
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def assert_refused_with_the_ways_to_download(proc: subprocess.CompletedProcess[str], config: Path) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"`qwen-runtime pull {DEFAULT.key}`" in proc.stderr
    assert "--download" in proc.stderr
    assert 'download = "auto"' in proc.stderr and str(config / "settings.toml") in proc.stderr
    assert DEFAULT.size_display in proc.stderr  # the user sees what they would agree to


def test_no_model_cached_refuses_at_once_without_asking_the_hub(hub: FakeHub, home: dict[str, Path]) -> None:
    hub.add(DEFAULT.repo_id, DEFAULT.filename, b"GGUF not a real model")
    proc = run(["-p", "say hi"], home, hub.url)  # the timeout bounds "at once": no retries, no download
    assert_refused_with_the_ways_to_download(proc, home["config"])
    assert hub.requests == []
    assert not (home["hub-cache"] / f"models--{DEFAULT.repo_id.replace('/', '--')}").exists()


def test_hub_at_a_closed_port_gives_the_same_refusal(home: dict[str, Path]) -> None:
    proc = run(["-p", "say hi", "--output-format", "json"], home, f"http://127.0.0.1:{closed_port()}")
    assert_refused_with_the_ways_to_download(proc, home["config"])
    assert '"is_error": true' in proc.stdout


def test_download_flag_downloads_for_this_run(hub: FakeHub, home: dict[str, Path], tiny_gguf: Path) -> None:
    hub.add(DEFAULT.repo_id, DEFAULT.filename, tiny_gguf.read_bytes())  # the tiny model, under the 8B's name
    proc = run(["-p", "say hi", "--download", "--max-turns", "1", "--quiet"], home, hub.url, timeout=240)
    assert proc.returncode in (0, 1), proc.stderr
    assert "not downloaded yet" not in proc.stderr
    assert ("GET", f"/{DEFAULT.repo_id}/resolve/main/{DEFAULT.filename}") in hub.requests
    cached = list((home["hub-cache"] / f"models--{DEFAULT.repo_id.replace('/', '--')}").glob("snapshots/*/*.gguf"))
    assert [p.read_bytes() for p in cached] == [tiny_gguf.read_bytes()]


def test_download_auto_in_settings_downloads_without_the_flag(
    hub: FakeHub, home: dict[str, Path], tiny_gguf: Path
) -> None:
    hub.add(DEFAULT.repo_id, DEFAULT.filename, tiny_gguf.read_bytes())
    home["config"].mkdir()
    (home["config"] / "settings.toml").write_text('download = "auto"\n')
    proc = run(["-p", "say hi", "--max-turns", "1", "--quiet"], home, hub.url, timeout=240)
    assert "not downloaded yet" not in proc.stderr
    assert ("GET", f"/{DEFAULT.repo_id}/resolve/main/{DEFAULT.filename}") in hub.requests


def test_a_project_file_cannot_turn_downloads_on_in_an_untrusted_folder(hub: FakeHub, home: dict[str, Path]) -> None:
    hub.add(DEFAULT.repo_id, DEFAULT.filename, b"GGUF")
    (home["work"] / ".sigit").mkdir()
    (home["work"] / ".sigit" / "settings.toml").write_text('download = "auto"\n')
    proc = run(["-p", "say hi"], home, hub.url)
    assert_refused_with_the_ways_to_download(proc, home["config"])
    assert "downloads models without asking" in proc.stderr  # the trust line says what was ignored
    assert hub.requests == []


def test_llama_cpp_log_lines_go_to_the_log_file_not_stderr(home: dict[str, Path], tiny_gguf: Path) -> None:
    # each load with a cache folder of its own: with no vocabulary tables saved there yet, no view is built
    # beside the load, whose lines are then all forwarded (the suite's shared cache may hold them)
    first, second = home["work"].parent / "cache-1", home["work"].parent / "cache-2"
    args = ["-p", "say hi", "--model", str(tiny_gguf), "--max-turns", "1"]
    quiet = run_process(args, home, "http://127.0.0.1:9", SIGIT_CACHE_DIR=str(first))
    assert quiet.returncode in (0, 1), quiet.stderr
    assert "llama_" not in quiet.stderr and "ggml" not in quiet.stderr
    assert "llama_" not in quiet.stdout
    log = (home["state"] / "logs" / "sigit.log").read_text()
    assert "qwen_runtime.llama_cpp" in log and "llama_context" in log

    # --verbose mirrors llama.cpp's lines to stderr
    verbose = run_process([*args, "--verbose"], home, "http://127.0.0.1:9", SIGIT_CACHE_DIR=str(second))
    assert verbose.returncode in (0, 1), verbose.stderr
    assert "llama_context" in verbose.stderr
    assert "llama_context" not in verbose.stdout
    # where the first run saved the tables, llguidance's view may be built beside the load (when a core
    # is free at that moment): its lines are dropped in C then, and one line says so instead of silence
    warm = run_process([*args, "--verbose"], home, "http://127.0.0.1:9", SIGIT_CACHE_DIR=str(first))
    assert warm.returncode in (0, 1), warm.stderr
    assert "llama_context" in warm.stderr or "llama.cpp's load lines not logged" in warm.stderr
    assert "llama_context" not in warm.stdout
