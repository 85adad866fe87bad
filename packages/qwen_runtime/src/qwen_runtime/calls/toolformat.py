"""How a model writes tool calls, read from its chat template: Qwen 3's JSON or Qwen3-Coder's XML.

Qwen 3 was trained on `<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`; Qwen3-Coder and
Qwen 3.5 on `<tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n</function>\\n
</tool_call>` (strings raw, other values JSON). The template the model ships with says which (as
llama.cpp decides too), and that choice drives the constraint; the parsers read both forms anyway,
and the template itself renders past calls.
"""

from __future__ import annotations

import enum
import hashlib
import logging
import threading
from dataclasses import dataclass
from functools import lru_cache

log = logging.getLogger(__name__)


class ToolCallFormat(enum.Enum):
    JSON = "json"
    """Qwen 3, Qwen 2.5, Hermes: one JSON object per `<tool_call>`."""
    XML = "xml"
    """Qwen3-Coder, Qwen 3.5: `<function=...>` with one `<parameter=...>` block per argument."""


@dataclass(frozen=True)
class TemplateTraits:
    """What a chat template tells about the model that was trained on it."""

    tool_format: ToolCallFormat
    knows_tool_calls: bool
    """The template shows how it writes a call (else JSON is assumed)."""
    thinks: bool
    """The template has a `<think>` block (Qwen 3, Qwen 3.5; not Qwen3-Coder or Qwen 2.5)."""
    preserve_thinking: bool = False
    """It reads `preserve_thinking` (Qwen 3.6, 3.8): past turns' reasoning kept in the prompt."""
    reasoning_effort: bool = False
    """It reads `reasoning_effort` (Qwen 3.8: xhigh by default, medium, low)."""

    @property
    def options(self) -> tuple[str, ...]:
        """The request options (template variables) beyond `enable_thinking` this template takes."""
        return tuple(name for name, taken in (("preserve_thinking", self.preserve_thinking),
                                              ("reasoning_effort", self.reasoning_effort)) if taken)


@lru_cache(maxsize=32)
def template_traits(template: str) -> TemplateTraits:
    """The traits of `template` (cached: the text is the same for every request of a model)."""
    thinks = "<think>" in template
    options = {"preserve_thinking": "preserve_thinking" in template, "reasoning_effort": "reasoning_effort" in template}
    if "<function=" in template and "<parameter=" in template:
        return TemplateTraits(ToolCallFormat.XML, True, thinks, **options)
    return TemplateTraits(ToolCallFormat.JSON, "<tool_call>" in template, thinks, **options)


_warned: set[str] = set()
_warned_lock = threading.Lock()


def tool_call_format(template: str) -> ToolCallFormat:
    """The format to constrain calls to when tools are offered; an unknown template falls back to JSON
    and says so once per template."""
    traits = template_traits(template)
    if not traits.knows_tool_calls:
        digest = hashlib.sha256(template.encode("utf-8", "replace")).hexdigest()[:12]
        with _warned_lock:
            first = digest not in _warned
            _warned.add(digest)
        if first:
            log.warning(
                "the chat template (sha256 %s...) shows no tool-call format; tool calls are constrained "
                "to Qwen 3's JSON form", digest
            )
    return traits.tool_format


__all__ = ["TemplateTraits", "ToolCallFormat", "template_traits", "tool_call_format"]
