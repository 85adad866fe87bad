"""What crosses the host's socket comes back as the same objects, and nothing else is rebuilt."""

from __future__ import annotations

import json

import pytest
from qwen_runtime.host import parse_keep_alive
from qwen_runtime.host.wire import WireError, decode, encode, event_from, request_from
from qwen_runtime.images import Image
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Finished,
    Sampling,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolCallError,
    ToolCallEvent,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
                    "53de0000000c4944415408d763f8ffff3f0005fe02fea7d605b50000000049454e44ae426082")


def round_trip(value: object) -> object:
    return decode(json.loads(json.dumps(encode(value))))


def test_a_whole_request_comes_back_equal() -> None:
    call = ToolCall("c1", "edit", {"path": "a.py", "edits": [{"old": "x", "new": "y"}]}, notes=("cut",))
    request = ChatRequest(
        (SystemMessage("sys"), UserMessage("look", images=(Image.from_bytes(PNG),)),
         AssistantMessage("", reasoning="hmm", tool_calls=(call,)), ToolMessage("c1", "done", name="edit")),
        tools=(ToolSpec("edit", "Edit", {"type": "object", "properties": {"edits": {"type": "array"}},
                                         "required": ["edits"]}),),
        sampling=Sampling(temperature=0.2, stop=("</x>",), seed=3), enable_thinking=False, tool_choice="required",
        thinking_budget=100, reasoning_effort="low",
    )
    back = request_from(json.loads(json.dumps(encode(request))))
    assert back == request
    assert isinstance(back.tools[0].parameters["required"], list)  # a schema stays JSON, not tuples


@pytest.mark.parametrize("event", [
    TextDelta("hi"), ToolCallEvent(ToolCall("c", "read", {"path": "x"})),
    ToolCallError("<tool_call>", "bad", name="read", truncated=True), Usage(prompt_tokens=5, drafted_tokens=2),
    Finished("cancelled", "generation cancelled"),
])
def test_events_come_back_equal(event: object) -> None:
    assert event_from(json.loads(json.dumps(encode(event)))) == event


def test_only_the_protocols_types_are_rebuilt() -> None:
    with pytest.raises(WireError, match="unknown type"):
        decode({"@": "Popen", "args": ["rm"]})
    with pytest.raises(WireError, match="not a ChatRequest"):
        request_from(encode(TextDelta("x")))


@pytest.mark.parametrize(("text", "seconds"), [("5m", 300.0), ("90s", 90.0), ("1h", 3600.0), ("0", 0.0),
                                                ("2.5", 2.5), ("250ms", 0.25), (0, 0.0), (7, 7.0)])
def test_keep_alive_durations(text: str | int, seconds: float) -> None:
    assert parse_keep_alive(text) == seconds


@pytest.mark.parametrize("bad", ["five minutes", "-1", "5 d", "", True, float("inf")])
def test_bad_keep_alive_durations_say_what_is_taken(bad: object) -> None:
    with pytest.raises(ValueError, match="keep-alive time is"):
        parse_keep_alive(bad)  # type: ignore[arg-type]
