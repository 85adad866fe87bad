from __future__ import annotations

import pytest
from onde import ChatMessage, ChatRole, ToolCallRequest, ToolDefinition
from qwen_runtime.types import AssistantMessage, ToolCall, ToolMessage, UserMessage


def test_tool_definition_takes_a_json_string_or_a_dict() -> None:
    as_text = ToolDefinition(
        "read_file", "Read", '{"type": "object", "properties": {"path": {"type": "string"}}}'
    )
    as_dict = ToolDefinition(
        "read_file", "Read", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    assert as_text.to_spec() == as_dict.to_spec()
    assert as_text.to_spec().parameters["properties"]["path"] == {"type": "string"}


def test_malformed_schema_fails_at_construction_naming_the_tool() -> None:
    with pytest.raises(ValueError, match="parameters_schema of tool 'grep' is not valid JSON"):
        ToolDefinition("grep", "Search", '{"type": "object",')
    with pytest.raises(ValueError, match="must be a JSON object"):
        ToolDefinition("grep", "Search", "[1, 2]")
    with pytest.raises(ValueError, match="needs a name"):
        ToolDefinition("", "Search")


def test_tool_call_request_keeps_argument_text_and_parses_it() -> None:
    call = ToolCallRequest("call_1", "edit_file", '{"path": "ü.txt", "old_text": "a", "new_text": "b"}')
    assert call.parsed_arguments == {"path": "ü.txt", "old_text": "a", "new_text": "b"}
    assert list(call.parsed_arguments) == ["path", "old_text", "new_text"]
    runtime = call.to_runtime()
    assert runtime == ToolCall("call_1", "edit_file", {"path": "ü.txt", "old_text": "a", "new_text": "b"})
    assert ToolCallRequest.from_runtime(runtime) == call
    with pytest.raises(ValueError, match="arguments of tool call 'x' is not valid JSON"):
        ToolCallRequest("c", "x", "{nope")


def test_chat_message_converts_both_ways_without_losing_anything() -> None:
    messages = [
        ChatMessage.system("be brief"),
        ChatMessage.user("hi", images=("data:image/png;base64,AA",)),
        ChatMessage.assistant("ok", (ToolCallRequest("c1", "ls", '{"path": "."}'),), reasoning="think"),
        ChatMessage.tool("c1", "a\nb", name="ls"),
    ]
    for message in messages:
        assert ChatMessage.from_runtime(message.to_runtime()) == message
    assert isinstance(messages[3].to_runtime(), ToolMessage)
    assert messages[2].to_runtime() == AssistantMessage(
        "ok", reasoning="think", tool_calls=(ToolCall("c1", "ls", {"path": "."}),)
    )
    from_text = ChatMessage("user", "x")  # type: ignore[arg-type]  # a plain string role is accepted
    assert from_text.to_runtime() == UserMessage("x")
    assert from_text.role is ChatRole.USER


def test_chat_message_rejects_inconsistent_fields() -> None:
    with pytest.raises(ValueError, match="unknown role 'robot'"):
        ChatMessage("robot", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs the tool_call_id"):
        ChatMessage(ChatRole.TOOL, "x")
    with pytest.raises(ValueError, match="only assistant messages"):
        ChatMessage(ChatRole.USER, "x", tool_calls=(ToolCallRequest("c", "ls"),))
