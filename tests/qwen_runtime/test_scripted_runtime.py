"""ScriptedRuntime: the in-process scripted model every upper layer tests against."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime, ScriptExhausted
from qwen_runtime.runtime import CancelToken
from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Finished,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolSpec,
    Usage,
    UserMessage,
)

pytestmark = pytest.mark.timeout(10)

READ = ToolSpec("read_file", "Read", {"type": "object", "properties": {"path": {"type": "string"}}})


def ask(text: str = "hi") -> ChatRequest:
    return ChatRequest(messages=(UserMessage(text),), tools=(READ,))


def test_replays_turns_in_order_from_strings_dicts_and_turns() -> None:
    rt = ScriptedRuntime(
        [
            "plain text",
            {"text": "from a dict", "reasoning": "why"},
            ScriptedTurn(tool_calls=(ScriptedCall("read_file", {"path": "a"}, id="c9"),)),
        ]
    )
    first, second, third = (rt.complete(ask()) for _ in range(3))
    assert first.text == "plain text" and first.finish_reason == "stop"
    assert (second.text, second.reasoning) == ("from a dict", "why")
    assert third.tool_calls == [ToolCall("c9", "read_file", {"path": "a"})]
    assert third.finish_reason == "tool_calls"
    rt.assert_consumed()


def test_streams_in_chunks_and_ends_with_usage_then_finished() -> None:
    events = list(
        ScriptedRuntime([ScriptedTurn(reasoning="abcdefgh", text="0123456789")], chunk_size=4).stream(ask())
    )
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["abcd", "efgh"]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["0123", "4567", "89"]
    assert isinstance(events[-2], Usage) and isinstance(events[-1], Finished)


def test_tool_calls_without_ids_get_fresh_ones() -> None:
    turn = ScriptedTurn(tool_calls=(ScriptedCall("read_file", {"path": "a"}), ScriptedCall("read_file", {})))
    calls = ScriptedRuntime([turn]).complete(ask()).tool_calls
    assert len({c.id for c in calls}) == 2 and all(c.id for c in calls)


def test_responder_function_answers_from_the_request() -> None:
    rt = ScriptedRuntime(lambda request: f"you said {request.messages[-1].content}")
    assert rt.complete(ask("ping")).text == "you said ping"
    assert rt.complete(ask("pong")).text == "you said pong"
    rt.assert_consumed()  # a responder never runs out


def test_records_every_request() -> None:
    rt = ScriptedRuntime(["a", "b"])
    rt.complete(ask("one"))
    rt.complete(ask("two"))
    assert [r.messages[0] for r in rt.requests] == [UserMessage("one"), UserMessage("two")]


def test_asking_past_the_end_of_the_script_is_a_clear_error() -> None:
    rt = ScriptedRuntime(["only"])
    rt.complete(ask())
    with pytest.raises(ScriptExhausted, match="asked for turn 2 but the script has 1"):
        rt.complete(ask())


@pytest.mark.script_may_remain  # it leaves turns unused on purpose
def test_unconsumed_turns_are_reported() -> None:
    rt = ScriptedRuntime(["a", "b", "c"])
    rt.complete(ask())
    with pytest.raises(AssertionError, match="2 of 3 turns unused"):
        rt.assert_consumed()
    rt.add_turns("d")
    assert rt.remaining == 3


def test_raw_text_goes_through_the_reply_parser() -> None:
    raw = (
        "<think>\nLook first.\n</think>\n\nReading.\n"
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "x.py"}}\n</tool_call>'
    )
    done = ScriptedRuntime([ScriptedTurn(raw=raw)], chunk_size=3).complete(ask())
    assert done.reasoning.strip() == "Look first."
    assert done.text.strip() == "Reading."
    assert [(c.name, c.arguments) for c in done.tool_calls] == [("read_file", {"path": "x.py"})]
    assert done.finish_reason == "tool_calls"


def test_raw_tool_call_with_bad_arguments_becomes_a_tool_call_error() -> None:
    raw = '<tool_call>\n{"name": "read_file", "arguments": {"path": 3}}\n</tool_call>'
    done = ScriptedRuntime([ScriptedTurn(raw=raw)]).complete(ask())
    assert done.tool_calls == [] and done.tool_call_errors[0].name == "read_file"


def test_cancel_mid_stream_ends_with_cancelled() -> None:
    rt = ScriptedRuntime(["word " * 200], chunk_size=5, chunk_delay=0.1)  # 20 s, were it not cancelled
    token = CancelToken()
    threading.Timer(0.35, token.cancel).start()
    done = rt.complete(ask(), token)
    assert done.finish_reason == "cancelled"
    assert 0 < len(done.text) < len("word " * 200)


def test_usage_counts_the_unchanged_message_prefix_as_cached() -> None:
    rt = ScriptedRuntime(["first", "second"], context_size=1234)
    first = rt.complete(ask("hello"))
    history = (UserMessage("hello"), AssistantMessage("first"), UserMessage("more"))
    second = rt.complete(ChatRequest(history))
    assert first.usage.cached_prompt_tokens == 0
    assert 0 < second.usage.cached_prompt_tokens < second.usage.prompt_tokens
    assert second.usage.context_size == 1234 == rt.context_size


def test_loads_a_scenario_file(tmp_path: Path) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"turns": [{"text": "from file"}]}))
    assert ScriptedRuntime.from_file(path).complete(ask()).text == "from file"


async def test_async_stream_replays_too() -> None:
    done = await ScriptedRuntime(["async reply"]).acomplete(ask())
    assert done.text == "async reply"
