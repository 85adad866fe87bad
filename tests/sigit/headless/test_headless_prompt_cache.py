"""The prompt cache as a user meets it: `sigit -p` runs in a row on the tiny GGUF (`sigit.cli.main` in this
process: each run opens its own host and model, so what a run reads it read from disk), and two real
subprocesses at once, racing for the same cache files.

The first run on a cold cache evaluates its whole prompt (system prompt, tools, the question) and says
so as cache creation; the next run restores it from disk and says so as cache reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..in_process import run_sigit_main

pytestmark = pytest.mark.slow

SIGIT = str(Path(sys.executable).parent / "sigit")


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    paths = {"work": tmp_path / "work", "config": tmp_path / "config", "cache": tmp_path / "cache"}
    paths["work"].mkdir()
    paths["config"].mkdir()
    (paths["config"] / "settings.toml").write_text("max_tokens = 16\n")  # short replies: the prompt dominates
    return paths


def command(dirs: dict[str, Path], model: Path, *extra: str) -> tuple[list[str], dict[str, str]]:
    """The arguments of `sigit -p` on `model` (without `sigit`) and the variables it runs with."""
    env = {"SIGIT_CONFIG_DIR": str(dirs["config"]), "SIGIT_CACHE_DIR": str(dirs["cache"]), "HF_HUB_OFFLINE": "1"}
    return ["-p", "say hi", "--model", str(model), "--output-format", "json", "--max-turns", "2", "-q", *extra], env


def run(dirs: dict[str, Path], model: Path) -> dict[str, Any]:
    args, env = command(dirs, model)
    proc = run_sigit_main(args, cwd=dirs["work"], env=env)
    assert proc.returncode == 0, proc.stderr
    return usage_of(proc.stdout)


def sigit_cache(dirs: dict[str, Path], *args: str) -> str:
    """`sigit cache ARGS`' stdout, once it succeeded."""
    proc = run_sigit_main(["cache", *args], env=command(dirs, Path())[1])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def usage_of(stdout: str) -> dict[str, Any]:
    usage: dict[str, Any] = json.loads(stdout.splitlines()[-1])["usage"]
    assert usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"] == usage["input_tokens"]
    return usage


def states(dirs: dict[str, Path]) -> list[Path]:
    return sorted((dirs["cache"] / "prompt-cache").rglob("*.state"))


def test_the_cache_serves_the_next_run_survives_truncation_and_sigit_cache_shows_and_clears_it(
    dirs: dict[str, Path], tiny_gguf: Path
) -> None:
    """One cold run's cache serves the checks that each began with a cold run of their own (two model
    runs fewer, ~4 s of CPU): the warm run, `sigit cache list`, a truncated file ignored and rebuilt,
    `sigit cache` and `sigit cache clear`."""
    cold = run(dirs, tiny_gguf)
    assert cold["cache_read_input_tokens"] <= 0.1 * cold["input_tokens"]
    assert states(dirs)
    warm = run(dirs, tiny_gguf)
    assert warm["cache_read_input_tokens"] >= 0.9 * warm["input_tokens"]
    listed = json.loads(sigit_cache(dirs, "list", "--json"))
    assert {Path(e["path"]) for e in listed} == set(states(dirs))
    assert {e["model"] for e in listed} == {tiny_gguf.name}

    for path in states(dirs):  # a truncated file is ignored, and rebuilt
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    damaged = run(dirs, tiny_gguf)
    assert damaged["cache_read_input_tokens"] <= 0.1 * damaged["input_tokens"]
    warm = run(dirs, tiny_gguf)
    assert warm["cache_read_input_tokens"] >= 0.9 * warm["input_tokens"]

    shown = sigit_cache(dirs)
    assert str(dirs["cache"] / "prompt-cache") in shown
    assert "2 saved states" in shown and "of at most 4 GiB" in shown
    assert "removed 2 saved prompt states" in sigit_cache(dirs, "clear")
    assert states(dirs) == []


def test_prompt_cache_off_in_settings_saves_nothing(dirs: dict[str, Path], tiny_gguf: Path) -> None:
    (dirs["config"] / "settings.toml").write_text("max_tokens = 16\nprompt_cache = false\n")
    run(dirs, tiny_gguf)
    assert states(dirs) == []


def test_two_concurrent_cold_runs_both_succeed_and_leave_one_entry_per_prefix(
    dirs: dict[str, Path], tiny_gguf: Path
) -> None:
    """Two processes: the cache's files are shared between them, not between two sessions of one process."""
    args, env = command(dirs, tiny_gguf)
    procs = [subprocess.Popen([SIGIT, *args], cwd=dirs["work"], env={**os.environ, **env}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        usage_of(out)
    saved = states(dirs)
    assert len(saved) == len({p.name for p in saved}) == 2  # the system prompt + tools, and the question
    assert not list((dirs["cache"] / "prompt-cache").rglob("*.tmp"))
    warm = run(dirs, tiny_gguf)  # and they are whole: the next run restores them
    assert warm["cache_read_input_tokens"] >= 0.9 * warm["input_tokens"]
