"""One parametrized suite, four backends: messages in, events out, tool calls parsed, cancel, usage.

The scripted backends are told what to say; the tiny random-weight models say anything, so for them the
suite checks the shape of the stream and relies on the tool-call constraint for valid calls. The local
backends run twice: on the dense Qwen 3-shaped tiny model and on the hybrid Qwen 3.5-shaped one
(`-qwen35`), whose recurrent state cannot be cut back to a shorter prefix.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import validate
from qwen_runtime import (
    AssistantMessage,
    CancelToken,
    ChatRequest,
    Event,
    Finished,
    ReasoningDelta,
    Runtime,
    Sampling,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)
from qwen_runtime.backends import _generation
from qwen_runtime.backends._generation import THINK_CLOSE_TEXT
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime, starts_in_think
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.backends.transformers_backend import TransformersRuntime
from qwen_runtime.errors import ContextOverflowError
from qwen_runtime.grammar.constrain import ToolCallConstraint
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
TURNS: dict[str, Any] = {
    "test_1_messages_in_events_out": {"reasoning": "Thinking about it.", "text": "Hello there, friend."},
    "test_2_tool_calls_parsed_and_valid": {
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}]
    },
    "test_3_cancel_stops_promptly": LONG_TEXT,
    "test_4_async_stream_and_usage": "async reply",
}
"""What the scripted backends say, by the test that asks."""
#: the local backends' tiny models: the session fixture that builds each
TINY_MODELS = {
    "llamacpp": "tiny_gguf",
    "transformers": "tiny_hf_dir",
    "llamacpp-qwen35": "tiny_hybrid_gguf",
    "transformers-qwen35": "tiny_hybrid_hf_dir",
}
#: "llamacpp:TEMPLATE" is the tiny dense model carrying another Qwen template (XML tool calls)
TEMPLATE_MODELS = ["llamacpp:qwen3-coder", "llamacpp:qwen3.5"]
BACKENDS = ["scripted", "openai", *TINY_MODELS, *TEMPLATE_MODELS]


@pytest.fixture(scope="module", params=BACKENDS)
def loaded(request: pytest.FixtureRequest) -> Iterator[tuple[str, Runtime | None]]:
    """A local backend's model, loaded once for the module; the scripted ones are made for each test."""
    kind = request.param
    if scripted(kind):
        yield kind, None
        return
    runtime = load_local(kind, request, n_ctx=2048)
    yield kind, runtime
    runtime.close()


@pytest.fixture
def backend(loaded: tuple[str, Runtime | None], request: pytest.FixtureRequest) -> Iterator[tuple[str, Runtime]]:
    """The backend under test. A scripted one says the turn of the test that asks (`TURNS`): on one script
    for the module, a test got whichever turn came after the tests its xdist worker had run before it."""
    kind, runtime = loaded
    if runtime is not None:
        yield kind, runtime
        return
    turns = [TURNS[request.node.originalname]]
    if kind == "scripted":
        yield kind, ScriptedRuntime(turns, chunk_size=4, chunk_delay=0.002)
        return
    from qwen_runtime.backends.openai_compat import OpenAICompatRuntime

    with ScriptedServer(turns, chunk_size=4, chunk_delay=0.002) as server:
        yield kind, OpenAICompatRuntime(server.base_url, "scripted-qwen", max_retries=0)


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
    # room for the closing </tool_call> after a 16-token think: a call the limit cuts off is an error, never a call
    completion = runtime.complete(ask("Weather in Paris?", tools=(WEATHER,), tool_choice="required", thinking_budget=16,
                                      sampling=Sampling(max_tokens=120, seed=3, temperature=0.8)))
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
    for event in runtime.stream(ask("Talk a lot", sampling=Sampling(max_tokens=1500, seed=1)), token):
        events.append(event)
        if isinstance(event, TextDelta | ReasoningDelta) and not token.cancelled:
            canceller = threading.Timer(0.01, token.cancel)  # from another thread, while the reply streams
            canceller.start()
            canceller.join()  # then the stream goes on: a loaded machine's late timer cannot lose the race
    assert isinstance(events[-1], Finished) and events[-1].reason == "cancelled"
    deltas = sum(isinstance(e, TextDelta | ReasoningDelta) for e in events)
    assert deltas < 300


async def test_4_async_stream_and_usage(backend: tuple[str, Runtime]) -> None:
    kind, runtime = backend
    completion = await runtime.acomplete(ask("Again"))
    assert completion.usage.prompt_tokens > 0
    assert completion.finish_reason in ("stop", "length")
    if scripted(kind):
        assert completion.text == "async reply"


