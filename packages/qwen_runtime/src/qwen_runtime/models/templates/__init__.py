"""The chat templates of the Qwen models we support, as data: each `.jinja` file is the model's own.

A model was trained on exactly its template's layout, so these are copies of the published ones
(Qwen 3 from its tokenizer_config.json, Qwen3-Coder and Qwen 3.5 from their chat templates on the
Hugging Face hub, Qwen 3.8 from llama.cpp's `models/templates/Qwen3.8-27B.jinja`; README "Models"
says where each came from), not rewrites. A GGUF or transformers folder normally carries its own
template; these are the fallback and what the tiny test models embed.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Final

#: template name (what `make-test-model --template` takes) -> file in this package
TEMPLATE_FILES: Final = {
    "qwen3": "qwen3.jinja",
    "qwen3-coder": "qwen3_coder.jinja",
    "qwen3.5": "qwen3_5.jinja",
    "qwen3.6": "qwen3_6.jinja",
    "qwen3.8": "qwen3_8.jinja",
}
TEMPLATE_NAMES: Final = tuple(TEMPLATE_FILES)


@cache
def load_template(name: str) -> str:
    """The template text for `name` (one of `TEMPLATE_NAMES`)."""
    try:
        filename = TEMPLATE_FILES[name]
    except KeyError:
        known = ", ".join(TEMPLATE_NAMES)
        raise ValueError(f"unknown chat template {name!r}; known templates: {known}") from None
    return resources.files(__name__).joinpath(filename).read_text(encoding="utf-8")


__all__ = ["TEMPLATE_NAMES", "load_template"]
