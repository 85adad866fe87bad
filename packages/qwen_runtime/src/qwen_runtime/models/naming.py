"""One way to name a runtime, shared by the command line, config files and the agent.

    qwen3-8b                          a registry model (downloaded into the HF cache when needed)
    ./models/any.gguf                 a local GGUF file
    hf:OWNER/REPO/FILE.gguf           any GGUF on the Hugging Face hub
    transformers:PATH                 a Hugging Face model folder, run with transformers
    openai:BASE_URL#MODEL             an OpenAI-compatible server (#MODEL optional)
    scripted:FILE.json                a scripted scenario (tests, demos)

Backends are imported only when a runtime is loaded, so naming one never pulls in torch or llama.cpp.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from urllib.parse import urlparse

from ..errors import BackendUnavailable, ModelNotFoundError
from ..runtime import Runtime
from .registry import REGISTRY, get_model

if TYPE_CHECKING:
    from .download import ProgressCallback

log = logging.getLogger(__name__)

RuntimeKind: TypeAlias = Literal["gguf", "registry", "hf", "transformers", "openai", "scripted"]

ACCEPTED_FORMS = (
    "a registry model key (" + ", ".join(e.key for e in REGISTRY) + ")",
    "a path to a local file ending in .gguf",
    "hf:OWNER/REPO/FILE.gguf (a GGUF file on the Hugging Face hub)",
    "transformers:PATH (a Hugging Face model folder)",
    "openai:BASE_URL#MODEL (an OpenAI-compatible server; #MODEL is optional)",
    "scripted:FILE (a JSON scenario for the scripted runtime)",
)

_PREFIXES = ("hf", "transformers", "openai", "scripted")


@dataclass(frozen=True)
class RuntimeSpec:
    """A parsed runtime name; only the fields of its kind are set."""

    kind: RuntimeKind
    path: str | None = None
    """gguf, transformers, scripted: the local file or folder."""
    key: str | None = None
    """registry: the model key."""
    repo_id: str | None = None
    """hf (and registry, resolved): OWNER/REPO on the hub."""
    filename: str | None = None
    """hf (and registry, resolved): the file inside the repo."""
    base_url: str | None = None
    """openai: the server's base URL."""
    model: str | None = None
    """openai: the model to ask the server for (None: the server's default)."""

    @property
    def name(self) -> str:
        """The canonical name; `parse_runtime_name(spec.name) == spec`."""
        if self.kind == "registry":
            return str(self.key)
        if self.kind == "gguf":
            return str(self.path)
        if self.kind == "hf":
            return f"hf:{self.repo_id}/{self.filename}"
        if self.kind == "openai":
            return f"openai:{self.base_url}" + (f"#{self.model}" if self.model else "")
        return f"{self.kind}:{self.path}"


def _bad(name: str, why: str) -> ValueError:
    forms = "\n".join(f"  - {form}" for form in ACCEPTED_FORMS)
    return ValueError(f"bad runtime name {name!r}: {why}. A runtime name is one of:\n{forms}")


def parse_runtime_name(name: str) -> RuntimeSpec:
    """Parse a runtime name; a bad one gets a ValueError that lists every accepted form."""
    text = name.strip()
    if not text:
        raise _bad(name, "it is empty")
    prefix, sep, rest = text.partition(":")
    if sep and prefix.lower() in _PREFIXES:
        return _parse_prefixed(name, prefix.lower(), rest.strip())
    if text.lower().endswith(".gguf"):
        return RuntimeSpec(kind="gguf", path=text)
    if any(entry.key == text.lower() for entry in REGISTRY):
        return RuntimeSpec(kind="registry", key=text.lower())
    if sep and "/" not in prefix and "\\" not in prefix and len(prefix) > 1:
        raise _bad(name, f"unknown kind {prefix!r}")
    raise _bad(name, "it is not a known model, a .gguf path or a KIND:VALUE name")


