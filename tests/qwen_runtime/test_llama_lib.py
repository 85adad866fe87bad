"""llama.cpp's OpenMP threads are loaded with a bounded spin (llama_lib): what libgomp itself then reports,
in a fresh process that loads a model, and what a command started afterwards inherits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.lib import SPIN_COUNT, spin_setting

# Loads a model the way every entry point does (through qwen_runtime), then asks the libgomp that
# llama.cpp's threads run on for its settings (omp_display_env prints them to stderr) and starts a
# command the way the agent's shell tool would.
PROBE = """
import ctypes, json, os, subprocess, sys
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
rt = LlamaCppRuntime(sys.argv[1], n_ctx=256)
rt.close()
gomp = [line.split()[-1] for line in open("/proc/self/maps") if "libgomp" in line]
if gomp:
    sys.stderr.flush()
    ctypes.CDLL(gomp[0]).omp_display_env(1)
child = subprocess.run(["sh", "-c", 'echo "${GOMP_SPINCOUNT-unset}"'], capture_output=True, text=True).stdout
print(json.dumps({"gomp": bool(gomp), "environ": os.environ.get("GOMP_SPINCOUNT"), "child": child.strip()}))
"""


def probe(model: Path, **env: str) -> tuple[dict[str, object], dict[str, str]]:
    """What the probe saw, and libgomp's displayed settings (name -> value)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")} | env
    done = subprocess.run([sys.executable, "-c", PROBE, str(model)], capture_output=True, text=True,
                          env=environ, timeout=120, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    settings = {}
    for line in done.stderr.splitlines():
        name, sep, value = line.strip().partition(" = ")
        if sep and name.isupper():
            settings[name] = value.strip("'")
    # the llama-cpp-python uv.lock pins runs on GNU OpenMP: a build that does not (a wheel on LLVM's
    # OpenMP, or none) makes the bound do nothing, and README's busy-machine figures with it
    assert seen["gomp"], "llama.cpp no longer loads libgomp: llama_lib's spin bound does not apply to it"
    return seen, settings


@pytest.mark.slow
def test_llama_cpp_threads_spin_briefly_and_commands_started_later_do_not_inherit_the_setting(
        tiny_gguf: Path) -> None:
    seen, settings = probe(tiny_gguf)
    assert settings["GOMP_SPINCOUNT"] == str(SPIN_COUNT)  # libgomp's own default would be 300000
    assert seen["environ"] is None and seen["child"] == "unset"


@pytest.mark.slow
@pytest.mark.parametrize(("name", "value", "spin"), [("GOMP_SPINCOUNT", "5000", "5000"),
                                                      ("OMP_WAIT_POLICY", "ACTIVE", None)])
def test_a_users_own_openmp_setting_stands(tiny_gguf: Path, name: str, value: str, spin: str | None) -> None:
    seen, settings = probe(tiny_gguf, **{name: value})
    assert settings[name] == value
    if spin is None:  # an active wait spins (almost) for ever: not bounded by us
        assert int(settings["GOMP_SPINCOUNT"]) > SPIN_COUNT
    assert seen["child"] == (value if name == "GOMP_SPINCOUNT" else "unset")


def test_nothing_is_set_once_llama_cpp_was_loaded_by_someone_else() -> None:
    """Its libgomp read the environment already: setting it now would only leak into child processes."""
    assert spin_setting({}, already_loaded=False) == str(SPIN_COUNT)
    assert spin_setting({}, already_loaded=True) is None
    assert spin_setting({"OMP_WAIT_POLICY": "PASSIVE"}, already_loaded=False) is None
