"""The llama.cpp backend: llama-cpp-python in-process.

`lib` is the one module that imports `llama_cpp` (it loads llama.cpp's OpenMP with the barrier spin
bounded) and `build` adjusts the loaded library (logging, CPU features); `load` opens a GGUF,
`runtime` is `LlamaCppRuntime`, with `vocab`/`lltokenizer` (the tokenizer llguidance reads), `state`
(hybrid snapshots), `mtp` (multi-token prediction drafts) and `vision` (mtmd projectors) beside it.

Importing this package does not load llama.cpp: `LlamaCppRuntime` and the runtime module's other
names are looked up on first use.
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    # `qwen_runtime.backends.llamacpp` was one module before it became this package: its names stay
    # reachable here without importing llama.cpp for those who only need a sibling (vocab, build).
    if name.startswith("__"):
        raise AttributeError(name)
    runtime = importlib.import_module(f"{__name__}.runtime")
    try:
        return getattr(runtime, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
