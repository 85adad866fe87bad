"""What the runtime detects about a GGUF and how it would run it here, for `qwen-runtime inspect`,
`sigit doctor` and `/status`: one report, so the three never disagree.

A model we have never seen keeps working because nothing here is keyed on its name: the call format
and thinking come from its template's markers (`toolformat`), the layer layout and context from its
header (`gguf_info`), the window from the memory (`context_window`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..calls.toolformat import template_traits
from .context_window import choose_context
from .gguf_info import GgufInfo, read_gguf_info
from .registry import human_size, memory_bytes
from .templates import TEMPLATE_NAMES, load_template

FALLBACK_TEMPLATE = "qwen3"
"""What a GGUF without a chat template is rendered with (Qwen 3's ChatML)."""


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
            ("thinking", "yes" if self.thinking else "no"),
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


def template_source(template: str | None) -> str:
    """Where the template a model runs with comes from, naming a shipped one it equals."""
    if template is None:
        return f"none in the file: fallback {FALLBACK_TEMPLATE} (Qwen's ChatML)"
    for name in TEMPLATE_NAMES:
        if template.strip() == load_template(name).strip():
            return f"embedded (same as shipped {name})"
    return "embedded (not one we ship: format read from its markers)"


def build_report(info: GgufInfo, *, memory: int | None, pinned_n_ctx: int | None = None) -> ModelReport:
    traits = template_traits(info.chat_template or load_template(FALLBACK_TEMPLATE))
    choice = choose_context(info, memory, pinned=pinned_n_ctx)
    warnings: list[str] = []
    if info.chat_template is None:
        warnings.append(f"{info.path.name} has no chat template: falling back to {FALLBACK_TEMPLATE} (Qwen's "
                        "ChatML), which a model of another family does not follow (it may never stop)")
    if traits.knows_tool_calls:
        call_format = f"{traits.tool_format.value} (from the template's markers)"
    else:
        call_format = "json (assumed: the template shows no call format)"
    return ModelReport(
        path=str(info.path),
        name=info.name,
        architecture=info.architecture,
        file_size=info.file_size,
        template_source=template_source(info.chat_template),
        call_format=call_format,
        thinking=traits.thinks,
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


def inspect_gguf(path: str | Path, *, pinned_n_ctx: int | None = None) -> ModelReport:
    """The report for the GGUF at `path` on this machine."""
    return build_report(read_gguf_info(path), memory=memory_bytes(), pinned_n_ctx=pinned_n_ctx)


__all__ = ["ModelReport", "build_report", "inspect_gguf", "template_source"]
