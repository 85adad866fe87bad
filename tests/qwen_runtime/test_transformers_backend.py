"""TransformersRuntime on the tiny random-weight Qwen 3 folder, through real torch and transformers."""

from __future__ import annotations

import asyncio
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from qwen_runtime.backends.transformers_backend import TorchSampler, TransformersRuntime, Utf8Detokenizer
from qwen_runtime.errors import BackendUnavailable, ContextOverflowError, ModelLoadError, ModelNotFoundError
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
def rt(tiny_hf_dir: Path) -> Iterator[TransformersRuntime]:
    import torch

    threads = torch.get_num_threads()
    runtime = TransformersRuntime(str(tiny_hf_dir), n_threads=1)  # tiny ops: threads only contend
    yield runtime
    runtime.close()
    torch.set_num_threads(threads)  # process-wide: leave other modules as they were


def ask(text: str = "What is the weather in Paris?", **kwargs: Any) -> ChatRequest:
    sampling = kwargs.pop("sampling", Sampling(max_tokens=24, seed=1))
    return ChatRequest(messages=(UserMessage(text),), sampling=sampling, **kwargs)


def events_of(
    rt: TransformersRuntime, request: ChatRequest, cancel: CancelToken | None = None
) -> list[Event]:
    return list(rt.stream(request, cancel))


# ---------------------------------------------------------------- loading and prompts


def test_missing_folder_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="no-such-model"):
        TransformersRuntime(str(tmp_path / "no-such-model"))


def test_a_folder_without_a_model_is_a_load_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty-model"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="empty-model"):
        TransformersRuntime(str(empty))


def test_without_torch_the_backend_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # what `import torch` sees when it is not installed
    with pytest.raises(BackendUnavailable, match=re.escape("qwen-runtime[torch]")):
        TransformersRuntime(str(tmp_path))


def test_unknown_dtype_is_refused_before_loading(tiny_hf_dir: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"float8.*float32"):
        TransformersRuntime(str(tiny_hf_dir), dtype="float8")


def test_thinking_switch_renders_the_folders_template(rt: TransformersRuntime) -> None:
    off = rt.prompt_text(ask(tools=TOOLS, enable_thinking=False))
    on = rt.prompt_text(ask(tools=TOOLS, enable_thinking=True))
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert on.endswith("<|im_start|>assistant\n")
    assert '"name": "get_weather"' in on and "<tools>" in on
    assert rt.count_tokens("<|im_start|>") == 1 and rt.count_tokens("<tool_call>") == 1


# ---------------------------------------------------------------- streaming


def test_text_streams_and_ends_with_usage_then_finished(rt: TransformersRuntime) -> None:
    request = ask(enable_thinking=False)
    events = events_of(rt, request)
    assert isinstance(events[-1], Finished) and events[-1].reason == "length"
    usage = events[-2]
    assert isinstance(usage, Usage)
    assert usage.completion_tokens == 24
    assert usage.prompt_tokens == rt.count_tokens(rt.prompt_text(request))
    assert usage.context_size == 4096 and usage.generation_ms > 0
    assert sum(isinstance(e, TextDelta) and bool(e.text) for e in events) > 1


def test_greedy_matches_transformers_own_generate(rt: TransformersRuntime) -> None:
    """Our token loop and KV cache (fresh and reused) reproduce `model.generate` exactly."""
    import torch

    request = ask(
        "Please read the file", enable_thinking=False, sampling=Sampling(max_tokens=20, temperature=0)
    )
    ids = rt.tokenize(rt.prompt_text(request))
    with torch.inference_mode():
        out = rt._model.generate(torch.tensor([ids]), max_new_tokens=20, do_sample=False, eos_token_id=None)
    expected = b"".join(rt.piece(int(t)) for t in out[0, len(ids) :]).decode("utf-8", errors="replace")
    rt.clear_cache()
    assert rt.complete(request).text == expected
    again = rt.complete(request)
    assert again.usage.cached_prompt_tokens == len(ids) - 1
    assert again.text == expected


def test_same_seed_gives_the_same_reply(rt: TransformersRuntime) -> None:
    request = ask(enable_thinking=False, sampling=Sampling(max_tokens=16, seed=7, temperature=1.0))
    assert rt.complete(request).text == rt.complete(request).text


def test_stop_string_cuts_the_reply(rt: TransformersRuntime) -> None:
    request = ask(enable_thinking=False, sampling=Sampling(max_tokens=40, seed=3, temperature=0.0))
    full = rt.complete(request).text
    stop = full[6:9]
    cut = rt.complete(ask(enable_thinking=False, sampling=request.sampling.with_(stop=(stop,))))
    assert cut.finish_reason == "stop"
    assert cut.text == full[: full.index(stop)]


def test_prompt_longer_than_the_context_names_both_sizes(tiny_hf_dir: Path) -> None:
    small = TransformersRuntime(str(tiny_hf_dir), n_ctx=128)
    request = ask("word " * 100)
    n = small.count_tokens(small.prompt_text(request))
    with pytest.raises(ContextOverflowError, match=rf"{n} tokens.*128 tokens"):
        events_of(small, request)
    room = ask("word " * 20, enable_thinking=False, sampling=Sampling(max_tokens=500, seed=0))
    done = small.complete(room)
    assert done.finish_reason == "length"
    assert done.usage.completion_tokens == 128 - small.count_tokens(small.prompt_text(room))
    small.close()


def test_multibyte_characters_split_over_tokens_come_out_whole(rt: TransformersRuntime) -> None:
    text = "日本語 🙂 café"
    tokens = rt.tokenize(text)
    assert len(tokens) > len(text.split())  # some characters really are split over tokens
    detok = Utf8Detokenizer(rt.piece)
    pieces = [detok.push(t) for t in tokens] + [detok.flush()]
    assert "".join(pieces) == text
    assert not any("\ufffd" in p for p in pieces)


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


