"""ChatEngine's conversation calls against the scripted runtime: what was sent, what was kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from onde import (
    ChatEngine,
    ChatMessage,
    ChatRole,
    InferenceError,
    NoModelLoaded,
    SamplingConfig,
    ToolCallRequest,
    ToolDefinition,
    ToolResult,
)
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import AssistantMessage, SystemMessage, ToolCall, ToolMessage, UserMessage

CallTurn = Callable[..., dict[str, Any]]


def test_send_message_sends_system_prompt_and_history_and_records_the_reply() -> None:
    runtime = ScriptedRuntime(["Hello!", "Fine."])
    engine = ChatEngine(runtime, system_prompt="Be brief.")
    first = engine.send_message("hi")
    assert first.text == "Hello!" and first.finish_reason == "stop" and not first.is_empty
    assert first.duration_secs >= 0 and first.duration_display.endswith("ms")
    engine.send_message("how are you?")
    assert runtime.requests[1].messages == (
        SystemMessage("Be brief."),
        UserMessage("hi"),
        AssistantMessage("Hello!"),
        UserMessage("how are you?"),
    )
    assert [m.role for m in engine.history()] == [ChatRole.USER, ChatRole.ASSISTANT] * 2
    assert runtime.requests[0].tools == ()


def test_thinking_is_dropped_from_history_unless_kept() -> None:
    runtime = ScriptedRuntime([{"reasoning": "let me think", "text": "4"}] * 2)
    engine = ChatEngine(runtime)
    result = engine.send_message("2+2?")
    assert (result.reasoning, result.text) == ("let me think", "4")
    assert engine.history()[-1] == ChatMessage.assistant("4")
    engine.set_keep_thinking(True)
    engine.send_message("again")
    assert engine.history()[-1] == ChatMessage.assistant("4", reasoning="let me think")


def test_tool_call_round_trip(tools: list[ToolDefinition], call_turn: CallTurn) -> None:
    runtime = ScriptedRuntime([call_turn(path="notes.txt"), "The file says hello."])
    engine = ChatEngine(runtime, system_prompt="sys")
    result = engine.send_message_with_tools("what is in notes.txt?", tools)
    assert result.finish_reason == "tool_calls" and result.text == "" and result.empty_reason is None
    [call] = result.tool_calls
    assert (call.name, call.parsed_arguments) == ("read_file", {"path": "notes.txt"})
    assert runtime.requests[0].tools == (tools[0].to_spec(),)
    assert runtime.requests[0].tool_choice == "auto"

    final = engine.send_tool_results([ToolResult(call.id, "hello")], tools)
    assert final.text == "The file says hello."
    sent = runtime.requests[1].messages
    assert sent[-2] == AssistantMessage(
        "", tool_calls=(ToolCall(call.id, "read_file", {"path": "notes.txt"}),)
    )
    assert sent[-1] == ToolMessage(call.id, "hello", name="read_file")
    assert [m.role for m in engine.history()] == ["user", "assistant", "tool", "assistant"]
    assert engine.history()[1].tool_calls == (call,)


def test_tool_results_without_tools_forbid_calls_but_keep_the_prompt_prefix(
    tools: list[ToolDefinition], call_turn: CallTurn
) -> None:
    runtime = ScriptedRuntime([call_turn(path="a"), "done"])
    engine = ChatEngine(runtime)
    call = engine.send_message_with_tools("go", tools).tool_calls[0]
    engine.send_tool_results([ToolResult(call.id, "x")], None)
    last = runtime.requests[-1]
    assert last.tool_choice == "none" and last.offered_tools() == ()
    assert last.tools == runtime.requests[0].tools


def test_several_calls_in_one_turn_are_answered_together(tools: list[ToolDefinition]) -> None:
    turn: dict[str, object] = {
        "tool_calls": [{"name": "read_file", "arguments": {"path": p}} for p in ("a", "b")]
    }
    runtime = ScriptedRuntime([turn, "both read"])
    engine = ChatEngine(runtime)
    calls = engine.send_message_with_tools("read a and b", tools).tool_calls
    assert len(calls) == 2 and calls[0].id != calls[1].id
    engine.send_tool_results([ToolResult(c.id, c.parsed_arguments["path"].upper()) for c in calls], tools)
    assert [m.content for m in runtime.requests[-1].messages[-2:]] == ["A", "B"]


def test_tool_results_are_checked_against_the_calls_made(
    tools: list[ToolDefinition], call_turn: CallTurn
) -> None:
    runtime = ScriptedRuntime([call_turn(path="a")])
    engine = ChatEngine(runtime)
    with pytest.raises(ValueError, match="no tool calls to answer"):
        engine.send_tool_results([ToolResult("call_9", "x")], None)
    engine.send_message_with_tools("go", tools)
    with pytest.raises(ValueError, match="unknown call id 'nope'"):
        engine.send_tool_results([ToolResult("nope", "x")], None)
    with pytest.raises(ValueError, match="at least one ToolResult"):
        engine.send_tool_results([], None)
    assert len(engine.history()) == 2  # nothing recorded by the rejected calls


def test_tool_choice_and_tool_lists_are_validated(tools: list[ToolDefinition], call_turn: CallTurn) -> None:
    engine = ChatEngine(ScriptedRuntime([call_turn(path="a")]))
    with pytest.raises(ValueError, match="tool_choice must be"):
        engine.send_message_with_tools("go", tools, tool_choice="grep")
    with pytest.raises(ValueError, match="repeated: read_file"):
        engine.send_message_with_tools("go", tools * 2)
    with pytest.raises(TypeError, match="not a single tool"):
        engine.send_message_with_tools("go", tools[0])  # type: ignore[arg-type]
    engine.send_message_with_tools("go", tools, tool_choice="read_file")


def test_a_model_without_tool_support_refuses_tools(tools: list[ToolDefinition]) -> None:
    engine = ChatEngine(ScriptedRuntime([], supports_tools=False))
    assert not engine.info().tool_capable
    with pytest.raises(InferenceError, match="does not support tool calling"):
        engine.send_message_with_tools("go", tools)


def test_generate_is_stateless() -> None:
    runtime = ScriptedRuntime(["summary"])
    engine = ChatEngine(runtime, system_prompt="sys")
    engine.push_history(ChatMessage.user("kept"))
    result = engine.generate([ChatMessage.user("summarise")], SamplingConfig.deterministic())
    assert result.text == "summary"
    assert runtime.requests[0].messages == (UserMessage("summarise"),)
    assert runtime.requests[0].sampling.temperature == 0.0
    assert engine.history() == [ChatMessage.user("kept")]
    with pytest.raises(ValueError, match="at least one message"):
        engine.generate([])


def test_sampling_and_system_prompt_settings_reach_the_request() -> None:
    runtime = ScriptedRuntime(["a", "b"])
    engine = ChatEngine(runtime)
    engine.set_sampling(SamplingConfig.qwen3_non_thinking(max_tokens=99))
    engine.set_system_prompt("S")
    engine.send_message("1")
    request = runtime.requests[0]
    assert (request.sampling.max_tokens, request.sampling.top_p, request.enable_thinking) == (99, 0.8, False)
    assert request.messages[0] == SystemMessage("S")
    engine.clear_system_prompt()
    engine.set_sampling(SamplingConfig.coding())
    engine.send_message("2")
    assert runtime.requests[1].messages[0] == UserMessage("1")
    assert runtime.requests[1].enable_thinking is True
    assert runtime.requests[1].sampling.frequency_penalty == 1.15
    with pytest.raises(TypeError, match="SamplingConfig"):
        engine.set_sampling({"temperature": 1})  # type: ignore[arg-type]


def test_history_calls_work_without_a_model() -> None:
    engine = ChatEngine()
    assert not engine.is_loaded() and engine.info().status == "not_loaded"
    engine.push_history(ChatMessage.system("cwd is /tmp"))
    engine.push_history(UserMessage("raw runtime messages work too"))
    assert engine.info().history_length == 2
    with pytest.raises(NoModelLoaded):
        engine.send_message("hi")
    assert engine.clear_history() == 2
    assert engine.history() == []
    with pytest.raises(TypeError, match="expected a ChatMessage"):
        engine.push_history("text")  # type: ignore[arg-type]


def test_a_saved_and_reloaded_history_gives_the_identical_next_prompt(
    tools: list[ToolDefinition], call_turn: CallTurn
) -> None:
    script: list[str | dict[str, object]] = [
        call_turn(path="dir/ü.txt", reasoning="hm"),
        "Done: 日本",
        "next",
    ]
    first = ScriptedRuntime(script)
    engine = ChatEngine(first, system_prompt="sys", sampling=SamplingConfig.qwen3_thinking())
    engine.push_history(ChatMessage.system("The project is in /work"))
    call = engine.send_message_with_tools("read it", tools).tool_calls[0]
    engine.send_tool_results([ToolResult(call.id, '{"ok": true}')], tools)
    saved = engine.history_to_json()
    engine.send_message_with_tools("and now?", tools)

    second = ScriptedRuntime(["next"])
    restored = ChatEngine(second, system_prompt="sys", sampling=SamplingConfig.qwen3_thinking())
    assert restored.history_from_json(saved) == 5
    restored.send_message_with_tools("and now?", tools)
    assert second.requests[0] == first.requests[-1]
    assert restored.history_to_json() == engine.history_to_json()


def test_set_history_and_history_messages() -> None:
    engine = ChatEngine()
    call = ToolCallRequest("c1", "ls", '{"path": "."}')
    engine.set_history(
        [ChatMessage.user("a"), ChatMessage.assistant("", (call,)), ChatMessage.tool("c1", "x")]
    )
    assert engine.history_messages()[1] == AssistantMessage(
        "", tool_calls=(ToolCall("c1", "ls", {"path": "."}),)
    )
