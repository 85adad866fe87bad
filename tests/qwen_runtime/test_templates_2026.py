"""Qwen 3.6's and 3.8's templates as data: the copy we ship, rendering identical to transformers'
`apply_chat_template` (tools, past calls, results, reasoning; `preserve_thinking` and
`reasoning_effort` in every setting), and options refused on templates that do not take them."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from qwen_runtime.calls.toolformat import ToolCallFormat, template_traits
from qwen_runtime.errors import QwenRuntimeError
from qwen_runtime.models.chat_format import render_prompt
from qwen_runtime.models.templates import TEMPLATE_NAMES, load_template
from qwen_runtime.testing.testmodel import build_test_tokenizer
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
    message_to_dict,
)

#: sha256 of llama.cpp's `models/templates/Qwen3.8-27B.jinja` (VeroFess/llama.cpp_3090x2_qwen3.8_q8_opt,
#: commit 04e80a2bba78b452323109e29f1195753d147fe7): the file we ship must stay byte-for-byte that copy
QWEN38_LLAMA_CPP_SHA256 = "6ebc31b7661fd25bbf5d9c461ac140a46ede38be637e272737cb98298e4e4182"

TOOLS = (
    ToolSpec("read_file", "Read a file", {"type": "object", "properties": {
        "path": {"type": "string"}, "limit": {"type": "integer"}, "raw": {"type": "boolean"},
        "opts": {"type": "object"}}, "required": ["path"]}),
)
CONVERSATION = (
    SystemMessage("You are a coding agent."),
    UserMessage("Read a.py"),
    AssistantMessage("", reasoning="I should read a.py first.",
                     tool_calls=(ToolCall("c1", "read_file", {"path": "a.py"}),)),
    ToolMessage("c1", "print('hi')"),
    AssistantMessage("It prints hi.", reasoning="The file prints hi."),
    UserMessage("Now read src/b <c>.py"),
    AssistantMessage("Reading it.", reasoning="Second read.", tool_calls=(
        ToolCall("c2", "read_file", {"path": "src/b <c>.py", "limit": 20, "raw": True, "opts": {"x": [1]}}),)),
    ToolMessage("c2", "x = 1"),
)
EFFORTS: dict[str, tuple[str | None, ...]] = {"qwen3.6": (None,), "qwen3.8": (None, "low", "medium", "xhigh")}


def test_the_2026_templates_are_shipped_and_qwen38_is_llama_cpps_copy() -> None:
    assert {"qwen3.6", "qwen3.8"} <= set(TEMPLATE_NAMES)
    digest = hashlib.sha256(load_template("qwen3.8").encode("utf-8")).hexdigest()
    assert digest == QWEN38_LLAMA_CPP_SHA256


@pytest.mark.parametrize(("name", "options"), [
    ("qwen3", ()), ("qwen3-coder", ()), ("qwen3.5", ()),
    ("qwen3.6", ("preserve_thinking",)), ("qwen3.8", ("preserve_thinking", "reasoning_effort")),
])
def test_each_template_says_which_options_it_takes(name: str, options: tuple[str, ...]) -> None:
    traits = template_traits(load_template(name))
    assert traits.options == options
    if name in ("qwen3.6", "qwen3.8"):
        assert (traits.tool_format, traits.thinks) == (ToolCallFormat.XML, True)


def _hf_render(template: str, thinking: bool, options: dict[str, Any]) -> str:
    from transformers import PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(tokenizer_object=build_test_tokenizer("qwen35"), eos_token="<|im_end|>")
    rendered = fast.apply_chat_template(
        [message_to_dict(m) for m in CONVERSATION], tools=[t.to_openai() for t in TOOLS],
        chat_template=template, add_generation_prompt=True, enable_thinking=thinking, tokenize=False, **options,
    )
    assert isinstance(rendered, str)
    return rendered


@pytest.mark.slow  # imports transformers
@pytest.mark.parametrize("name", ["qwen3.6", "qwen3.8"])
def test_rendering_matches_transformers_for_every_option(name: str) -> None:
    template = load_template(name)
    seen: set[str] = set()
    for thinking in (True, False):
        for preserve in (None, True, False):
            for effort in EFFORTS[name]:
                request = ChatRequest(CONVERSATION, TOOLS, enable_thinking=thinking, preserve_thinking=preserve,
                                      reasoning_effort=effort)
                ours = render_prompt(template, CONVERSATION, TOOLS, enable_thinking=thinking,
                                     options=request.template_options())
                assert ours == _hf_render(template, thinking, request.template_options()), (thinking, preserve, effort)
                assert "<parameter=limit>\n20\n</parameter>" in ours and "<parameter=raw>\ntrue\n" in ours
                assert "<tool_response>\nx = 1\n</tool_response>" in ours
                seen.add(ours)
    assert len(seen) >= 4  # thinking and preserve_thinking change the prompt (and the effort on 3.8)


def _render(name: str, **options: Any) -> str:
    request = ChatRequest(CONVERSATION, TOOLS, **options)
    return render_prompt(load_template(name), CONVERSATION, TOOLS, options=request.template_options())


def test_qwen36_drops_earlier_reasoning_unless_preserve_thinking_is_on() -> None:
    assert "I should read a.py first." not in _render("qwen3.6")
    assert "I should read a.py first." not in _render("qwen3.6", preserve_thinking=False)
    assert "<think>\nI should read a.py first.\n</think>" in _render("qwen3.6", preserve_thinking=True)
    assert "<think>\nSecond read.\n</think>" in _render("qwen3.6")  # the current loop keeps its own


def test_qwen38_keeps_earlier_reasoning_by_default_and_takes_an_effort() -> None:
    assert "<think>\nI should read a.py first.\n</think>" in _render("qwen3.8")
    assert "I should read a.py first." not in _render("qwen3.8", preserve_thinking=False)
    assert "Reasoning effort is set to xhigh" in _render("qwen3.8")
    low = _render("qwen3.8", reasoning_effort="low")
    assert low.startswith("<|im_start|>system\nReasoning effort is set to low. Keep your thinking brief")
    assert "Reasoning effort" not in _render("qwen3.8", reasoning_effort="medium")


@pytest.mark.parametrize(("name", "option", "value"), [
    ("qwen3.5", "preserve_thinking", True), ("qwen3", "preserve_thinking", False),
    ("qwen3.6", "reasoning_effort", "low"), ("qwen3-coder", "reasoning_effort", "low"),
])
def test_an_option_the_template_does_not_take_is_refused_by_name(name: str, option: str, value: Any) -> None:
    with pytest.raises(QwenRuntimeError, match=rf"chat template does not take {option}"):
        _render(name, **{option: value})


def test_an_effort_qwen38_does_not_know_is_its_own_error() -> None:
    with pytest.raises(QwenRuntimeError, match=r"Unexpected reasoning effort high\. Supported types are xhigh"):
        _render("qwen3.8", reasoning_effort="high")
