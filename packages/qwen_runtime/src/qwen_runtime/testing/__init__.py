"""Test helpers that run for real: a scripted OpenAI-compatible HTTP server on 127.0.0.1, and the
GGUF builders that write tiny Qwen 3 / Qwen 3.5 / MoE / vision test models (`testmodel*`) and
real-size benchmark shapes (`benchmodel`) offline, read by real llama.cpp.

`ScriptedServer` is imported on first use, so `python -m qwen_runtime.testing.server` does not find
its own module already imported (runpy warns about that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import ScriptedServer

__all__ = ["ScriptedServer"]


def __getattr__(name: str) -> Any:
    if name == "ScriptedServer":
        from .server import ScriptedServer

        return ScriptedServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
