"""Models by name: the registry a UI lists, and loading a runtime from a name with onde's errors.

A runtime name is a registry key (`qwen3-8b`), a `.gguf` path, `hf:OWNER/REPO/FILE.gguf`,
`transformers:PATH`, `openai:BASE_URL#MODEL` or `scripted:FILE.json`. Backends are imported only
when a runtime is loaded, so importing onde never pulls in llama.cpp or torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qwen_runtime.home import expand_home
from qwen_runtime.host.loading import load_runtime as load_named
from qwen_runtime.models import registry
from qwen_runtime.models.naming import RuntimeSpec, can_see, parse_runtime_name
from qwen_runtime.models.naming import import_backend as import_named
from qwen_runtime.models.registry import DEFAULT_MODEL, REGISTRY, fits_in_memory, human_size
from qwen_runtime.runtime import Runtime
from qwen_runtime.speed.tuning import TuningStatus, tuning_status

from .config import GgufModelConfig
from .errors import BadModelName, InferenceError, ModelBuild, translate_load_error


def load_runtime(name: str, **options: Any) -> Runtime:
    """Load the runtime `name` names (downloading a registry model into the HF cache if needed).

    Options a backend does not take are dropped (`n_ctx` never reaches a server client);
    `progress=False` silences download progress, a callable `(done_bytes, total_bytes)` receives it.
    `keep_alive=SECONDS` serves a local GGUF from a model host that stays loaded that long after its last
    use, for the next process (`qwen_runtime.host`; 0, the default, loads it here); `host_notice`, a
    callable, is told in one line when no host can serve it and it loads here instead.
    Raises `BadModelName` (also a `ValueError`) when the name names nothing, `ModelBuild` when the
    model cannot be found, downloaded or loaded; the runtime's error is the `__cause__`.
    """
    _parse(name)
    try:
        return load_named(name, **options)
    except Exception as exc:
        raise ModelBuild(str(exc)) from exc


def load_gguf_runtime(config: GgufModelConfig) -> Runtime:
    """A llama.cpp runtime for `config` (downloading a registry model into the HF cache if needed).

    Raises onde's load errors (`ModelBuild` when the file is missing); the runtime's error is the `__cause__`.
    """
    try:
        path: Path = config.resolve_path()
        if not path.is_file():
            raise ModelBuild(f"model file not found: {path}")
        from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime

        runtime = LlamaCppRuntime(
            str(path),
            n_ctx=config.n_ctx,
            n_threads=config.n_threads,
            n_gpu_layers=config.n_gpu_layers,
            prompt_cache_dir=config.prompt_cache_dir,
            prompt_cache_max_bytes=config.prompt_cache_max_bytes,
            **{"draft": config.draft, **config.options},
        )
    except Exception as exc:
        raise translate_load_error(exc) from exc
    return runtime


def import_backend(name: str) -> None:
    """Import what loading `name` needs (llama.cpp's bindings for a GGUF), reading no file: an app that
    loads its model beside other start-up work calls it first, so that `load_runtime` goes straight to
    the model file, native work that leaves the GIL free for the app's own imports. Raises `BadModelName`
    for a malformed name, `ModelBuild` when the backend is not installed."""
    _parse(name)
    try:
        import_named(name)
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
    size_exact: bool = True
    """False where `size_bytes` is an estimate (the file's size was not verified): shown with a `~`."""

    @property
    def size_display(self) -> str:
        return human_size(self.size_bytes) if self.size_exact else "~" + human_size(self.size_bytes)

    def fits(self, memory: int | None) -> bool | None:
        """Whether it runs in `memory` bytes (`machine_memory()`); None when that is unknown. The
        runtime's one rule, which `qwen-runtime models` shows too."""
        return model_fits(self.size_bytes, memory)

    def is_cached(self) -> bool:
        """True when the GGUF is in the local Hugging Face cache, so loading it downloads nothing
        (a file lookup; an unreadable cache counts as not cached)."""
        return self.cached_file() is not None

    def cached_file(self) -> Path | None:
        """The GGUF in the local Hugging Face cache, or None (a file lookup, no network)."""
        return _cached_file(self.repo_id, self.filename)


def _cached_file(repo_id: str, filename: str) -> Path | None:
    from qwen_runtime.models.download import cached_path

    try:
        return cached_path(repo_id, filename)
    except Exception:
        return None


@dataclass(frozen=True)
class ModelDownload:
    """A model that loading would download first: what it is and how big."""

    name: str
    """The name it was asked for by (`qwen3-8b`, `hf:OWNER/REPO/FILE.gguf`)."""
    display_name: str
    repo_id: str
    filename: str
    size_bytes: int | None
    """None when the model is not in the registry (an `hf:` name): the size is not known offline."""
    size_exact: bool = True
    """False where `size_bytes` is the registry's estimate: shown with a `~`."""

    @property
    def size_display(self) -> str:
        if not self.size_bytes:
            return "size unknown"
        return human_size(self.size_bytes) if self.size_exact else "~" + human_size(self.size_bytes)

    @property
    def pull_command(self) -> str:
        """The shell command that downloads it ahead of time."""
        return f"qwen-runtime pull {self.name}"


def download_needed(name: str) -> ModelDownload | None:
    """What loading `name` would download: a registry or `hf:` model not yet in the local Hugging
    Face cache; None when nothing (cached, a local file, a server, a scripted model). File lookups
    only, never the network. Raises `BadModelName` for a malformed name."""
    spec = _parse(name)
    if spec.kind == "registry":
        entry = next(e for e in REGISTRY if e.key == spec.key)
        if _cached_file(entry.repo_id, entry.filename) is None:
            return ModelDownload(entry.key, entry.name, entry.repo_id, entry.filename, entry.size_bytes,
                                 entry.size_exact)
    elif spec.kind == "hf":
        repo_id, filename = str(spec.repo_id), str(spec.filename)
        if _cached_file(repo_id, filename) is None:
            return ModelDownload(spec.name, filename, repo_id, filename, None)
    return None


def model_can_see(name: str) -> bool:
    """Whether the model `name` names takes images, known without loading it (its projector is there)."""
    return can_see(name)


def default_model() -> str:
    """The registry key of this machine's default model: the best default candidate (Qwen3.6-35B-A3B,
    else a Qwen 3.5) that fits its memory."""
    return DEFAULT_MODEL


def inspect_model(name: str, *, n_ctx: int | None = None) -> tuple[tuple[str, str], ...] | None:
    """What the runtime would detect about the local GGUF `name` names (a path, or a registry or
    `hf:` model already downloaded) and the context window it would get here (`n_ctx` pins it), as
    (label, value) rows; None for anything else (not downloaded, a server, a scripted model). Reads
    the file's header only. Raises `BadModelName` for a malformed name, `InferenceError` for a file
    that is not a GGUF."""
    from qwen_runtime.errors import QwenRuntimeError
    from qwen_runtime.models.report import inspect_gguf

    path = local_model_file(name)
    if path is None:
        return None
    try:
        report = inspect_gguf(path, pinned_n_ctx=n_ctx)
    except QwenRuntimeError as exc:
        raise InferenceError(str(exc)) from exc
    warnings = tuple(("warning", w) for w in report.warnings)
    return (*report.lines(), *warnings)


def local_model_file(name: str) -> Path | None:
    """The GGUF file `name` names on this machine (a path, or a registry or `hf:` model already
    downloaded); None for anything else. Raises `BadModelName` for a malformed name."""
    spec = _parse(name)
    if spec.kind == "gguf":
        path = expand_home(str(spec.path))
        return path if path.is_file() else None
    if spec.kind == "registry":
        entry = next(e for e in REGISTRY if e.key == spec.key)
        return _cached_file(entry.repo_id, entry.filename)
    if spec.kind == "hf":
        return _cached_file(str(spec.repo_id), str(spec.filename))
    return None


def model_file_facts(name: str) -> dict[str, Any] | None:
    """The local GGUF `name` names, as a benchmark report records it: its path, size, architecture, the
    model's own name and its quantisation (`general.file_type`, as llama.cpp's quantize names it); None
    for anything that is no local GGUF (a server, a scripted model, a model not downloaded). Reads the
    header only. Raises `BadModelName` for a malformed name, `InferenceError` for a file that is not a GGUF."""
    import gguf
    from qwen_runtime.models.gguf_header import GgufHeaderError, read_gguf_metadata

    path = local_model_file(name)
    if path is None:
        return None
    try:
        fields = read_gguf_metadata(path)
    except (OSError, GgufHeaderError) as exc:
        raise InferenceError(f"{path} is not a readable GGUF file: {exc}") from exc
    file_type = fields.get("general.file_type")
    quantisation: str | None = None
    if isinstance(file_type, int):
        try:
            quantisation = gguf.LlamaFileType(file_type).name.removeprefix("MOSTLY_").removeprefix("ALL_")
        except ValueError:
            quantisation = f"file type {file_type}"
    name_field = fields.get("general.name")
    return {
        "path": str(path),
        "size": path.stat().st_size,
        "architecture": str(fields.get("general.architecture", "")) or None,
        "name": name_field if isinstance(name_field, str) else None,
        "quantisation": quantisation,
    }


def model_tuning(name: str) -> TuningStatus | None:
    """What `qwen-runtime tune` recorded for the local GGUF `name` names (on this machine, elsewhere, or
    for a file since replaced); None when `name` is no local GGUF. Reads small JSON files only."""
    path = local_model_file(name)
    return tuning_status(path) if path is not None else None


def list_models() -> list[ModelInfo]:
    """The registry's models, in its order (Qwen 3.5 and Qwen3-Coder after the Qwen 3 entries)."""
    return [
        ModelInfo(e.key, e.name, e.size_bytes, e.tool_capable, e.context_length, e.repo_id, e.filename, e.size_exact)
        for e in REGISTRY
    ]


def machine_memory() -> int | None:
    """This machine's memory as every "does it fit" answer counts it (capped by a container's memory
    limit); None when the platform does not say."""
    return registry.memory_bytes()


def model_fits(size_bytes: int, memory: int | None) -> bool | None:
    """Whether a GGUF of `size_bytes` runs in `memory` bytes (None: unknown): the runtime's one rule,
    the answer `qwen-runtime models`, `sigit doctor` and the app's pickers all give."""
    return fits_in_memory(size_bytes, memory)