def _parse_prefixed(name: str, kind: str, rest: str) -> RuntimeSpec:
    if not rest:
        raise _bad(name, f"nothing after '{kind}:'")
    if kind == "hf":
        parts = rest.split("/")
        if len(parts) < 3 or not all(parts):
            raise _bad(name, "hf: needs OWNER/REPO/FILE with no empty part")
        filename = "/".join(parts[2:])
        if not filename.lower().endswith(".gguf"):
            raise _bad(name, f"hf: names a GGUF file, and {filename!r} does not end in .gguf")
        return RuntimeSpec(kind="hf", repo_id=f"{parts[0]}/{parts[1]}", filename=filename)
    if kind == "openai":
        base_url, _, model = rest.partition("#")
        url = urlparse(base_url)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise _bad(name, f"openai: needs an http(s) base URL, not {base_url!r}")
        return RuntimeSpec(kind="openai", base_url=base_url.rstrip("/"), model=model.strip() or None)
    if kind == "transformers":
        return RuntimeSpec(kind="transformers", path=rest)
    return RuntimeSpec(kind="scripted", path=rest)


# ---------------------------------------------------------------- loading

_BACKENDS: dict[str, str] = {
    "llamacpp": "qwen_runtime.backends.llamacpp.runtime:LlamaCppRuntime",
    "transformers": "qwen_runtime.backends.transformers_backend:TransformersRuntime",
    "openai": "qwen_runtime.backends.openai_compat:OpenAICompatRuntime",
    "scripted": "qwen_runtime.backends.scripted:ScriptedRuntime",
}