# ---------------------------------------------------------------- the two local backends
# Prefill, context overflow, the thinking budget, KV reuse and constrained tool calls: features of the
# local generation loop that both llama.cpp and transformers must show alike on the tiny model.

LOCAL_BACKENDS = list(TINY_MODELS)
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
LocalRuntime = LlamaCppRuntime | TransformersRuntime


def load_local(kind: str, request: pytest.FixtureRequest, **kwargs: Any) -> LocalRuntime:
    template = kind.partition(":")[2]
    model: Path = (request.getfixturevalue("xml_template_gguf")(template) if template
                   else request.getfixturevalue(TINY_MODELS[kind]))
    if kind.startswith("llamacpp"):
        return LlamaCppRuntime(str(model), **kwargs)
    return TransformersRuntime(str(model), n_threads=1, **kwargs)


@pytest.fixture(scope="module", params=LOCAL_BACKENDS)
def local_backend(request: pytest.FixtureRequest) -> Iterator[tuple[str, LocalRuntime]]:
    with torch_threads_kept(request.param):
        runtime = load_local(request.param, request, n_ctx=2048)
        yield request.param, runtime
        runtime.close()


@contextlib.contextmanager
def torch_threads_kept(kind: str) -> Iterator[None]:
    """transformers sets torch's thread count process-wide: leave other modules as they were. Only a
    transformers backend imports torch (~3 s of CPU): the llama.cpp ones run on workers without it."""
    if not kind.startswith("transformers"):
        yield
        return
    import torch

    threads = torch.get_num_threads()
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@pytest.fixture
def local(local_backend: tuple[str, LocalRuntime]) -> LocalRuntime:
    return local_backend[1]


def question(text: str = "What is the weather in Paris?", **kwargs: Any) -> ChatRequest:
    sampling = kwargs.pop("sampling", Sampling(max_tokens=24, seed=1))
    return ChatRequest(messages=(UserMessage(text),), sampling=sampling, **kwargs)


def call_request(tool_choice: str, seed: int, **kwargs: Any) -> ChatRequest:
    kwargs.setdefault("enable_thinking", False)
    return question(tools=TOOLS, tool_choice=tool_choice, sampling=Sampling(max_tokens=400, seed=seed), **kwargs)


def assert_valid_calls(calls: list[ToolCall], names: set[str]) -> None:
    assert calls
    for call in calls:
        assert call.name in names
        validate(call.arguments, SCHEMAS[call.name])


class CancelAfter(CancelToken):
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


def test_local_template_renders_tools_and_the_empty_think_block(local: LocalRuntime) -> None:
    off = local.prompt_text(question(tools=TOOLS, enable_thinking=False))
    on = local.prompt_text(question(tools=TOOLS, enable_thinking=True))
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert '"name": "get_weather"' in on and "<tools>" in on
    assert not starts_in_think(off)
    if "<function=" in local.chat_template:  # Qwen 3.5 opens the reply's think block itself
        assert on.endswith("<|im_start|>assistant\n<think>\n") and starts_in_think(on)
    else:
        assert on.endswith("<|im_start|>assistant\n") and not starts_in_think(on)
    assert local.count_tokens("<|im_start|>") == 1 and local.count_tokens("<tool_call>") == 1


def test_local_text_streams_and_ends_with_usage_then_finished(local: LocalRuntime) -> None:
    request = question(enable_thinking=False)
    events = list(local.stream(request))
    assert isinstance(events[-1], Finished) and events[-1].reason == "length"
    usage = events[-2]
    assert isinstance(usage, Usage)
    assert usage.completion_tokens == 24
    assert usage.prompt_tokens == local.count_tokens(local.prompt_text(request))
    assert usage.context_size == 2048 and usage.generation_ms > 0
    assert sum(isinstance(e, TextDelta) and bool(e.text) for e in events) > 1


def test_local_same_seed_gives_the_same_reply(local: LocalRuntime) -> None:
    request = question(enable_thinking=False, sampling=Sampling(max_tokens=16, seed=7, temperature=1.0))
    assert local.complete(request).text == local.complete(request).text


def test_local_stop_string_cuts_the_reply(local: LocalRuntime) -> None:
    request = question(enable_thinking=False, sampling=Sampling(max_tokens=40, seed=3, temperature=0.0))
    full = local.complete(request).text
    stop = full[6:9]
    cut = local.complete(question(enable_thinking=False, sampling=request.sampling.with_(stop=(stop,))))
    assert cut.finish_reason == "stop"
    assert cut.text == full[: full.index(stop)]


