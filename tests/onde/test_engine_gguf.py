"""ChatEngine on the tiny random-weight Qwen 3 GGUF through real llama.cpp (gibberish, exact format)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from onde import (
    ChatEngine,
    ChatMessage,
    ContextOverflow,
    Done,
    GgufModelConfig,
    Inference,
    SamplingConfig,
    TextDelta,
    ToolDefinition,
    ToolResult,
)
from qwen_runtime.runtime import CancelToken
from qwen_runtime.types import ChatRequest, Event

pytestmark = pytest.mark.slow

LOOKUP = ToolDefinition(
    "lookup",
    "Look a word up",
    '{"type": "object", "properties": {"word": {"type": "string", "maxLength": 12}}, '
    '"required": ["word"], "additionalProperties": false}',
)
SAMPLING = SamplingConfig.deterministic(max_tokens=48, seed=1, enable_thinking=False)


@pytest.fixture
def engine(tiny_gguf: Path) -> Iterator[ChatEngine]:
    engine = ChatEngine()
    seconds = engine.load_gguf_model(GgufModelConfig.from_path(tiny_gguf, n_ctx=2048), "Be brief.", SAMPLING)
    assert 0 < seconds < 30
    yield engine
    engine.unload_model()


def test_load_info_and_unload(tiny_gguf: Path, engine: ChatEngine) -> None:
    info = engine.info()
    assert (info.status, info.model_name, info.runtime) == ("ready", tiny_gguf.stem, "llama.cpp")
    assert info.context_size == 2048 and info.approx_memory_bytes == tiny_gguf.stat().st_size
    assert engine.is_loaded() and engine.unload_model() and not engine.is_loaded()


def test_send_stream_and_generate(engine: ChatEngine) -> None:
    result = engine.send_message("hello")
    assert result.finish_reason in ("stop", "length") and result.usage.prompt_tokens > 0
    events = list(engine.stream_message("again"))
    last = events[-1]
    assert isinstance(last, Done)
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == last.result.text
    assert len(engine.history()) == 4
    alone = engine.generate([ChatMessage.user("hello")], SAMPLING)
    assert alone.usage.prompt_tokens > 0 and len(engine.history()) == 4


async def test_async_send(engine: ChatEngine) -> None:
    result = await engine.asend_message("hello")
    assert result.usage.completion_tokens > 0
    assert engine.history()[-1] == ChatMessage.assistant(result.text)


def test_tool_call_round_trip(engine: ChatEngine) -> None:
    result = engine.send_message_with_tools("look up 'cat'", [LOOKUP], tool_choice="required")
    assert result.tool_calls, result.tool_call_errors
    call = result.tool_calls[0]
    assert call.name == "lookup" and isinstance(call.parsed_arguments["word"], str)
    final = engine.send_tool_results([ToolResult(call.id, "a small animal")], None)
    assert not final.tool_calls and final.finish_reason in ("stop", "length")
    assert [m.role.value for m in engine.history()] == ["user", "assistant", "tool", "assistant"]


def test_the_runtime_closes_thinking_at_the_budget(engine: ChatEngine) -> None:
    engine.set_sampling(SamplingConfig.qwen3_thinking(max_tokens=96, seed=1, thinking_budget=8))
    result = engine.send_message_with_tools("look up 'cat'", [LOOKUP], tool_choice="required")
    assert result.reasoning and result.tool_calls and not result.thinking_truncated
    # a call drafted inside <think> stays in the reasoning's text (it is not reasoning the budget counts)
    thought = re.sub(r"<tool_call>.*?</tool_call>", "", result.reasoning, flags=re.S)
    assert result.usage.reasoning_tokens <= 8 or len(thought) < 80


def test_cancel_mid_stream(engine: ChatEngine) -> None:
    engine.set_sampling(SamplingConfig.deterministic(max_tokens=1500, seed=1))
    kinds = []
    for event in engine.stream_message("write a lot"):
        kinds.append(event.type)
        if isinstance(event, TextDelta):
            engine.cancel()
    assert kinds[-1] == "done" and kinds.count("text") < 50
    assert [m.role.value for m in engine.history()] == ["user"]


def test_a_reloaded_history_gives_the_identical_next_prompt_and_reply(
    tiny_gguf: Path, engine: ChatEngine
) -> None:
    engine.send_message_with_tools("look up 'dog'", [LOOKUP], tool_choice="required")
    call = engine.history()[-1].tool_calls[0]
    engine.send_tool_results([ToolResult(call.id, "ein Hund, 犬")], [LOOKUP])
    saved = engine.history_to_json()

    other = ChatEngine()
    other.load_gguf_model(GgufModelConfig.from_path(tiny_gguf, n_ctx=2048), "Be brief.", SAMPLING)
    other.history_from_json(saved)
    requests: list[ChatRequest] = []
    for e in (engine, other):
        runtime = e.runtime
        assert runtime is not None
        original = runtime.stream

        def recording(
            request: ChatRequest,
            cancel: CancelToken | None = None,
            _o: Callable[[ChatRequest, CancelToken | None], Iterator[Event]] = original,
        ) -> Iterator[Event]:
            requests.append(request)
            return _o(request, cancel)

        runtime.stream = recording  # type: ignore[method-assign]
    first = engine.send_message_with_tools("and 'cow'?", [LOOKUP])
    second = other.send_message_with_tools("and 'cow'?", [LOOKUP])
    other.unload_model()
    assert requests[0] == requests[1]
    assert (first.text, first.tool_calls) == (second.text, second.tool_calls)


def test_a_prompt_longer_than_the_context_raises_context_overflow(engine: ChatEngine) -> None:
    with pytest.raises(ContextOverflow, match="context window is 2048") as caught:
        engine.send_message("cat " * 3000)
    assert isinstance(caught.value, Inference)  # old handlers still catch it
    assert caught.value.context_size == 2048
    assert caught.value.prompt_tokens is not None and caught.value.prompt_tokens > 2048
    assert [m.role.value for m in engine.history()] == ["user"]  # the input stays: compact it and retry
    engine.clear_history()
    assert engine.send_message("hello").usage.prompt_tokens > 0  # the engine is usable again


def test_prefill_puts_the_system_prompt_and_tools_in_the_cache(engine: ChatEngine) -> None:
    cached = engine.prefill([LOOKUP])
    assert cached > 0
    result = engine.send_message_with_tools("look up 'cat'", [LOOKUP])
    assert result.usage.cached_prompt_tokens >= cached - 1
    engine.set_system_prompt("word " * 3000)
    with pytest.raises(ContextOverflow):
        engine.prefill([LOOKUP])


def test_a_fork_generates_on_the_same_model(engine: ChatEngine) -> None:
    engine.send_message("hello")
    child = engine.fork("Answer in one word.")
    assert child.runtime is engine.runtime and child.info().context_size == 2048
    assert child.send_message("hi").finish_reason in ("stop", "length") and len(child.history()) == 2
    child.close()
    assert engine.is_loaded() and engine.send_message("again").finish_reason in ("stop", "length")
    assert len(engine.history()) == 4


def test_a_model_config_with_a_prompt_cache_dir_serves_a_new_engine_from_disk(
    tiny_gguf: Path, tmp_path: Path
) -> None:
    config = GgufModelConfig.from_path(tiny_gguf, n_ctx=2048, prompt_cache_dir=str(tmp_path / "cache"))
    usages = []
    for _ in range(2):  # two engines, as two processes would be
        engine = ChatEngine()
        engine.load_gguf_model(config, "Be brief. " * 40, SAMPLING)
        usages.append(engine.send_message_with_tools("look up 'cat'", [LOOKUP]).usage)
        engine.unload_model()
    assert usages[0].restored_prompt_tokens == 0
    assert usages[1].restored_prompt_tokens >= 0.9 * usages[1].prompt_tokens
    assert any((tmp_path / "cache").rglob("*.state"))
