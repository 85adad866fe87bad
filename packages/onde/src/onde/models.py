"""Models by name: the registry a UI lists, and loading a runtime from a name with onde's errors.

A runtime name is a registry key (`qwen3-8b`), a `.gguf` path, `hf:OWNER/REPO/FILE.gguf`,
`transformers:PATH`, `openai:BASE_URL#MODEL` or `scripted:FILE.json`. Backends are imported only
when a runtime is loaded, so importing onde never pulls in llama.cpp or torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qwen_runtime.naming import RuntimeSpec, parse_runtime_name
from qwen_runtime.naming import load_runtime as load_named
from qwen_runtime.registry import REGISTRY, human_size
from qwen_runtime.runtime import Runtime

from .errors import BadModelName, ModelBuild


def load_runtime(name: str, **options: Any) -> Runtime:
    """Load the runtime `name` names (downloading a registry model into the HF cache if needed).

    Options a backend does not take are dropped (`n_ctx` never reaches a server client);
    `progress=False` silences download progress, a callable `(done_bytes, total_bytes)` receives it.
    Raises `BadModelName` (also a `ValueError`) when the name names nothing, `ModelBuild` when the
    model cannot be found, downloaded or loaded; the runtime's error is the `__cause__`.
    """
    _parse(name)
    try:
        return load_named(name, **options)
    except Exception as exc:
        raise ModelBuild(str(exc)) from exc


def is_gguf_model(name: str) -> bool:
    """True when `name` is a GGUF model that llama.cpp runs in this process (a registry key, a
    `.gguf` path, `hf:...`): its context window is whatever `n_ctx` the caller loads it with, so
    the caller should choose one. False for servers, transformers folders and scripted models.
    Raises `BadModelName` for a malformed name."""
    return _parse(name).kind in ("registry", "gguf", "hf")


def _parse(name: str) -> RuntimeSpec:
    try:
        return parse_runtime_name(name)
    except ValueError as exc:
        raise BadModelName(str(exc)) from exc


@dataclass(frozen=True)
class ModelInfo:
    """A model onde knows by name: its registry entry."""

    key: str
    """The name to load it by (`qwen3-8b`)."""
    name: str
    """The name people use ("Qwen 3 8B")."""
    size_bytes: int
    tool_capable: bool
    context_length: int
    """Tokens the model was trained for (its largest useful `n_ctx`)."""
    repo_id: str
    filename: str
    """Where the GGUF lives on the Hugging Face hub."""

    @property
    def size_display(self) -> str:
        return human_size(self.size_bytes)

    def is_cached(self) -> bool:
        """True when the GGUF is in the local Hugging Face cache, so loading it downloads nothing
        (a file lookup; an unreadable cache counts as not cached)."""
        from qwen_runtime.download import cached_path

        try:
            return cached_path(self.repo_id, self.filename) is not None
        except Exception:
            return False


def list_models() -> list[ModelInfo]:
    """The registry's models, in its order (the default first)."""
    return [
        ModelInfo(e.key, e.name, e.size_bytes, e.tool_capable, e.context_length, e.repo_id, e.filename)
        for e in REGISTRY
    ]
