"""Which vision projector (mmproj GGUF) belongs to which model, decided from file names and headers
before llama.cpp sees either.

Users keep many models in one folder, so a projector beside a model is not necessarily its own. One
found beside the model is used only when its name says it is the model's (`mmproj-<model file>`,
`mmproj-<model name>…`, `<model stem>.mmproj.gguf`, or the folder's only generically named one, as a
model repository ships it: `mmproj-F16.gguf`) and its header fits the model's; otherwise the model
simply does not see (and the log says why). A projector the user names must fit too, or loading fails
with both files named. Fitting: the model's architecture takes images, the projector has a vision
encoder of a type made for that architecture, and its output width (`clip.vision.projection_dim`, with
Qwen3-VL's deepstack copies) equals the model's input embedding width: llama.cpp would otherwise
refuse it late or, on some paths, crash.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ModelLoadError
from .gguf_header import GgufHeaderError, read_gguf_metadata

log = logging.getLogger(__name__)

TEXT_ONLY_ARCHS = frozenset({"qwen2", "qwen3", "qwen3moe", "qwen3next", "llama"})
"""Architectures no projector exists for: a model of these is text-only, not just missing its mmproj."""
PROJECTOR_TYPES = {
    "qwen35": frozenset({"qwen3vl_merger"}),
    "qwen35moe": frozenset({"qwen3vl_merger"}),
    "qwen3vl": frozenset({"qwen3vl_merger"}),
    "qwen3vlmoe": frozenset({"qwen3vl_merger"}),
    "qwen2vl": frozenset({"qwen2vl_merger"}),
    "qwen25vl": frozenset({"qwen2.5vl_merger"}),
}
"""The projector types (`clip.projector_type`) llama.cpp pairs with each architecture we know; an
architecture not listed takes any type whose width fits."""
_GENERIC = re.compile(r"mmproj(?:[-_.]model)?(?:[-_.](?:f16|bf16|f32|q8_0|q4_k_m|q6_k))?\.gguf", re.IGNORECASE)
"""Names that say no model (`mmproj-F16.gguf`, `mmproj-model-f16.gguf`): a repository's own projector."""
_QUANT_SUFFIX = re.compile(r"[-_.](?:ud-)?(?:i?q\d[\w]*|f16|bf16|f32|mxfp4\w*)$", re.IGNORECASE)


def model_base_name(model: Path) -> str:
    """The model file's stem without its quantization (`Qwen3.5-2B-Q4_K_M.gguf` -> `Qwen3.5-2B`)."""
    return _QUANT_SUFFIX.sub("", model.stem) or model.stem


def named_for(model: Path, projector: Path) -> bool:
    """True when the projector's name says it is this model's (not counting generic names)."""
    name, stem = projector.name.lower(), model.stem.lower()
    base = model_base_name(model).lower()
    if name == f"mmproj-{model.name.lower()}" or name == f"{stem}.mmproj.gguf":
        return True
    if not name.startswith("mmproj-") or not name.endswith(".gguf"):
        return False
    rest = name.removeprefix("mmproj-")
    return any(
        rest == f"{prefix}.gguf" or rest.startswith((f"{prefix}-", f"{prefix}.", f"{prefix}_"))
        for prefix in {stem, base}
    )


def _count(values: Any) -> int:
    return sum(1 for v in values if v) if isinstance(values, list) else 0


def mismatch(model: Path, projector: Path, model_metadata: Mapping[str, Any] | None = None) -> str | None:
    """Why `projector` does not fit `model`, read from both headers; None when it fits."""
    try:
        meta = model_metadata if model_metadata is not None else read_gguf_metadata(model)
    except (OSError, GgufHeaderError) as exc:
        return f"the model's header cannot be read ({exc})"
    arch = str(meta.get("general.architecture", "?"))
    if arch in TEXT_ONLY_ARCHS:
        return f"{model.name} is a text-only model ({arch})"
    try:
        clip = read_gguf_metadata(projector)
    except (OSError, GgufHeaderError) as exc:
        return f"{projector.name} is not a projector GGUF ({exc})"
    if clip.get("general.architecture") != "clip" or not clip.get("clip.has_vision_encoder", False):
        return f"{projector.name} has no vision encoder (not an mmproj GGUF, or an audio-only one)"
    kind = str(clip.get("clip.projector_type", clip.get("clip.vision.projector_type", "?")))
    wanted = PROJECTOR_TYPES.get(arch)
    if wanted is not None and kind not in wanted:
        return f"{projector.name} is a {kind} projector; a {arch} model takes {', '.join(sorted(wanted))}"
    width = clip.get("clip.vision.projection_dim")
    n_embd = meta.get(f"{arch}.embedding_length")
    if not isinstance(width, int) or not isinstance(n_embd, int):
        return f"{projector.name} or {model.name} does not say its embedding width"
    out = width * (1 + _count(clip.get("clip.vision.is_deepstack_layers")))
    deepstack = meta.get(f"{arch}.n_deepstack_layers", 0)
    takes = n_embd * (1 + (deepstack if isinstance(deepstack, int) else 0))
    if out != takes:
        return f"{projector.name} makes embeddings {out} wide; {model.name} takes {takes}"
    return None


def check_projector(model: Path, projector: Path, model_metadata: Mapping[str, Any] | None = None) -> None:
    """Raise ModelLoadError naming both files when the projector the user named does not fit the model."""
    if not projector.is_file():
        raise ModelLoadError(f"projector (mmproj) file not found: {projector}")
    why = mismatch(model, projector, model_metadata)
    if why is not None:
        raise ModelLoadError(f"the projector {projector} does not belong to the model {model}: {why}")


def find_projector(model: Path, model_metadata: Mapping[str, Any] | None = None) -> Path | None:
    """The projector beside `model` that belongs to it, or None. Candidates by name: named for the
    model first, then the folder's only generic one; each must fit the model's header (one that does
    not is passed over, with a log line saying why)."""
    folder = model.parent
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".gguf" and p != model and p.is_file())
    except OSError:
        return None
    named = [p for p in files if named_for(model, p)]
    named.sort(key=lambda p: p.name.lower() != f"mmproj-{model.name.lower()}")  # the exact name first
    generic = [p for p in files if _GENERIC.fullmatch(p.name)]
    candidates = named + (generic if len(generic) == 1 else [])
    for projector in candidates:
        why = mismatch(model, projector, model_metadata)
        if why is None:
            return projector
        log.info("not using the projector %s for %s: %s", projector, model.name, why)
    others = [p.name for p in files if p.name.lower().startswith("mmproj") and p not in candidates]
    if others:
        log.info(
            "no projector for %s: %s %s not named for it (name it with --mmproj or the mmproj setting)",
            model.name,
            ", ".join(others),
            "is" if len(others) == 1 else "are",
        )
    return None


__all__ = [
    "PROJECTOR_TYPES",
    "TEXT_ONLY_ARCHS",
    "check_projector",
    "find_projector",
    "mismatch",
    "model_base_name",
    "named_for",
]
