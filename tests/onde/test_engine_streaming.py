"""Streaming, async forms, cancellation and concurrency of ChatEngine against the scripted runtime."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from onde import (
    Busy,
    Cancelled,
    ChatEngine,
    ChatMessage,
    Done,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    ToolDefinition,
    ToolResult,
)
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import UserMessage

CallTurn = Callable[..., dict[str, Any]]


def test_stream_keeps_reasoning_and_text_apart_and_ends_with_the_result() -> None:
    runtime = ScriptedRuntime([{"reasoning": "thinking hard", "text": "the answer is 42"}], chunk_size=4)
    engine = ChatEngine(runtime)
    events = list(engine.stream_message("question"))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert (reasoning, text) == ("thinking hard", "the answer is 42")
    assert sum(isinstance(e, TextDelta) for e in events) > 1  # really streamed
    last = events[-1]
    assert isinstance(last, Done) and last.type == "done"
    assert last.finish_reason == "stop" and last.usage.completion_tokens > 0
    assert last.result.text == "the answer is 42"
    assert not any(isinstance(e, Done) for e in events[:-1])
    assert {e.type for e in events[:-1]} == {"reasoning", "text"}
    assert engine.history()[-1] == ChatMessage.assistant("the answer is 42")


def test_stream_with_tools_then_stream_results(tools: list[ToolDefinition], call_turn: CallTurn) -> None:
    engine = ChatEngine(ScriptedRuntime([call_turn(path="a.txt"), "read it"]))
    events = list(engine.stream_message_with_tools("go", tools))
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert len(calls) == 1 and calls[0].name == "read_file" and calls[0].parsed_arguments == {"path": "a.txt"}
    last = events[-1]
    assert isinstance(last, Done) and last.finish_reason == "tool_calls"
    after = list(engine.stream_tool_results([ToolResult(calls[0].id, "x")], None))
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) == "read it"


async def test_async_forms_share_the_same_behaviour(tools: list[ToolDefinition], call_turn: CallTurn) -> None:
    runtime = ScriptedRuntime([call_turn(path="a"), "done", "streamed", "stateless", "gen-stream"])
    engine = ChatEngine(runtime, system_prompt="sys")
    result = await engine.asend_message_with_tools("go", tools)
    final = await engine.asend_tool_results([ToolResult(result.tool_calls[0].id, "x")], tools)
    assert final.text == "done"
    events: list[StreamEvent] = [e async for e in engine.astream_message("more")]
    assert isinstance(events[-1], Done) and events[-1].result.text == "streamed"
    assert (await engine.agenerate([ChatMessage.user("q")])).text == "stateless"
    assert [e.text async for e in engine.astream_generate([UserMessage("q")]) if isinstance(e, TextDelta)] == [
        "gen-stre",
        "am",
    ]
    assert len(engine.history()) == 6


async def test_sync_calls_work_from_inside_a_running_loop() -> None:
    engine = ChatEngine(ScriptedRuntime(["ok"]))
    assert engine.send_message("hi").text == "ok"


async def test_async_send_message() -> None:
    engine = ChatEngine(ScriptedRuntime(["ok"]))
    assert (await engine.asend_message("hi")).text == "ok"
    assert engine.history()[-1].content == "ok"


def _slow_engine(text: str = "word " * 200) -> tuple[ChatEngine, ScriptedRuntime]:
    runtime = ScriptedRuntime([text, "after"], chunk_size=5, chunk_delay=0.05)  # 10 s, were it let run
    return ChatEngine(runtime), runtime


def _cancel_soon(engine: ChatEngine, delay: float = 0.1) -> threading.Thread:
    def later() -> None:
        time.sleep(delay)
        engine.cancel()

    thread = threading.Thread(target=later)
    thread.start()
    return thread


def test_cancel_from_another_thread_stops_a_send_and_keeps_history_consistent() -> None:
    engine, _ = _slow_engine()
    assert engine.cancel() is False  # nothing running
    thread = _cancel_soon(engine)
    with pytest.raises(Cancelled) as caught:
        engine.send_message("write a lot")
    thread.join()
    partial = caught.value.partial
    assert partial is not None and partial.finish_reason == "cancelled" and 0 < len(partial.text) < 1000
    assert engine.history() == [ChatMessage.user("write a lot")]  # no half reply
    assert engine.send_message("next").text == "after"  # the engine is usable again


@pytest.mark.script_may_remain  # the turn after the cancelled one is never asked for
def test_a_cancelled_stream_ends_with_a_cancelled_done_event() -> None:
    engine, _ = _slow_engine()
    thread = _cancel_soon(engine)
    events = list(engine.stream_message("write a lot"))
    thread.join()
    last = events[-1]
    assert isinstance(last, Done) and last.finish_reason == "cancelled"
    assert len(engine.history()) == 1


@pytest.mark.script_may_remain  # the turn after the cancelled one is never asked for
async def test_cancelling_the_async_task_stops_generation() -> None:
    engine, _ = _slow_engine()
    task = asyncio.create_task(engine.asend_message("write a lot"))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine.info().status == "ready"
    assert len(engine.history()) == 1


def test_leaving_a_sync_stream_early_frees_the_engine() -> None:
    engine, _ = _slow_engine()
    for event in engine.stream_message("write a lot"):
        assert isinstance(event, TextDelta)
        break
    assert engine.info().status == "ready"
    assert engine.history() == [ChatMessage.user("write a lot")]
    assert engine.send_message("next").text == "after"


@pytest.mark.script_may_remain  # the turn after the cancelled one is never asked for
def test_a_second_call_while_generating_is_refused() -> None:
    engine, _ = _slow_engine()
    errors: list[BaseException] = []

    def other() -> None:
        while engine.info().status != "generating":  # the send under way (a fixed sleep lost on a busy machine)
            time.sleep(0.005)
        for call in (lambda: engine.send_message("x"), engine.clear_history, engine.unload_model):
            try:
                call()
            except Busy as exc:
                errors.append(exc)
        engine.cancel()

    thread = threading.Thread(target=other)
    thread.start()
    with pytest.raises(Cancelled):
        engine.send_message("write a lot")
    thread.join()
    assert len(errors) == 3 and "already running" in str(errors[0])
