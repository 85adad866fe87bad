from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from onde import ChatHistory, message_from_dict, message_to_dict
from qwen_runtime.images import Image
from qwen_runtime.types import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
calls = st.builds(
    ToolCall,
    id=st.text(),
    name=st.text(min_size=1),
    arguments=st.dictionaries(st.text(), json_values, max_size=4),
)
messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(SystemMessage, content=st.text()),
    st.builds(
        UserMessage,
        content=st.text(),
        images=st.lists(
            st.one_of(st.builds(Image.from_path, st.text(min_size=1)), st.builds(Image.from_bytes, st.binary())),
            max_size=2,
        ).map(tuple),
    ),
    st.builds(
        AssistantMessage,
        content=st.text(),
        reasoning=st.none() | st.text(),
        tool_calls=st.lists(calls, max_size=3).map(tuple),
    ),
    st.builds(ToolMessage, tool_call_id=st.text(), content=st.text(), name=st.none() | st.text()),
)


@given(st.lists(messages, max_size=8))
def test_json_round_trip_is_exact(history: list[Message]) -> None:
    text = ChatHistory(history).to_json()
    again = ChatHistory.from_json(text)
    assert again.messages() == tuple(history)
    # argument key order survives too (dict equality ignores it)
    for old, new in zip(history, again.messages(), strict=True):
        if isinstance(old, AssistantMessage):
            assert isinstance(new, AssistantMessage)
            for a, b in zip(old.tool_calls, new.tool_calls, strict=True):
                assert json.dumps(a.arguments) == json.dumps(b.arguments)
    assert again.to_json() == text


def test_per_message_dicts_are_plain_json() -> None:
    message = AssistantMessage("", tool_calls=(ToolCall("call_1", "ls", {"path": "é"}),))
    data = message_to_dict(message)
    assert data == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "name": "ls", "arguments": {"path": "é"}}],
    }
    assert message_from_dict(json.loads(json.dumps(data))) == message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"role": "robot", "content": ""}, "unknown role 'robot'"),
        ({"role": "user"}, "'content' must be a string"),
        ({"role": "tool", "content": "x"}, "'tool_call_id' must be a string"),
        (
            {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "name": "b", "arguments": "{}"}]},
            "tool call 0: 'arguments' must be a JSON object",
        ),
        ([], "expected a JSON object"),
    ],
)
def test_bad_messages_get_specific_errors(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        message_from_dict(data)


def test_bad_history_documents_are_rejected_clearly() -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        ChatHistory.from_json("{")
    with pytest.raises(ValueError, match="not an onde history"):
        ChatHistory.from_json("[]")
    with pytest.raises(ValueError, match="unsupported onde history version 9"):
        ChatHistory.from_json('{"format": "onde.history", "version": 9, "messages": []}')
    with pytest.raises(ValueError, match="history message 1"):
        ChatHistory.from_json(
            '{"format": "onde.history", "version": 1, "messages": [{"role": "user", "content": "a"}, {}]}'
        )
