"""`load_runtime` with a keep-alive time: a local GGUF goes to its model host, anything else (a server,
a script, transformers, keep-alive 0) loads as `models.naming.load_runtime` loads it."""

from __future__ import annotations

from typing import Any

from ..models.naming import gguf_options, parse_runtime_name, resolve_gguf, resolve_mmproj
from ..models.naming import load_runtime as load_here
from ..models.registry import get_model
from ..runtime import Runtime
from .client import open_hosted

GGUF_KINDS = ("gguf", "registry", "hf")


def load_runtime(name: str, **options: Any) -> Runtime:
    """The runtime `name` names, as `models.naming.load_runtime` loads it; `keep_alive` (seconds, 0 by
    default) serves a local GGUF from a model host kept loaded that long after its last use, shared by
    every process that loads the same file the same way. The file (a registry model's download
    included, with its progress) is resolved here; `host_notice` is told, in one line, when no host
    can serve it and the model loads in this process."""
    keep_alive = float(options.pop("keep_alive", 0) or 0)
    notice = options.pop("host_notice", None)
    spec = parse_runtime_name(name)
    if keep_alive <= 0 or spec.kind not in GGUF_KINDS:
        return load_here(name, **options)
    progress = options.pop("progress", True)
    if not callable(progress):
        progress = bool(progress)
    vision = options.pop("vision", None)
    path = resolve_gguf(spec, progress=progress)
    if options.get("mmproj") is None:
        options["mmproj"] = resolve_mmproj(spec, vision, progress=progress)
    runtime = open_hosted(path, gguf_options(options), keep_alive, model=name, notice=notice)
    if spec.kind == "registry":  # as naming.load_runtime says it of a model loaded here
        runtime.supports_tools = get_model(str(spec.key)).tool_capable
    return runtime
