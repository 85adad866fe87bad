"""Loading, unloading, info, error translation, thinking budget and empty replies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from onde import (
    ChatEngine,
    ChatMessage,
    ContextOverflow,
    Done,
    GgufModelConfig,
    GuardNotice,
    Inference,
    InferenceError,
    ModelBuild,
    Other,
    SamplingConfig,
)
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.errors import ContextOverflowError
from qwen_runtime.runtime import CancelToken, Runtime
from qwen_runtime.types import ChatRequest, Event, Finished, ToolCall, ToolCallEvent


class ClosingRuntime(ScriptedRuntime):
    closed = False

    def close(self) -> None:
        self.closed = True


def test_load_replaces_the_model_resets_history_and_closes_the_old_one() -> None:
    old = ClosingRuntime(["a"])
    engine = ChatEngine(old, system_prompt="keep me")
    engine.send_message("hi")
    seconds = engine.load(ScriptedRuntime(["b"]), sampling=SamplingConfig.coding())
    assert seconds >= 0 and old.closed
    assert engine.history() == [] and engine.system_prompt == "keep me"
    assert engine.sampling == SamplingConfig.coding()
    assert engine.send_message("again").text == "b"


def test_unload_and_info() -> None:
    runtime = ClosingRuntime([], context_size=4096)
    engine = ChatEngine(runtime)
    info = engine.info()
    assert (info.status, info.model_name, info.runtime, info.context_size) == (
        "ready",
        "scripted",
        "scripted",
        4096,
    )
    assert info.history_length == 0 and info.tool_capable and info.approx_memory_display == "0 B"
    engine.push_history(ChatMessage.user("x"))
    assert engine.unload_model() is True and runtime.closed and not engine.is_loaded()
    assert engine.unload_model() is False
    assert engine.info().status == "not_loaded" and engine.history() == [ChatMessage.user("x")]


def test_context_manager_unloads() -> None:
    runtime = ClosingRuntime([])
    with ChatEngine(runtime) as engine:
        assert engine.is_loaded()
    assert runtime.closed


def test_bad_runtimes_and_names_are_model_build_errors(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="Runtime or a name"):
        ChatEngine(42)  # type: ignore[arg-type]
    with pytest.raises(ModelBuild, match="bad runtime name") as caught:
        ChatEngine("no-such-model-name")
    assert caught.value.__cause__ is not None
    with pytest.raises(ModelBuild, match="not found"):
        ChatEngine().load_gguf_model(GgufModelConfig.from_path(tmp_path / "missing.gguf"))


def test_runtime_by_name(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text('{"turns": [{"text": "from a file"}]}', encoding="utf-8")
    engine = ChatEngine(f"scripted:{scenario}")
    assert engine.send_message("hi").text == "from a file"


class FailingRuntime(Runtime):
    name = "failing"

    def __init__(self, error: BaseException | None = None, finish: Finished | None = None) -> None:
        self.error, self.finish = error, finish

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        if self.error is not None:
            raise self.error
        assert self.finish is not None
        yield self.finish


def test_runtime_errors_become_inference_errors_with_the_cause() -> None:
    overflow = ContextOverflowError(9000, 8192)
    engine = ChatEngine(FailingRuntime(overflow))
    with pytest.raises(ContextOverflow, match="context window is 8192") as caught:
        engine.send_message("hi")
    assert caught.value.__cause__ is overflow and isinstance(caught.value, Inference)
    assert (caught.value.prompt_tokens, caught.value.context_size) == (9000, 8192)
    assert engine.history() == [ChatMessage.user("hi")]  # the input stays, as with cancel
    with pytest.raises(Other, match="RuntimeError: boom"):
        ChatEngine(FailingRuntime(RuntimeError("boom"))).send_message("hi")
    with pytest.raises(Inference, match="server went away"):
        ChatEngine(FailingRuntime(finish=Finished("error", "server went away"))).send_message("hi")
    with pytest.raises(InferenceError, match="scripted model asked for turn 1"):
        ChatEngine(ScriptedRuntime([])).send_message("hi")


class NoIdRuntime(Runtime):
    name = "no-ids"

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        yield ToolCallEvent(ToolCall("", "read_file", {"path": "a"}))
        yield Finished("tool_calls")


def test_calls_without_ids_get_unique_ones(tools: list) -> None:  # type: ignore[type-arg]
    engine = ChatEngine(NoIdRuntime())
    call = engine.send_message_with_tools("go", tools).tool_calls[0]
    assert call.id.startswith("call_") and len(call.id) > 5
    assert engine.history()[-1].tool_calls[0].id == call.id


def test_thinking_budget_closes_runaway_thinking_and_re_asks_without_thinking() -> None:
    runtime = ScriptedRuntime([{"reasoning": "hmm " * 500, "text": "never"}, "the answer"], chunk_size=8)
    engine = ChatEngine(
        runtime, sampling=SamplingConfig.qwen3_thinking(thinking_budget=20), keep_thinking=True
    )
    events = list(engine.stream_message("hard question"))
    kinds = [e.type for e in events]
    assert "guard_notice" in kinds and "text" in kinds[kinds.index("guard_notice") :]
    notice = next(e for e in events if isinstance(e, GuardNotice))
    assert "thinking budget of 20 tokens reached" in notice.message
    last = events[-1]
    assert isinstance(last, Done)
    result = last.result
    assert result.text == "the answer" and result.thinking_truncated
    assert 0 < len(result.reasoning) < len("hmm " * 500)
    first, second = runtime.requests
    assert (first.enable_thinking, first.thinking_budget) == (True, 20)
    assert (second.enable_thinking, second.thinking_budget) == (False, None)
    assert second.messages == first.messages
    assert engine.history()[-1] == ChatMessage.assistant("the answer", reasoning=result.reasoning)


def test_a_runtime_that_enforces_the_budget_is_trusted() -> None:
    runtime = ScriptedRuntime([{"reasoning": " ".join(f"hmm{i}" for i in range(100)), "text": "ok"}])
    runtime.enforces_thinking_budget = True  # type: ignore[attr-defined]
    engine = ChatEngine(runtime, sampling=SamplingConfig.default(thinking_budget=5))
    result = engine.send_message("q")
    assert result.text == "ok" and not result.thinking_truncated
    assert len(runtime.requests) == 1 and runtime.requests[0].thinking_budget == 5


def test_no_budget_applies_when_thinking_is_off() -> None:
    runtime = ScriptedRuntime(["ok"])
    engine = ChatEngine(runtime, sampling=SamplingConfig.qwen3_non_thinking(thinking_budget=5))
    engine.send_message("q")
    assert runtime.requests[0].thinking_budget is None


@pytest.mark.parametrize(
    ("turn", "reason"),
    [
        (
            {"reasoning": "so much thinking", "finish_reason": "length"},
            "spent all 512 tokens (max_tokens) thinking",
        ),
        ({"finish_reason": "length"}, "hit max_tokens (512) before answering"),
        ({"reasoning": "hmm"}, "spent its tokens thinking and gave no answer"),
        ({"text": "  \n"}, "returned an empty reply"),
    ],
)
def test_an_empty_reply_says_why(turn: dict[str, object], reason: str) -> None:
    engine = ChatEngine(ScriptedRuntime([turn]))
    result = engine.send_message("q")
    assert result.is_empty and result.empty_reason is not None and reason in result.empty_reason
