"""What the runtime detects about a GGUF and how it would run it here, for `qwen-runtime inspect`,
`sigit doctor` and `/status`: one report, so the three never disagree.

A model we have never seen keeps working because nothing here is keyed on its name: the call format
and thinking come from its template's markers (`toolformat`), the layer layout and context from its
header (`gguf_info`), the window from the memory (`context_window`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..calls.toolformat import template_traits
from ..errors import QwenRuntimeError
from ..home import expand_home
from .chat_format import compile_template
from .context_window import choose_context
from .gguf_info import GgufInfo, read_gguf_info
from .registry import human_size, memory_bytes
from .templates import TEMPLATE_NAMES, load_template

FALLBACK_TEMPLATE = "qwen3"
"""What a GGUF without a chat template is rendered with (Qwen 3's ChatML)."""

SUPPLY_HINT = "supply the model's own with --chat-template FILE (or the `chat_template` setting)"
"""How a user gives a model the template its file lacks: named in every warning about a template."""


@dataclass(frozen=True)
class ModelReport:
    path: str
    name: str
    architecture: str
    file_size: int
    template_source: str
    """"embedded (same as shipped qwen3.6)", "embedded (not one we ship)" or "none: fallback qwen3"."""
    call_format: str
    thinking: bool
    template_options: tuple[str, ...]
    context_length: int
    mtp_layers: int
    hybrid: bool
    attention_layers: int
    layers: int
    experts: int
    projector_needed: bool
    n_ctx: int
    n_ctx_reason: str
    warnings: tuple[str, ...] = field(default=())
    thinking_assumed: bool = False
    """True when `thinking` comes from the fallback template, not from anything the model carries."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[tuple[str, str]]:
        """(label, value) rows, in the order a reader wants them."""
        layout = (f"hybrid: {self.attention_layers} of {self.layers} layers full attention, the rest Gated "
                  "DeltaNet" if self.hybrid else f"dense attention, {self.layers} layers")
        return [
            ("model", f"{self.name} ({human_size(self.file_size)})"),
            ("architecture", self.architecture + (f", {self.experts} experts" if self.experts else "")),
            ("layers", layout),
            ("template", self.template_source),
            ("tool calls", self.call_format),
            ("thinking", ("yes" if self.thinking else "no")
             + (f" (assumed: from the fallback {FALLBACK_TEMPLATE} template)" if self.thinking_assumed else "")),
            ("options", ", ".join(self.template_options) or "none"),
            ("trained context", f"{self.context_length:,} tokens" if self.context_length else "not stated"),
            ("MTP layers", str(self.mtp_layers)),
            ("projector", "needed for images (an mmproj GGUF)" if self.projector_needed else "not needed"),
            ("context window", f"{self.n_ctx:,} tokens ({self.n_ctx_reason})"),
        ]

    def render(self) -> str:
        rows = self.lines()
        width = max(len(label) for label, _ in rows)
        return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


def template_source(template: str | None, supplied: str | None = None) -> str:
    """Where the template a model runs with comes from, naming a shipped one it equals; `supplied`: the
    file a user gave (`--chat-template`), which wins over the GGUF's."""
    if supplied is not None:
        return f"supplied: {supplied}"
    if template is None:
        return f"none in the file: fallback {FALLBACK_TEMPLATE} (Qwen's ChatML)"
    for name in TEMPLATE_NAMES:
        if template.strip() == load_template(name).strip():
            return f"embedded (same as shipped {name})"
    return "embedded (not one we ship: format read from its markers)"


def template_warnings(name: str, template: str | None) -> list[str]:
    """What a user must hear about the template a model file carries (None: it has none)."""
    if template is None:
        return [f"{name} has no chat template: falling back to {FALLBACK_TEMPLATE} (Qwen's ChatML), which a "
                f"model of another family does not follow (it may never stop); {SUPPLY_HINT}"]
    if not template_traits(template).knows_tool_calls:
        return [f"{name}'s chat template shows no tool-call format: calls are assumed to be JSON in "
                f"<tool_call> tags, which this model may not write; {SUPPLY_HINT} if it has one"]
    return []


def build_report(info: GgufInfo, *, memory: int | None, pinned_n_ctx: int | None = None,
                 chat_template: str | None = None, template_file: str | None = None) -> ModelReport:
    """The report; `chat_template` (read from `template_file`) is one the user supplies over the file's."""
    template = chat_template or info.chat_template
    traits = template_traits(template or load_template(FALLBACK_TEMPLATE))
    choice = choose_context(info, memory, pinned=pinned_n_ctx)
    warnings = template_warnings(info.path.name, template)
    assumed = f" (assumed: from the fallback {FALLBACK_TEMPLATE} template)" if template is None else ""
    if template is None:
        call_format = f"{traits.tool_format.value}{assumed}"
    elif traits.knows_tool_calls:
        call_format = f"{traits.tool_format.value} (from the template's markers)"
    else:
        call_format = "json (assumed: the template shows no call format)"
    return ModelReport(
        path=str(info.path),
        name=info.name,
        architecture=info.architecture,
        file_size=info.file_size,
        template_source=template_source(info.chat_template, template_file if chat_template else None),
        call_format=call_format,
        thinking=traits.thinks,
        thinking_assumed=template is None,
        template_options=traits.options,
        context_length=info.context_length,
        mtp_layers=info.nextn_layers,
        hybrid=info.hybrid,
        attention_layers=len(info.attention_layers),
        layers=len(info.attention_layers) + len(info.recurrent_layers),
        experts=info.expert_count,
        projector_needed=info.projector_needed,
        n_ctx=choice.n_ctx,
        n_ctx_reason=choice.reason,
        warnings=tuple(warnings),
    )


def inspect_gguf(path: str | Path, *, pinned_n_ctx: int | None = None,
                 chat_template_file: str | Path | None = None) -> ModelReport:
    """The report for the GGUF at `path` on this machine, run with the template in `chat_template_file`
    when one is given."""
    supplied = read_chat_template(chat_template_file) if chat_template_file is not None else None
    return build_report(read_gguf_info(path), memory=memory_bytes(), pinned_n_ctx=pinned_n_ctx,
                        chat_template=supplied, template_file=str(chat_template_file) if supplied else None)


def read_chat_template(path: str | Path) -> str:
    """The text of a chat template file a user supplies: a Jinja file, or a `tokenizer_config.json` /
    `chat_template.json` whose `chat_template` holds it. A file that cannot serve is a clear error."""
    file = expand_home(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QwenRuntimeError(f"no such chat template file: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QwenRuntimeError(f"cannot read the chat template {file}: {exc}") from exc
    if file.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise QwenRuntimeError(f"{file} is not valid JSON ({exc}); give a Jinja template file or a "
                                   "tokenizer_config.json") from exc
        found = data.get("chat_template") if isinstance(data, dict) else None
        if isinstance(found, list):  # HF's named templates: [{"name": "default", "template": "..."}]
            found = next((t.get("template") for t in found if isinstance(t, dict) and t.get("name") == "default"),
                         None)
        if not isinstance(found, str):
            raise QwenRuntimeError(f"{file} holds no `chat_template` string")
        text = found
    if not text.strip():
        raise QwenRuntimeError(f"the chat template {file} is empty")
    try:
        compile_template(text)  # a template that does not parse is named now, not at the first turn
    except QwenRuntimeError as exc:
        raise QwenRuntimeError(f"{file}: {exc}") from exc
    return text


__all__ = ["ModelReport", "build_report", "inspect_gguf", "read_chat_template", "template_source",
           "template_warnings"]