@pytest.mark.parametrize("kind", LOCAL_BACKENDS)
def test_local_context_overflow_names_both_sizes_and_max_tokens_is_clipped(
    kind: str, request: pytest.FixtureRequest
) -> None:
    small = load_local(kind, request, n_ctx=256)
    too_long = question("word " * 400)
    n = small.count_tokens(small.prompt_text(too_long))
    with pytest.raises(ContextOverflowError, match=rf"{n} tokens.*256 tokens"):
        list(small.stream(too_long))
    fits = question("word " * 40, enable_thinking=False, sampling=Sampling(max_tokens=500, seed=0))
    room = small.context_size - small.count_tokens(small.prompt_text(fits))
    reasons = []
    for seed in range(4):  # a random model may end early (the hybrid's <|file_sep|> is an end token too)
        done = small.complete(dataclasses.replace(fits, sampling=fits.sampling.with_(seed=seed)))
        assert done.usage.completion_tokens <= room
        if done.finish_reason == "length":
            assert done.usage.completion_tokens == room
        reasons.append(done.finish_reason)
    assert "length" in reasons
    small.close()


def test_local_cancel_stops_within_one_token(local_backend: tuple[str, LocalRuntime]) -> None:
    kind, local = local_backend
    on_transformers = kind.startswith("transformers")
    token = CancelAfter(7 if on_transformers else 6)  # transformers checks once more, for the prompt
    sampling = Sampling(max_tokens=500, seed=0)
    # the prompt cached first, whatever ran before on this worker: a hybrid model evaluates a new prompt
    # in parts, each one a check, and the count came out one short when this test ran first
    local.complete(question(enable_thinking=False, sampling=Sampling(max_tokens=1, seed=0)))
    events = list(local.stream(question(enable_thinking=False, sampling=sampling), token))
    usage = next(e for e in events if isinstance(e, Usage))
    assert events[-1] == Finished("cancelled", "generation cancelled")
    assert usage.completion_tokens <= 5
    if on_transformers:
        assert usage.completion_tokens == 5


def test_local_cancel_from_another_thread(local: LocalRuntime) -> None:
    token = CancelToken()
    seen: list[Event] = []
    first = threading.Event()
    cancelled = threading.Event()

    def consume() -> None:
        sampling = Sampling(max_tokens=1800, seed=0)
        for event in local.stream(question(enable_thinking=False, sampling=sampling), token):
            seen.append(event)
            first.set()
            # the reply is held at its first event until the cancel has been sent: a random model may
            # otherwise write an end token first on a loaded machine, and the reply ends on its own
            cancelled.wait(30)

    worker = threading.Thread(target=consume)
    worker.start()
    assert first.wait(60)
    token.cancel()
    cancelled.set()
    worker.join(60)
    assert not worker.is_alive()
    assert seen[-1] == Finished("cancelled", "generation cancelled")
    usage = next(e for e in seen if isinstance(e, Usage))
    assert usage.completion_tokens < 1800


def test_local_second_round_of_an_agent_loop_reuses_the_cached_prefix(
    local_backend: tuple[str, LocalRuntime],
) -> None:
    kind, local = local_backend
    local.clear_cache()
    history = (SystemMessage("You are a coding agent. " * 20), UserMessage("Read the file main.py please."))
    first = ChatRequest(history, tools=TOOLS, sampling=Sampling(max_tokens=8, seed=0), enable_thinking=False)
    one = local.complete(first)
    assert one.usage.cached_prompt_tokens == 0
    call = ToolCall("call_1", "read_file", {"path": "main.py"})
    second = ChatRequest(
        (*history, AssistantMessage("", tool_calls=(call,)), ToolMessage("call_1", "print('hi')")),
        tools=TOOLS,
        sampling=Sampling(max_tokens=8, seed=0),
        enable_thinking=False,
    )
    two = local.complete(second)
    assert two.usage.prompt_tokens > one.usage.prompt_tokens
    assert two.usage.cached_prompt_tokens >= 0.9 * one.usage.prompt_tokens
    if kind.endswith("-qwen35"):
        # a recurrent state cannot be cut back to the prefix the rounds share (the first reply's tokens
        # differ from its re-rendered turn): restored from the checkpoint saved at the end of the first
        # round's prompt, in both backends
        assert two.usage.restored_prompt_tokens == two.usage.cached_prompt_tokens


