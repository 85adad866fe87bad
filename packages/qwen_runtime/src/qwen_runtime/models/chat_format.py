"""Render a conversation into the model's prompt text with its own Jinja chat template.

The environment mirrors Hugging Face's `apply_chat_template` (sandboxed, trim/lstrip blocks, a `tojson`
that keeps non-ASCII and key order, `raise_exception`), so a prompt rendered here is byte-identical to
what the model saw in training and to what transformers would render.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.parser
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..calls.toolformat import template_traits
from ..errors import QwenRuntimeError
from ..types import Message, ToolSpec, message_to_dict


class _GenerationBlocks(jinja2.ext.Extension):
    """Accept HF's `{% generation %}...{% endgeneration %}` (training-mask markers); render the body."""

    tags = {"generation"}  # noqa: RUF012 (jinja2 declares it an instance attribute)

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.Scope(body).set_lineno(lineno)


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    # Jinja's own tojson HTML-escapes and sorts keys; HF's (and the model's training data) does neither.
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


@lru_cache(maxsize=16)
def _compile(template: str) -> jinja2.Template:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols, _GenerationBlocks]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    try:
        return env.from_string(template)
    except jinja2.TemplateSyntaxError as exc:
        raise QwenRuntimeError(f"chat template does not parse (line {exc.lineno}): {exc.message}") from exc


def compile_template(template: str) -> None:
    """Compile `template` now (cached for the renders that follow); raises QwenRuntimeError naming the
    line when it does not parse."""
    _compile(template)


def compile_beside(template: str) -> threading.Thread:
    """Compile `template` in a thread of its own, for a model load to start before llama.cpp's native
    work (GIL released): jinja2 spends ~15 ms of Python on Qwen's template, which a warm start's first
    render otherwise pays after the model is ready. A template that does not compile is left to that
    render to report."""

    def run() -> None:
        with contextlib.suppress(Exception):
            _compile(template)

    thread = threading.Thread(target=run, name="chat template", daemon=True)
    thread.start()
    return thread


def render_prompt(
    template: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] = (),
    *,
    enable_thinking: bool = True,
    add_generation_prompt: bool = True,
    bos_token: str = "",
    eos_token: str = "",
    options: Mapping[str, Any] | None = None,
) -> str:
    """The prompt text for `messages` (and `tools`), ending with the assistant's generation prefix.

    `options` are further template variables (`preserve_thinking`, `reasoning_effort`); one the
    template does not read is refused (it would be silently ignored: the user asked for something
    this model cannot do)."""
    if not messages:
        raise QwenRuntimeError("cannot render a prompt from an empty conversation")
    extra = dict(options or {})
    check_template_options(template, extra)
    compiled = _compile(template)
    try:
        return compiled.render(
            messages=[message_to_dict(m) for m in messages],
            tools=[t.to_openai() for t in tools] or None,
            documents=None,
            add_generation_prompt=add_generation_prompt,
            enable_thinking=enable_thinking,
            bos_token=bos_token,
            eos_token=eos_token,
            **extra,
        )
    except jinja2.TemplateError as exc:
        raise QwenRuntimeError(f"chat template failed: {exc.message or exc}") from exc
    except (TypeError, ValueError, AttributeError, IndexError, KeyError) as exc:
        raise QwenRuntimeError(f"chat template failed: {type(exc).__name__}: {exc}") from exc


def check_template_options(template: str, options: Mapping[str, Any]) -> None:
    """Refuse options the chat template does not read, naming the ones it does."""
    taken = template_traits(template).options
    for name in options:
        if name not in taken:
            offered = ", ".join(taken) if taken else "neither preserve_thinking nor reasoning_effort"
            raise QwenRuntimeError(
                f"this model's chat template does not take {name} (it takes {offered}); "
                f"unset {name} for this model (Qwen 3.6 takes preserve_thinking, Qwen 3.8 both)"
            )
