"""LlamaCppRuntime on the tiny random-weight Qwen 3 GGUF, through real llama.cpp."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from qwen_runtime.backends import _generation, llamacpp
from qwen_runtime.backends._generation import StopFilter
from qwen_runtime.backends.llamacpp import LlamaCppRuntime, starts_in_think
from qwen_runtime.constrain import ToolCallConstraint
from qwen_runtime.errors import ContextOverflowError, ModelLoadError, ModelNotFoundError
from qwen_runtime.runtime import CancelToken
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Event,
    Finished,
    ReasoningDelta,
    Sampling,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)

WEATHER = ToolSpec(
    "get_weather",
    "Weather forecast for a city",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 24},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "units": {"enum": ["metric", "imperial"]},
        },
        "required": ["city", "units"],
        "additionalProperties": False,
    },
)
READ = ToolSpec(
    "read_file",
    "Read a file",
    {
        "type": "object",
        "properties": {"path": {"type": "string", "maxLength": 40}, "verbose": {"type": "boolean"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)
TOOLS = (WEATHER, READ)
SCHEMAS = {t.name: t.parameters for t in TOOLS}

#: a template that pre-opens the think block, as Qwen 3 2507 thinking models do
THINK_OPEN_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "<|im_start|>assistant\n<think>\n"
)


@pytest.fixture(scope="module")
def rt(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, n_threads=2)
    yield runtime
    runtime.close()


def call_request(tool_choice: str, seed: int, **kwargs: Any) -> ChatRequest:
    kwargs.setdefault("enable_thinking", False)
    return ask(tools=TOOLS, tool_choice=tool_choice, sampling=Sampling(max_tokens=400, seed=seed), **kwargs)


def ask(text: str = "What is the weather in Paris?", **kwargs: Any) -> ChatRequest:
    sampling = kwargs.pop("sampling", Sampling(max_tokens=24, seed=1))
    return ChatRequest(messages=(UserMessage(text),), sampling=sampling, **kwargs)


def events_of(rt: LlamaCppRuntime, request: ChatRequest, cancel: CancelToken | None = None) -> list[Event]:
    return list(rt.stream(request, cancel))


# ---------------------------------------------------------------- loading and prompts


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelNotFoundError, match=r"nope\.gguf"):
        LlamaCppRuntime(str(missing))


def test_a_file_that_is_not_gguf_is_a_load_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model at all" * 10)
    with pytest.raises(ModelLoadError, match=r"bad\.gguf"):
        LlamaCppRuntime(str(bad))


def test_embedded_template_renders_tools_and_the_empty_think_block(rt: LlamaCppRuntime) -> None:
    off = rt.prompt_text(ask(tools=TOOLS, enable_thinking=False))
    on = rt.prompt_text(ask(tools=TOOLS, enable_thinking=True))
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert on.endswith("<|im_start|>assistant\n")
    assert '"name": "get_weather"' in on and "<tools>" in on
    assert not starts_in_think(off) and not starts_in_think(on)


def test_special_tokens_are_single_tokens(rt: LlamaCppRuntime) -> None:
    assert rt.count_tokens("<|im_start|>") == 1
    assert rt.count_tokens("<tool_call>") == 1


# ---------------------------------------------------------------- streaming


def test_text_streams_and_ends_with_usage_then_finished(rt: LlamaCppRuntime) -> None:
    events = events_of(rt, ask(enable_thinking=False))
    assert isinstance(events[-1], Finished) and events[-1].reason == "length"
    usage = events[-2]
    assert isinstance(usage, Usage)
    assert usage.completion_tokens == 24
    assert usage.prompt_tokens == rt.count_tokens(rt.prompt_text(ask(enable_thinking=False)))
    assert usage.context_size == 2048 and usage.generation_ms > 0
    assert any(isinstance(e, TextDelta) and e.text for e in events)


def test_same_seed_gives_the_same_reply(rt: LlamaCppRuntime) -> None:
    request = ask(enable_thinking=False, sampling=Sampling(max_tokens=16, seed=7, temperature=1.0))
    assert rt.complete(request).text == rt.complete(request).text


def test_stop_string_cuts_the_reply(rt: LlamaCppRuntime) -> None:
    request = ask(enable_thinking=False, sampling=Sampling(max_tokens=40, seed=3, temperature=0.0))
    full = rt.complete(request).text
    stop = full[6:9]
    cut = rt.complete(ask(enable_thinking=False, sampling=request.sampling.with_(stop=(stop,))))
    assert cut.finish_reason == "stop"
    assert cut.text == full[: full.index(stop)]


def test_prompt_longer_than_the_context_names_both_sizes(tiny_gguf: Path) -> None:
    small = LlamaCppRuntime(str(tiny_gguf), n_ctx=256)
    request = ask("word " * 400)
    n = small.count_tokens(small.prompt_text(request))
    with pytest.raises(ContextOverflowError, match=rf"{n} tokens.*256 tokens"):
        events_of(small, request)
    small.close()


def test_max_tokens_is_clipped_to_the_room_left(tiny_gguf: Path) -> None:
    small = LlamaCppRuntime(str(tiny_gguf), n_ctx=256)
    request = ask("word " * 40, enable_thinking=False, sampling=Sampling(max_tokens=500, seed=0))
    room = small.context_size - small.count_tokens(small.prompt_text(request))
    done = small.complete(request)
    assert done.finish_reason == "length" and done.usage.completion_tokens == room
    small.close()


# ---------------------------------------------------------------- cancellation


class _CancelAfter(CancelToken):
    """Cancels itself at the n-th check, i.e. exactly n-1 tokens into the generation."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.checks = 0
        self.n = n

    @property
    def cancelled(self) -> bool:
        self.checks += 1
        if self.checks >= self.n:
            self.cancel()
        return super().cancelled