def test_local_prefill_of_the_system_prompt_serves_the_first_turn_from_cache(local: LocalRuntime) -> None:
    local.clear_cache()
    system = SystemMessage("You are a coding agent. " * 20)
    prefilled = local.prefill(ChatRequest((system,), tools=TOOLS, enable_thinking=False))
    assert prefilled > local.count_tokens(system.content)
    first = ChatRequest(
        (system, UserMessage("Read the file main.py please.")),
        tools=TOOLS,
        sampling=Sampling(max_tokens=8, seed=0),
        enable_thinking=False,
    )
    usage = local.complete(first).usage
    assert usage.cached_prompt_tokens >= prefilled - 1  # a template may re-tokenize its last newline
    assert usage.prompt_tokens > prefilled


def test_local_prefill_that_does_not_fit_is_a_context_overflow(local: LocalRuntime) -> None:
    with pytest.raises(ContextOverflowError):
        local.prefill(ChatRequest((SystemMessage("word " * 5000),), enable_thinking=False))


@pytest.mark.parametrize("seed", range(20))
def test_local_required_tool_choice_always_gives_a_valid_call(local: LocalRuntime, seed: int) -> None:
    local.clear_cache()  # the same KV state for every seed, whatever ran before: reproducible
    done = local.complete(call_request("required", seed))
    assert not done.tool_call_errors, done.tool_call_errors
    assert_valid_calls(done.tool_calls, {"get_weather", "read_file"})
    assert done.text.strip() == ""  # the reply opens with the call
    assert done.finish_reason == "tool_calls"


@pytest.mark.parametrize("seed", range(20))
def test_local_named_tool_choice_calls_that_tool(local: LocalRuntime, seed: int) -> None:
    local.clear_cache()
    done = local.complete(call_request("read_file", seed))
    assert not done.tool_call_errors
    assert_valid_calls(done.tool_calls, {"read_file"})


@pytest.mark.parametrize("kind", LOCAL_BACKENDS)
def test_local_thinking_budget_closes_the_think_block(kind: str, request: pytest.FixtureRequest) -> None:
    thinking = load_local(kind, request, n_ctx=1024, chat_template=THINK_OPEN_TEMPLATE)
    close_tokens = thinking.count_tokens(THINK_CLOSE_TEXT)
    events = list(thinking.stream(question(thinking_budget=5, sampling=Sampling(max_tokens=30, seed=0))))
    kinds = [e.type for e in events if isinstance(e, (ReasoningDelta, TextDelta))]
    assert kinds[0] == "reasoning"
    assert "reasoning" not in kinds[kinds.index("text") :]  # no reasoning after the answer began
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.reasoning_tokens <= 5 + close_tokens
    for seed in range(3):  # a required call comes after the budgeted think block
        thinking.clear_cache()
        done = thinking.complete(call_request("required", seed, enable_thinking=True, thinking_budget=6))
        assert done.reasoning  # it thought first
        assert done.usage.reasoning_tokens <= 6 + close_tokens
        assert not done.tool_call_errors
        assert_valid_calls(done.tool_calls, {"get_weather", "read_file"})
    thinking.close()


def test_local_auto_tool_choice_leaves_free_text_possible(local: LocalRuntime) -> None:
    replies = [
        local.complete(question(tools=TOOLS, enable_thinking=False, sampling=Sampling(max_tokens=20, seed=s)))
        for s in range(4)
    ]
    assert any(r.text.strip() and not r.tool_calls for r in replies)


def test_local_tool_choice_none_builds_no_constraint(local: LocalRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = ToolCallConstraint

    def spy(*args: Any, **kwargs: Any) -> Any:
        built.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(_generation, "ToolCallConstraint", spy)
    local.complete(question(tools=TOOLS, tool_choice="none", enable_thinking=False))
    assert built == []
    local.complete(question(tools=TOOLS, tool_choice="auto", enable_thinking=False))
    assert built == ["auto"]


async def test_local_astream_keeps_the_event_loop_running(local: LocalRuntime) -> None:
    events = [e async for e in local.astream(question(enable_thinking=False))]
    assert isinstance(events[-2], Usage) and isinstance(events[-1], Finished)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    done = await local.acomplete(question(enable_thinking=False, sampling=Sampling(max_tokens=100, seed=0)))
    task.cancel()
    assert done.usage.completion_tokens > 10
    assert ticks > 1  # the loop kept running while the model generated
