"""Subagents (`fork`) and warming the KV cache (`prefill`) against the scripted runtime."""

from __future__ import annotations

import pytest
from onde import ChatEngine, ChatMessage, NoModelLoaded, SamplingConfig, SystemMessage, ToolDefinition
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import ChatRequest


class RecordingRuntime(ScriptedRuntime):
    closed = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.prefilled: list[ChatRequest] = []

    def prefill(self, request: ChatRequest) -> int:
        self.prefilled.append(request)
        return 42

    def close(self) -> None:
        self.closed = True


def test_a_fork_shares_the_model_but_not_the_conversation() -> None:
    runtime = RecordingRuntime(["parent reply", "child reply", "parent again"])
    parent = ChatEngine(runtime, system_prompt="you are the parent", sampling=SamplingConfig.coding())
    parent.send_message("hi")
    child = parent.fork("you are a subagent")
    assert child.runtime is runtime and child.history() == [] and child.sampling == SamplingConfig.coding()
    assert child.send_message("task").text == "child reply"
    assert runtime.requests[-1].messages == (SystemMessage("you are a subagent"), ChatMessage.user("task").to_runtime())
    child.close()
    assert not runtime.closed and parent.is_loaded()  # closing the fork leaves the model loaded
    assert parent.send_message("more").text == "parent again"
    assert [m.content for m in parent.history()] == ["hi", "parent reply", "more", "parent again"]


def test_a_fork_takes_its_own_sampling_and_needs_a_model() -> None:
    parent = ChatEngine(ScriptedRuntime([]), keep_thinking=True)
    child = parent.fork(None, sampling=SamplingConfig.deterministic(), keep_thinking=False)
    assert child.system_prompt is None and child.sampling == SamplingConfig.deterministic()
    assert parent.keep_thinking and not child.keep_thinking
    with pytest.raises(NoModelLoaded):
        ChatEngine().fork("x")


def test_prefill_sends_the_system_prompt_and_tools_without_a_turn(tools: list[ToolDefinition]) -> None:
    runtime = RecordingRuntime([])
    engine = ChatEngine(runtime, system_prompt="sys", sampling=SamplingConfig.qwen3_non_thinking())
    assert engine.prefill(tools) == 42
    (request,) = runtime.prefilled
    assert request.messages == (SystemMessage("sys"),)
    assert [t.name for t in request.tools] == ["read_file"] and not request.enable_thinking
    assert runtime.requests == [] and engine.history() == []  # no turn was taken


async def test_prefill_is_a_no_op_without_a_cache_or_a_prompt() -> None:
    assert await ChatEngine(ScriptedRuntime([]), system_prompt="sys").aprefill() == 0
    bare = RecordingRuntime([])
    assert ChatEngine(bare).prefill() == 0 and bare.prefilled == []
    with pytest.raises(NoModelLoaded):
        ChatEngine().prefill()


async def test_a_runtime_with_the_old_prefill_signature_gets_no_turn_end_prefill() -> None:
    # a Runtime subclass written before `next_turn` (its own `prefill(request)`) keeps working
    runtime = RecordingRuntime(["a reply"])
    engine = ChatEngine(runtime, system_prompt="sys")
    engine.send_message("hi")
    assert engine.prefill_next_turn() == 0 and await engine.aprefill_next_turn() == 0
    assert runtime.prefilled == []
    assert engine.prefill() == 42  # the session-open prefill is called as before


async def test_the_turn_end_prefill_asks_for_the_conversation_with_the_last_turns_tools() -> None:
    class Recording(ScriptedRuntime):
        def __init__(self) -> None:
            super().__init__(["a reply"])
            self.asked: list[tuple[ChatRequest, bool]] = []

        def prefill(self, request: ChatRequest, *, next_turn: bool = False, cancel: object = None) -> int:
            self.asked.append((request, next_turn))
            return 7

    runtime = Recording()
    engine = ChatEngine(runtime, system_prompt="sys")
    assert engine.prefill_next_turn() == 0  # no conversation yet: nothing to prepare
    tool = ToolDefinition("read_file", "Read a file", {"type": "object", "properties": {}})
    engine.send_message_with_tools("hi", [tool])
    assert await engine.aprefill_next_turn() == 7
    (request, next_turn), = runtime.asked
    assert next_turn and [t.name for t in request.tools] == ["read_file"]
    assert [m.role for m in request.messages] == ["system", "user", "assistant"]