def test_cancel_stops_within_one_token(rt: LlamaCppRuntime) -> None:
    token = _CancelAfter(6)
    events = events_of(rt, ask(enable_thinking=False, sampling=Sampling(max_tokens=500, seed=0)), token)
    usage = next(e for e in events if isinstance(e, Usage))
    assert events[-1] == Finished("cancelled", "generation cancelled")
    assert usage.completion_tokens <= 5


def test_cancel_from_another_thread(rt: LlamaCppRuntime) -> None:
    token = CancelToken()
    seen: list[Event] = []
    first = threading.Event()

    def consume() -> None:
        for event in rt.stream(ask(enable_thinking=False, sampling=Sampling(max_tokens=1800, seed=0)), token):
            seen.append(event)
            first.set()

    worker = threading.Thread(target=consume)
    worker.start()
    assert first.wait(10)
    token.cancel()
    worker.join(10)
    assert not worker.is_alive()
    assert seen[-1].type == "finished" and seen[-1].reason == "cancelled"
    usage = next(e for e in seen if isinstance(e, Usage))
    assert usage.completion_tokens < 1800


# ---------------------------------------------------------------- KV prefix reuse


def test_second_round_of_an_agent_loop_reuses_the_cached_prefix(rt: LlamaCppRuntime) -> None:
    rt.clear_cache()
    history = (SystemMessage("You are a coding agent. " * 20), UserMessage("Read the file main.py please."))
    first = ChatRequest(history, tools=TOOLS, sampling=Sampling(max_tokens=8, seed=0), enable_thinking=False)
    one = rt.complete(first)
    assert one.usage.cached_prompt_tokens == 0
    call = ToolCall("call_1", "read_file", {"path": "main.py"})
    second = ChatRequest(
        (*history, AssistantMessage("", tool_calls=(call,)), ToolMessage("call_1", "print('hi')")),
        tools=TOOLS,
        sampling=Sampling(max_tokens=8, seed=0),
        enable_thinking=False,
    )
    two = rt.complete(second)
    shared = one.usage.prompt_tokens
    assert two.usage.cached_prompt_tokens >= 0.9 * shared
    assert two.usage.prompt_tokens > shared


def test_prefill_of_the_system_prompt_serves_the_first_turn_from_cache(rt: LlamaCppRuntime) -> None:
    rt.clear_cache()
    system = SystemMessage("You are a coding agent. " * 20)
    opening = ChatRequest((system,), tools=TOOLS, enable_thinking=False)
    prefilled = rt.prefill(opening)
    assert prefilled > rt.count_tokens(system.content)
    first = ChatRequest(
        (system, UserMessage("Read the file main.py please.")),
        tools=TOOLS,
        sampling=Sampling(max_tokens=8, seed=0),
        enable_thinking=False,
    )
    usage = rt.complete(first).usage
    assert usage.cached_prompt_tokens >= prefilled - 1  # a template may re-tokenize its last newline
    assert usage.prompt_tokens > prefilled


def test_prefill_that_does_not_fit_names_both_sizes(rt: LlamaCppRuntime) -> None:
    huge = ChatRequest((SystemMessage("word " * 5000),), enable_thinking=False)
    with pytest.raises(ContextOverflowError):
        rt.prefill(huge)


# ---------------------------------------------------------------- constrained tool calls


