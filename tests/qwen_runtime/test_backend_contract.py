"""One parametrized suite, four backends: messages in, events out, tool calls parsed, cancel, usage.

The scripted backends are told what to say; the tiny random-weight models say anything, so for them the
suite checks the shape of the stream and relies on the tool-call constraint for valid calls.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import validate
from qwen_runtime import (
    CancelToken,
    ChatRequest,
    Finished,
    ReasoningDelta,
    Runtime,
    Sampling,
    SystemMessage,
    TextDelta,
    ToolSpec,
    Usage,
    UserMessage,
)
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.testing.server import ScriptedServer

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 20}, "unit": {"enum": ["c", "f"]}},
        "required": ["city"],
        "additionalProperties": False,
    },
)
LONG_TEXT = "The quick brown fox jumps over the lazy dog. " * 200
TURNS: list[Any] = [
    {"reasoning": "Thinking about it.", "text": "Hello there, friend."},
    {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}]},
    LONG_TEXT,
    "async reply",
]
BACKENDS = ["scripted", "openai", "llamacpp", "transformers"]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[str, Runtime]]:
    kind = request.param
    if kind == "scripted":
        yield kind, ScriptedRuntime(list(TURNS), chunk_size=4, chunk_delay=0.002)
    elif kind == "openai":
        from qwen_runtime.backends.openai_compat import OpenAICompatRuntime

        with ScriptedServer(list(TURNS), chunk_size=4, chunk_delay=0.002) as server:
            yield kind, OpenAICompatRuntime(server.base_url, "scripted-qwen", max_retries=0)
    elif kind == "llamacpp":
        from qwen_runtime.backends.llamacpp import LlamaCppRuntime

        tiny: Path = request.getfixturevalue("tiny_gguf")
        runtime = LlamaCppRuntime(str(tiny), n_ctx=2048)
        yield kind, runtime
        runtime.close()
    else:
        from qwen_runtime.backends.transformers_backend import TransformersRuntime

        folder: Path = request.getfixturevalue("tiny_hf_dir")
        runtime = TransformersRuntime(str(folder), n_ctx=2048, n_threads=1)
        yield kind, runtime
        runtime.close()


def scripted(kind: str) -> bool:
    return kind in ("scripted", "openai")


def ask(text: str, **kwargs: Any) -> ChatRequest:
    sampling = kwargs.pop("sampling", Sampling(max_tokens=24, seed=7, temperature=0.8))
    return ChatRequest((SystemMessage("You are terse."), UserMessage(text)), sampling=sampling, **kwargs)


def test_1_messages_in_events_out(backend: tuple[str, Runtime]) -> None:
    kind, runtime = backend
    events = list(runtime.stream(ask("Say hello")))
    assert isinstance(events[-1], Finished) and isinstance(events[-2], Usage)
    assert events[-1].reason in ("stop", "length")
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    if scripted(kind):
        assert text == "Hello there, friend." and reasoning == "Thinking about it."
    else:
        assert text or reasoning  # random weights: something, in the right channels
    usage = events[-2]
    assert isinstance(usage, Usage) and usage.prompt_tokens > 0 and usage.completion_tokens > 0


def test_2_tool_calls_parsed_and_valid(backend: tuple[str, Runtime]) -> None:
    kind, runtime = backend
    completion = runtime.complete(ask("Weather in Paris?", tools=(WEATHER,), tool_choice="required", thinking_budget=16,
                                      sampling=Sampling(max_tokens=80, seed=3, temperature=0.8)))
    assert completion.tool_calls, completion.to_dict()
    call = completion.tool_calls[0]
    assert call.name == "get_weather" and call.id
    validate(call.arguments, WEATHER.parameters)
    assert json.loads(call.arguments_json()) == call.arguments
    if scripted(kind):
        assert call.arguments == {"city": "Paris", "unit": "c"}
        assert completion.finish_reason == "tool_calls"


def test_3_cancel_stops_promptly(backend: tuple[str, Runtime]) -> None:
    _, runtime = backend
    token = CancelToken()
    events = []
    started = time.perf_counter()
    for event in runtime.stream(ask("Talk a lot", sampling=Sampling(max_tokens=1500, seed=1)), token):
        events.append(event)
        if isinstance(event, TextDelta | ReasoningDelta) and not token.cancelled:
            threading.Timer(0.01, token.cancel).start()
    assert isinstance(events[-1], Finished) and events[-1].reason == "cancelled"
    assert time.perf_counter() - started < 10
    deltas = sum(isinstance(e, TextDelta | ReasoningDelta) for e in events)
    assert deltas < 300


async def test_4_async_stream_and_usage(backend: tuple[str, Runtime]) -> None:
    kind, runtime = backend
    completion = await runtime.acomplete(ask("Again"))
    assert completion.usage.prompt_tokens > 0
    assert completion.finish_reason in ("stop", "length")
    if scripted(kind):
        assert completion.text == "async reply"
