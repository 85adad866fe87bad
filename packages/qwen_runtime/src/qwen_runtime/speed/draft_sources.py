"""The names of draft sources, read in one place.

Every entry point that takes a draft source (`qwen-runtime generate --draft`, `LlamaCppRuntime(draft=)`,
`TransformersRuntime(draft=)`, onde's `GgufModelConfig(draft=)`, sigit's `draft` setting and its
`--draft` flag) reads it with `parse_draft`, so a spelling one of them accepts, all of them accept, and
a bad one gets the same message everywhere. Light on purpose: the command lines parse before any model
or numpy loads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from ..errors import ModelLoadError
from ..home import expand_home

DraftKind = Literal["prompt-lookup", "mtp", "none", "model"]
PROMPT_LOOKUP: Final = "prompt-lookup"
NO_DRAFT: Final = "none"
MTP: Final = "mtp"
DRAFT_CHOICES = (PROMPT_LOOKUP, MTP, NO_DRAFT)
"""Named draft sources; anything else given as a draft is the path of a draft model. "mtp" is the model's
own multi-token-prediction head (a Qwen 3.5 GGUF that carries one); with the default, prompt lookup, a
model that has such a head drafts with both and takes the longer proposal."""

SPELLINGS: dict[str, DraftKind] = {
    PROMPT_LOOKUP: PROMPT_LOOKUP,
    "prompt_lookup": PROMPT_LOOKUP,
    "promptlookup": PROMPT_LOOKUP,
    "ngram": PROMPT_LOOKUP,  # vLLM's and SGLang's name for the same method
    "n-gram": PROMPT_LOOKUP,
    MTP: MTP,
    NO_DRAFT: NO_DRAFT,
    "off": NO_DRAFT,
    "": NO_DRAFT,
}
"""Every accepted spelling (compared lower-case, surrounding blanks ignored), to its canonical name."""


class DraftSourceError(ModelLoadError, ValueError):
    """A draft source that is neither a known name nor a draft model file."""


@dataclass(frozen=True)
class DraftSpec:
    """A parsed draft source: a named one, or a draft model's file (`path`)."""

    kind: DraftKind
    path: Path | None = None

    def __str__(self) -> str:
        """The canonical spelling: what every entry point passes on."""
        return str(self.path) if self.path is not None else self.kind

    @property
    def loads_a_model(self) -> bool:
        """True for a draft model file (a project's settings may name one only when trusted)."""
        return self.kind == "model"


def usage_text() -> str:
    return "prompt-lookup (or ngram), mtp, none, or the path of a draft model (.gguf) with the same tokenizer"


def parse_draft(value: str | os.PathLike[str] | None, *, check_file: bool = True) -> DraftSpec:
    """Read a draft source. None is the default (prompt lookup); a name in `SPELLINGS` is that source;
    anything else is a draft model's path, which must be a file when `check_file` (settings are read
    before the file need exist: loading checks it then). Raises DraftSourceError with what is accepted."""
    if value is None:
        return DraftSpec(PROMPT_LOOKUP)
    text = os.fspath(value)
    named = SPELLINGS.get(text.strip().lower())
    if named is not None:
        return DraftSpec(named)
    path = expand_home(text)
    looks_like_a_path = text.lower().endswith(".gguf") or any(sep in text for sep in ("/", os.sep, "~"))
    if path.is_file():
        return DraftSpec("model", path)
    if path.is_dir():
        raise DraftSourceError(f"draft {text!r} is a folder, not a draft model file; use {usage_text()}")
    if not looks_like_a_path:
        raise DraftSourceError(f"draft {text!r} is not a draft source; use {usage_text()}")
    if check_file:
        raise DraftSourceError(f"draft {text!r}: no such draft model file ({path}); use {usage_text()}")
    return DraftSpec("model", path)


__all__ = [
    "DRAFT_CHOICES",
    "MTP",
    "NO_DRAFT",
    "PROMPT_LOOKUP",
    "SPELLINGS",
    "DraftKind",
    "DraftSourceError",
    "DraftSpec",
    "parse_draft",
    "usage_text",
]