def _import(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        missing = exc.name or str(exc)
        raise BackendUnavailable(
            f"the {module_name.rsplit('.', 1)[-1]} backend cannot be imported: {missing} is missing ({exc})"
        ) from exc
    return getattr(module, attr)


def _accepted(callees: list[tuple[Callable[..., Any], int]], options: dict[str, Any]) -> dict[str, Any]:
    """The options the callees name as keyword parameters, past the `n` positional ones we pass.

    A catch-all **kwargs is not taken as accepting everything: `n_ctx` must not reach a server client.
    """
    names: set[str] = set()
    for callee, positional in callees:
        params = [
            p
            for p in inspect.signature(callee).parameters.values()
            if p.name not in ("self", "cls") and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        names |= {p.name for p in params[positional:]}
    kept = {k: v for k, v in options.items() if k in names}
    if dropped := sorted(set(options) - set(kept)):
        log.debug("options not used by %s: %s", callees[0][0].__qualname__, ", ".join(dropped))
    return kept


def _existing(path: str, what: str) -> str:
    full = Path(os.path.expanduser(path))
    if not full.exists():
        raise ModelNotFoundError(f"{what} not found: {full}")
    return str(full)


def resolve_gguf(spec: RuntimeSpec, *, progress: bool | ProgressCallback = True) -> str:
    """The local GGUF path for a gguf, registry or hf spec, downloading into the HF cache if needed."""
    from .download import download_model

    if spec.kind == "gguf":
        return _existing(str(spec.path), "GGUF file")
    if spec.kind == "registry":
        entry = get_model(str(spec.key))
        return str(download_model(entry.repo_id, entry.filename, progress=progress))
    if spec.kind == "hf":
        return str(download_model(str(spec.repo_id), str(spec.filename), progress=progress))
    raise ValueError(f"a {spec.kind} runtime has no GGUF file")


def resolve_mmproj(spec: RuntimeSpec, vision: bool | None, *, progress: bool | ProgressCallback = True) -> str | None:
    """The projector a registry model sees with: downloaded when `vision` is True (the caller has the
    user's consent), used when already cached if None, never when False ("none"). Other kinds: None
    (the backend looks beside the model file)."""
    if spec.kind != "registry":
        return "none" if vision is False else None
    entry = get_model(str(spec.key))
    if entry.mmproj is None or vision is False:
        return "none"
    from .download import cached_path, download_model

    if vision:
        return str(download_model(entry.repo_id, entry.mmproj, progress=progress))
    found = cached_path(entry.repo_id, entry.mmproj)
    return str(found) if found is not None else "none"


def find_mmproj(model_path: Path) -> Path | None:
    """The projector beside a GGUF that belongs to it (`projector.find_projector`: named for the model,
    or the folder's only generic `mmproj-F16.gguf`, and fitting the model's header), or None."""
    from .projector import find_projector

    return find_projector(model_path)


def can_see(name: str) -> bool:
    """Whether the model `name` names would take images if loaded now, without loading it: a GGUF with
    its projector beside it (or a registry model's, downloaded), a server (it decides), a script."""
    try:
        spec = parse_runtime_name(name)
    except ValueError:
        return False
    if spec.kind in ("openai", "scripted"):
        return True
    if spec.kind == "registry":
        from .download import cached_path

        entry = get_model(str(spec.key))
        return entry.mmproj is not None and cached_path(entry.repo_id, entry.mmproj) is not None
    if spec.kind == "gguf":
        return find_mmproj(Path(os.path.expanduser(str(spec.path)))) is not None
    return False


_BACKEND_OF_KIND: dict[str, str] = {"gguf": "llamacpp", "registry": "llamacpp", "hf": "llamacpp",
                                    "transformers": "transformers", "openai": "openai", "scripted": "scripted"}


_BINDINGS: dict[str, tuple[str, ...]] = {"llamacpp": ("llama_cpp",)}
"""What a backend's module imports only when it loads a model (so that importing it stays light)."""


def import_backend(name: str) -> None:
    """Import the backend that `load_runtime(name)` will use (llama.cpp's bindings and numpy for a GGUF),
    reading no file: a caller that loads beside other start-up work imports it first, so that the load
    itself goes straight to the model file (native code that leaves the GIL free) while the other work
    runs. Raises what `load_runtime` raises for a malformed name or a backend that is not installed."""
    backend = _BACKEND_OF_KIND[parse_runtime_name(name).kind]
    _import(_BACKENDS[backend])
    for module in _BINDINGS.get(backend, ()):
        _import(f"{module}:__name__")


def gguf_options(options: dict[str, Any]) -> dict[str, Any]:
    """Of `options`, those the llama.cpp backend takes."""
    cls = _import(_BACKENDS["llamacpp"])
    return _accepted([(cls.__init__, 1)], options)


def load_gguf(path: str, options: dict[str, Any]) -> Runtime:
    """The llama.cpp runtime of the GGUF at `path`, loaded in this process with `options` (those it
    does not take are dropped)."""
    cls = _import(_BACKENDS["llamacpp"])
    runtime = cls(path, **_accepted([(cls.__init__, 1)], options))
    if not isinstance(runtime, Runtime):
        raise TypeError(f"{cls.__qualname__} is not a qwen_runtime Runtime")
    return runtime


def load_runtime(name: str, **options: Any) -> Runtime:
    """Load the runtime `name` names. Options a backend does not take are dropped, so one set of
    command-line flags serves every backend. `progress=False` silences download progress; a
    callable `(done_bytes, total_bytes) -> None` receives it instead. `vision=True` fetches a registry
    model's projector (mmproj) so it can see images; by default one already downloaded is used.
    (`qwen_runtime.host.load_runtime` takes `keep_alive` too: the model loaded in a host process.)"""
    spec = parse_runtime_name(name)
    progress = options.pop("progress", True)
    if not callable(progress):
        progress = bool(progress)
    vision = options.pop("vision", None)
    if spec.kind in ("gguf", "registry", "hf"):
        path = resolve_gguf(spec, progress=progress)
        if options.get("mmproj") is None:
            options["mmproj"] = resolve_mmproj(spec, vision, progress=progress)
        runtime = load_gguf(path, options)
    elif spec.kind == "transformers":
        path = _existing(str(spec.path), "transformers model folder")
        cls = _import(_BACKENDS["transformers"])
        runtime = cls(path, **_accepted([(cls.__init__, 1)], options))
    elif spec.kind == "openai":
        cls = _import(_BACKENDS["openai"])
        runtime = cls(spec.base_url, spec.model, **_accepted([(cls.__init__, 2)], options))
    else:
        path = _existing(str(spec.path), "scenario file")
        cls = _import(_BACKENDS["scripted"])
        runtime = cls.from_file(path, **_accepted([(cls.from_file, 1), (cls.__init__, 1)], options))
    if not isinstance(runtime, Runtime):
        raise TypeError(f"{cls.__qualname__} is not a qwen_runtime Runtime")
    if spec.kind == "registry":
        # the registry knows which models can call tools (Qwen 2.5 Coder cannot): never offer them any
        runtime.supports_tools = get_model(str(spec.key)).tool_capable
    return runtime
