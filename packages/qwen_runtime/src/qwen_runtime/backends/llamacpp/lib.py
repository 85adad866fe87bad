"""llama-cpp-python, loaded the one way this package loads it: with GNU OpenMP's idle spin bounded.

llama.cpp's CPU backend, as llama-cpp-python builds it, runs a forward pass on OpenMP threads that meet
at a barrier after each operation, and GNU OpenMP (libgomp) spins 300,000 times at a barrier before it
sleeps. On an idle machine the partner arrives within the spin. On one whose cores are busy (a build or
a test run beside the agent) the spinning thread can hold the core its partner is queued on, so each
barrier costs a scheduler time slice: a one-token step of Gemma 3 270M on 2 busy cores averaged
78-157 ms, with steps of 2.5 s, against 14 ms idle; with 1,000 spins it averaged 32-37 ms (idle: the same
14 ms). The Qwen 3.5 0.8B shape: 63-108 ms -> 57-60 ms a step, a 32-token prompt 0.7-1.4 s -> 0.36 s
(bench/results/busy_machine.md).

libgomp reads `GOMP_SPINCOUNT` once, when it is loaded, which is when llama_cpp is first imported: the
variable is set for that import only, so the commands the agent runs later do not inherit it. A user's
own `GOMP_SPINCOUNT` or `OMP_WAIT_POLICY` stands, and nothing is changed where llama_cpp was imported
before this module (its libgomp has read the environment already). Every module of this package imports
llama_cpp from here (an import-linter contract keeps it so).
"""

from __future__ import annotations

import os
import sys
from typing import Any

SPIN_COUNT = 1000
"""Spins at an OpenMP barrier before the thread sleeps: ~20-50 us, longer than an idle machine's
partner takes to arrive, far shorter than a time slice (libgomp itself uses 100 when a process has more
threads than CPUs, but it cannot see other processes' load)."""

USER_SETTINGS = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")
"""What a user may have chosen instead (then nothing is set)."""


def spin_setting(environ: dict[str, str] | os._Environ[str], already_loaded: bool) -> str | None:
    """The `GOMP_SPINCOUNT` to load llama_cpp with: None where the user chose (either variable) or where
    llama_cpp is loaded already."""
    if already_loaded or any(name in environ for name in USER_SETTINGS):
        return None
    return str(SPIN_COUNT)


bounded_spin = spin_setting(os.environ, "llama_cpp" in sys.modules)
"""The spin count this process's llama.cpp threads were loaded with by this module (None: not set here)."""
if bounded_spin is not None:
    os.environ["GOMP_SPINCOUNT"] = bounded_spin
try:
    import llama_cpp as llama_cpp
    from llama_cpp import _internals as _internals  # loaded with the package: named here for its users
    from llama_cpp import llama as llama
    from llama_cpp import llama_chat_format as llama_chat_format
finally:
    if bounded_spin is not None:
        os.environ.pop("GOMP_SPINCOUNT", None)


def mtmd_cpp() -> Any:
    """llama-cpp-python's multimodal bindings (loads libmtmd: only for a model with a projector)."""
    from llama_cpp import mtmd_cpp as module

    return module


def llama_cpp_ext() -> Any:
    """The bindings this build adds to llama-cpp-python (the MTP context)."""
    from llama_cpp import llama_cpp_ext as module

    return module


__all__ = ["SPIN_COUNT", "bounded_spin", "llama", "llama_chat_format", "llama_cpp", "llama_cpp_ext", "mtmd_cpp",
           "spin_setting"]
