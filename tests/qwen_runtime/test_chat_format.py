"""render_prompt with Qwen 3's own template must produce exactly the text Qwen 3 was trained on."""

from __future__ import annotations

import pytest
from qwen_runtime.errors import QwenRuntimeError
from qwen_runtime.models.chat_format import _compile, compile_beside, render_prompt
from qwen_runtime.models.qwen3_template import QWEN3_CHAT_TEMPLATE
from qwen_runtime.types import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

READ_FILE = ToolSpec(
    name="read_file",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
TOOLS_PREAMBLE = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    '{"type": "function", "function": {"name": "read_file", "description": "Read a file", '
    '"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}'
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
)


def render(
    messages: list[Message],
    tools: tuple[ToolSpec, ...] = (),
    *,
    enable_thinking: bool = True,
    add_generation_prompt: bool = True,
) -> str:
    return render_prompt(
        QWEN3_CHAT_TEMPLATE,
        messages,
        tools,
        enable_thinking=enable_thinking,
        add_generation_prompt=add_generation_prompt,
    )


def call(call_id: str, path: str) -> ToolCall:
    return ToolCall(id=call_id, name="read_file", arguments={"path": path})


def test_system_and_user_turns_end_with_the_assistant_prefix() -> None:
    prompt = render([SystemMessage("You are terse."), UserMessage("Hi")])
    assert prompt == (
        "<|im_start|>system\nYou are terse.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_disabling_thinking_appends_an_empty_think_block() -> None:
    prompt = render([UserMessage("Hi")], enable_thinking=False)
    assert prompt == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"


def test_without_generation_prompt_the_text_ends_after_the_last_turn() -> None:
    prompt = render([UserMessage("Hi")], add_generation_prompt=False)
    assert prompt == "<|im_start|>user\nHi<|im_end|>\n"


def test_tools_are_listed_in_the_system_turn() -> None:
    prompt = render([SystemMessage("You are terse."), UserMessage("Hi")], (READ_FILE,))
    assert prompt == (
        "<|im_start|>system\nYou are terse.\n\n" + TOOLS_PREAMBLE + "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_tools_without_a_system_message_still_open_a_system_turn() -> None:
    prompt = render([UserMessage("Hi")], (READ_FILE,))
    assert prompt.startswith("<|im_start|>system\n" + TOOLS_PREAMBLE + "<|im_start|>user\nHi")


def test_tool_calls_and_consecutive_results_in_the_current_loop_keep_reasoning() -> None:
    prompt = render(
        [
            UserMessage("Read a and b"),
            AssistantMessage(
                content="", reasoning="I need both files.", tool_calls=(call("1", "a"), call("2", "b"))
            ),
            ToolMessage(tool_call_id="1", content="A"),
            ToolMessage(tool_call_id="2", content="B"),
        ]
    )
    assert prompt == (
        "<|im_start|>user\nRead a and b<|im_end|>\n"
        "<|im_start|>assistant\n<think>\nI need both files.\n</think>\n\n"
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "b"}}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response>"
        "<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_reasoning_before_the_last_user_query_is_dropped() -> None:
    prompt = render(
        [
            UserMessage("Read a"),
            AssistantMessage(content="Reading.", reasoning="Need a.", tool_calls=(call("1", "a"),)),
            ToolMessage(tool_call_id="1", content="A"),
            AssistantMessage(content="It says A.", reasoning="Got it."),
            UserMessage("Thanks"),
        ]
    )
    assert "Need a." not in prompt and "Got it." not in prompt and "<think>" not in prompt
    assert prompt == (
        "<|im_start|>user\nRead a<|im_end|>\n"
        '<|im_start|>assistant\nReading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n'
        "</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\nA\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\nIt says A.<|im_end|>\n"
        "<|im_start|>user\nThanks<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_tool_arguments_keep_unicode_and_key_order() -> None:
    args = {"path": "café/日本.txt", "b": 1, "a": "<&>"}
    prompt = render(
        [UserMessage("x"), AssistantMessage(tool_calls=(ToolCall(id="1", name="f", arguments=args),))],
        add_generation_prompt=False,
    )
    assert '{"name": "f", "arguments": {"path": "café/日本.txt", "b": 1, "a": "<&>"}}' in prompt


def test_a_template_that_raises_becomes_a_runtime_error_with_its_message() -> None:
    template = "{{ raise_exception('Only user and assistant roles are supported') }}"
    with pytest.raises(QwenRuntimeError, match="Only user and assistant roles are supported"):
        render_prompt(template, [UserMessage("Hi")])


def test_a_template_that_does_not_parse_is_a_runtime_error() -> None:
    with pytest.raises(QwenRuntimeError, match="does not parse"):
        render_prompt("{% if %}", [UserMessage("Hi")])


def test_the_sandbox_refuses_unsafe_attribute_access() -> None:
    with pytest.raises(QwenRuntimeError, match=r"unsafe|not safely|access"):
        render_prompt("{{ messages.__class__.__mro__ }}", [UserMessage("Hi")])


def test_an_empty_conversation_is_refused() -> None:
    with pytest.raises(QwenRuntimeError, match="empty conversation"):
        render_prompt(QWEN3_CHAT_TEMPLATE, [])


def test_a_template_compiled_beside_a_model_load_is_the_one_the_first_prompt_renders() -> None:
    template = "{% for m in messages %}{{ m.content }}|{% endfor %}<!-- beside -->"
    compile_beside(template).join()
    hits = _compile.cache_info().hits
    assert render_prompt(template, [UserMessage("hi"), UserMessage("there")]) == "hi|there|<!-- beside -->"
    assert _compile.cache_info().hits == hits + 1  # not compiled again


def test_a_template_that_does_not_compile_beside_the_load_is_reported_by_the_render() -> None:
    broken = "{% for m in %}{{ m }}{% endfor %}"
    compile_beside(broken).join()  # nothing escapes the thread
    with pytest.raises(QwenRuntimeError, match="does not parse"):
        render_prompt(broken, [UserMessage("hi")])
