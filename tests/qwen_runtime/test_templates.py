"""The Qwen templates as data, rendered with our chat_format, and the tool-call format each implies."""

from __future__ import annotations

import logging

import pytest
from qwen_runtime.calls.toolformat import ToolCallFormat, template_traits, tool_call_format
from qwen_runtime.models.chat_format import render_prompt
from qwen_runtime.models.qwen3_template import QWEN3_CHAT_TEMPLATE
from qwen_runtime.models.templates import TEMPLATE_NAMES, load_template
from qwen_runtime.parsing import parse_reply
from qwen_runtime.types import (
    AssistantMessage,
    Completion,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

READ = ToolSpec(
    "read_file",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"},
                                      "opts": {"type": "object"}}, "required": ["path"]},
)
CALL = ToolCall("call_1", "read_file", {"path": "src/a <b>.py", "limit": 20, "opts": {"raw": True}})
CONVERSATION = (
    SystemMessage("You are a coding agent."),
    UserMessage("Read src/a <b>.py"),
    AssistantMessage("", reasoning="I should read it.", tool_calls=(CALL,)),
    ToolMessage("call_1", "print('hi')"),
)
XML_CALL = (
    "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a <b>.py\n</parameter>\n"
    "<parameter=limit>\n20\n</parameter>\n<parameter=opts>\n{\"raw\": true}\n</parameter>\n</function>\n</tool_call>"
)


def test_every_template_loads_and_qwen3_is_the_one_we_always_had() -> None:
    assert set(TEMPLATE_NAMES) == {"qwen3", "qwen3-coder", "qwen3.5", "qwen3.6", "qwen3.8"}
    assert load_template("qwen3") == QWEN3_CHAT_TEMPLATE
    with pytest.raises(ValueError, match=r"unknown chat template 'qwen4'.*qwen3-coder"):
        load_template("qwen4")


@pytest.mark.parametrize(
    ("name", "tool_format", "thinks"),
    [("qwen3", ToolCallFormat.JSON, True), ("qwen3-coder", ToolCallFormat.XML, False),
     ("qwen3.5", ToolCallFormat.XML, True)],
)
def test_the_tool_call_format_is_read_from_the_template(name: str, tool_format: ToolCallFormat, thinks: bool) -> None:
    traits = template_traits(load_template(name))
    assert (traits.tool_format, traits.knows_tool_calls, traits.thinks) == (tool_format, True, thinks)


def test_an_unknown_template_falls_back_to_json_and_says_so_once(caplog: pytest.LogCaptureFixture) -> None:
    template = "{% for m in messages %}{{ m.content }}{% endfor %} (unknown-format test)"
    with caplog.at_level(logging.WARNING, logger="qwen_runtime.calls.toolformat"):
        assert tool_call_format(template) is ToolCallFormat.JSON
        assert tool_call_format(template) is ToolCallFormat.JSON
    assert len([r for r in caplog.records if "no tool-call format" in r.getMessage()]) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="qwen_runtime.calls.toolformat"):
        assert tool_call_format(load_template("qwen3.5")) is ToolCallFormat.XML
    assert not caplog.records


@pytest.mark.parametrize("name", ["qwen3-coder", "qwen3.5"])
def test_xml_templates_render_tools_past_xml_calls_and_tool_results(name: str) -> None:
    prompt = render_prompt(load_template(name), CONVERSATION, (READ,))
    assert "You have access to the following functions" in prompt and "read_file" in prompt
    assert XML_CALL in prompt  # strings raw, other values JSON
    assert "<tool_response>\nprint('hi')\n</tool_response>" in prompt
    assert prompt.count("<|im_start|>user") == 2 and prompt.startswith("<|im_start|>system\n")


def test_a_rendered_xml_call_parses_back_to_the_same_call() -> None:
    prompt = render_prompt(load_template("qwen3.5"), CONVERSATION, (READ,))
    reply = prompt[prompt.rindex("<tool_call>") : prompt.rindex("</tool_call>") + len("</tool_call>")]
    completion = Completion()
    for event in parse_reply(reply, (READ,)):
        completion.add(event)
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [(CALL.name, CALL.arguments)]


def test_qwen35_opens_the_reply_in_think_and_closes_it_empty_without_thinking() -> None:
    template = load_template("qwen3.5")
    question = (UserMessage("hi"),)
    assert render_prompt(template, question).endswith("<|im_start|>assistant\n<think>\n")
    assert render_prompt(template, question, enable_thinking=False).endswith(
        "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    )
    # reasoning after the last user turn is kept (an agent loop), and rendered inside <think>
    assert "<think>\nI should read it.\n</think>\n\n<tool_call>" in render_prompt(template, CONVERSATION, (READ,))


def test_qwen3_coder_has_no_think_block() -> None:
    prompt = render_prompt(load_template("qwen3-coder"), (UserMessage("hi"),), enable_thinking=True)
    assert prompt.endswith("<|im_start|>assistant\n") and "<think>" not in prompt