def test_cancel_stops_within_one_token(rt: TransformersRuntime) -> None:
    token = _CancelAfter(7)  # one check for the prompt, then one per token
    events = events_of(rt, ask(enable_thinking=False, sampling=Sampling(max_tokens=500, seed=0)), token)
    usage = next(e for e in events if isinstance(e, Usage))
    assert events[-1] == Finished("cancelled", "generation cancelled")
    assert usage.completion_tokens == 5


def test_cancel_from_another_thread(rt: TransformersRuntime) -> None:
    token = CancelToken()
    seen: list[Event] = []
    first = threading.Event()

    def consume() -> None:
        for event in rt.stream(ask(enable_thinking=False, sampling=Sampling(max_tokens=3000, seed=0)), token):
            seen.append(event)
            first.set()

    worker = threading.Thread(target=consume)
    worker.start()
    assert first.wait(10)
    token.cancel()
    worker.join(10)
    assert not worker.is_alive()
    assert seen[-1] == Finished("cancelled", "generation cancelled")
    usage = next(e for e in seen if isinstance(e, Usage))
    assert usage.completion_tokens < 3000


# ---------------------------------------------------------------- KV prefix reuse


def test_second_round_of_an_agent_loop_reuses_the_cached_prefix(rt: TransformersRuntime) -> None:
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
    assert two.usage.cached_prompt_tokens >= 0.9 * one.usage.prompt_tokens
    assert two.usage.prompt_tokens > one.usage.prompt_tokens


def test_prefill_of_the_system_prompt_serves_the_first_turn_from_cache(rt: TransformersRuntime) -> None:
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


def test_prefill_that_does_not_fit_names_both_sizes(rt: TransformersRuntime) -> None:
    huge = ChatRequest((SystemMessage("word " * 5000),), enable_thinking=False)
    with pytest.raises(ContextOverflowError):
        rt.prefill(huge)


# ---------------------------------------------------------------- constrained tool calls


@pytest.mark.parametrize("seed", range(10))
def test_required_tool_choice_always_gives_a_valid_call(rt: TransformersRuntime, seed: int) -> None:
    done = rt.complete(
        ask(
            tools=TOOLS,
            tool_choice="required",
            enable_thinking=False,
            sampling=Sampling(max_tokens=150, seed=seed),
        )
    )
    assert not done.tool_call_errors, done.tool_call_errors
    assert done.tool_calls
    for call in done.tool_calls:
        jsonschema.validate(call.arguments, SCHEMAS[call.name])
    assert done.text.strip() == ""  # the reply opens with the call


def test_named_tool_choice_calls_that_tool(rt: TransformersRuntime) -> None:
    for seed in range(3):
        done = rt.complete(
            ask(
                tools=TOOLS,
                tool_choice="read_file",
                enable_thinking=False,
                sampling=Sampling(max_tokens=150, seed=seed),
            )
        )
        assert [c.name for c in done.tool_calls][:1] == ["read_file"]
        jsonschema.validate(done.tool_calls[0].arguments, SCHEMAS["read_file"])


def test_thinking_budget_closes_the_think_block_and_the_model_answers(tiny_hf_dir: Path) -> None:
    thinking = TransformersRuntime(str(tiny_hf_dir), chat_template=THINK_OPEN_TEMPLATE)
    events = events_of(thinking, ask(thinking_budget=5, sampling=Sampling(max_tokens=30, seed=0)))
    kinds = [e.type for e in events if isinstance(e, (ReasoningDelta, TextDelta))]
    assert kinds[0] == "reasoning"
    assert "reasoning" not in kinds[kinds.index("text") :]  # no reasoning after the answer began
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.reasoning_tokens <= 5 + thinking.count_tokens("\n</think>\n\n")
    thinking.close()


def test_required_with_thinking_calls_after_the_budgeted_think_block(tiny_hf_dir: Path) -> None:
    thinking = TransformersRuntime(str(tiny_hf_dir), chat_template=THINK_OPEN_TEMPLATE)
    for seed in range(3):
        request = ask(
            tools=TOOLS,
            tool_choice="required",
            thinking_budget=6,
            sampling=Sampling(max_tokens=400, seed=seed),
        )
        done = thinking.complete(request)
        assert done.reasoning  # it thought first
        assert not done.tool_call_errors
        assert done.tool_calls
        for call in done.tool_calls:
            jsonschema.validate(call.arguments, SCHEMAS[call.name])
    thinking.close()


# ---------------------------------------------------------------- async


async def test_astream_works_from_asyncio(rt: TransformersRuntime) -> None:
    events = [e async for e in rt.astream(ask(enable_thinking=False))]
    assert isinstance(events[-2], Usage) and isinstance(events[-1], Finished)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    done = await rt.acomplete(ask(enable_thinking=False, sampling=Sampling(max_tokens=100, seed=0)))
    task.cancel()
    assert done.usage.completion_tokens > 10
    assert ticks > 1  # the loop kept running while the model generated


# ---------------------------------------------------------------- sampling


def test_sampler_keeps_to_top_k_and_respects_masked_tokens() -> None:
    import torch

    logits = torch.tensor([5.0, 4.9, 4.8, float("-inf"), 0.0, -1.0])
    sampler = TorchSampler(Sampling(temperature=1.0, top_k=2, seed=0))
    picked = {sampler.sample(logits.clone()) for _ in range(200)}
    assert picked == {0, 1}
    greedy = TorchSampler(Sampling(temperature=0.0, presence_penalty=10.0))
    assert greedy.sample(logits.clone()) == 0
    assert greedy.sample(logits.clone()) == 1  # token 0 now carries the presence penalty