def _assert_valid_calls(calls: list[ToolCall], names: set[str]) -> None:
    assert calls
    for call in calls:
        assert call.name in names
        jsonschema.validate(call.arguments, SCHEMAS[call.name])


@pytest.mark.parametrize("seed", range(20))
def test_required_tool_choice_always_gives_a_valid_call(rt: LlamaCppRuntime, seed: int) -> None:
    rt.clear_cache()  # the same KV state for every seed, whatever ran before: reproducible
    done = rt.complete(call_request("required", seed))
    assert not done.tool_call_errors, done.tool_call_errors
    _assert_valid_calls(done.tool_calls, {"get_weather", "read_file"})
    assert done.text.strip() == ""  # the reply opens with the call


@pytest.mark.parametrize("seed", range(20))
def test_named_tool_choice_calls_that_tool(rt: LlamaCppRuntime, seed: int) -> None:
    rt.clear_cache()
    done = rt.complete(call_request("read_file", seed))
    assert not done.tool_call_errors
    _assert_valid_calls(done.tool_calls, {"read_file"})


def test_required_with_thinking_calls_after_the_budgeted_think_block(tiny_gguf: Path) -> None:
    thinking = LlamaCppRuntime(str(tiny_gguf), n_ctx=1024, chat_template=THINK_OPEN_TEMPLATE)
    for seed in range(5):
        request = call_request("required", seed, enable_thinking=True, thinking_budget=6)
        thinking.clear_cache()
        done = thinking.complete(request)
        assert done.reasoning  # it thought first
        assert done.usage.reasoning_tokens <= 6 + thinking.count_tokens(llamacpp.THINK_CLOSE_TEXT)
        assert not done.tool_call_errors
        _assert_valid_calls(done.tool_calls, {"get_weather", "read_file"})
    thinking.close()


def test_thinking_budget_closes_the_think_block_and_the_model_answers(tiny_gguf: Path) -> None:
    thinking = LlamaCppRuntime(str(tiny_gguf), n_ctx=1024, chat_template=THINK_OPEN_TEMPLATE)
    events = events_of(thinking, ask(thinking_budget=5, sampling=Sampling(max_tokens=30, seed=0)))
    kinds = [e.type for e in events if isinstance(e, (ReasoningDelta, TextDelta))]
    assert kinds[0] == "reasoning"
    assert "reasoning" not in kinds[kinds.index("text") :]  # no reasoning after the answer began
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.reasoning_tokens <= 5 + thinking.count_tokens(llamacpp.THINK_CLOSE_TEXT)
    thinking.close()


def test_auto_tool_choice_leaves_free_text_possible(rt: LlamaCppRuntime) -> None:
    replies = [
        rt.complete(ask(tools=TOOLS, enable_thinking=False, sampling=Sampling(max_tokens=20, seed=s)))
        for s in range(4)
    ]
    assert any(r.text.strip() and not r.tool_calls for r in replies)


def test_tool_choice_none_builds_no_constraint(rt: LlamaCppRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = ToolCallConstraint

    def spy(*args: Any, **kwargs: Any) -> Any:
        built.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(_generation, "ToolCallConstraint", spy)
    rt.complete(ask(tools=TOOLS, tool_choice="none", enable_thinking=False))
    assert built == []
    rt.complete(ask(tools=TOOLS, tool_choice="auto", enable_thinking=False))
    assert built == ["auto"]


def test_a_finished_call_reports_finish_reason_tool_calls(rt: LlamaCppRuntime) -> None:
    done = rt.complete(call_request("required", 0))
    assert done.tool_calls and done.finish_reason == "tool_calls"


# ---------------------------------------------------------------- async


async def test_astream_works_from_asyncio(rt: LlamaCppRuntime) -> None:
    events = [e async for e in rt.astream(ask(enable_thinking=False))]
    assert isinstance(events[-1], Finished)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    done = await rt.acomplete(ask(enable_thinking=False, sampling=Sampling(max_tokens=200, seed=0)))
    task.cancel()
    assert done.usage.completion_tokens == 200
    assert ticks > 1  # the loop kept running while the model generated


# ---------------------------------------------------------------- helpers


def test_stop_filter_holds_back_a_possible_stop_string() -> None:
    f = StopFilter(("STOP",))
    assert f.push("abcST") == "ab"
    assert f.push("O") == "c"
    assert not f.hit
    assert f.push("P and more") == ""  # the stop string and all after it are dropped
    assert f.hit


def test_starts_in_think_reads_the_generation_prompt() -> None:
    assert starts_in_think("<|im_start|>assistant\n<think>\n")
    assert not starts_in_think("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert not starts_in_think("<|im_start|>assistant\n")
