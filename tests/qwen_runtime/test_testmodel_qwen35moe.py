"""The tiny qwen35moe model (Qwen3.6-35B-A3B's architecture) through real llama.cpp: it loads as a
hybrid mixture of experts, answers, and an agent loop on it reuses its cached prompt round after round."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.cli import main
from qwen_runtime.models.templates import load_template
from qwen_runtime.testing.testmodel import write_test_gguf
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Message,
    Sampling,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {
    "path": {"type": "string", "maxLength": 12}}, "required": ["path"], "additionalProperties": False})


@pytest.fixture(scope="module")
def moe_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("moe") / "tiny-qwen35moe.gguf"
    assert main(["make-test-model", "--arch", "qwen35moe", str(out)]) == 0
    return out


def test_make_test_model_writes_a_hybrid_moe_with_qwen36s_template(moe_gguf: Path, tmp_path: Path) -> None:
    again = write_test_gguf(tmp_path / "again.gguf", arch="qwen35moe")
    assert hashlib.sha256(again.read_bytes()).digest() == hashlib.sha256(moe_gguf.read_bytes()).digest()
    rt = LlamaCppRuntime(str(moe_gguf), n_ctx=2048, draft="none")
    try:
        meta = rt._llm.metadata
        assert meta["general.architecture"] == "qwen35moe"
        assert (meta["qwen35moe.expert_count"], meta["qwen35moe.expert_used_count"]) == ("4", "2")
        assert rt.chat_template == load_template("qwen3.6") and not rt.cut_back  # a recurrent state
        done = rt.complete(ChatRequest((UserMessage("Hello!"),), sampling=Sampling(max_tokens=8, seed=0),
                                       enable_thinking=False))
        assert done.usage.completion_tokens > 0 and done.finish_reason in ("stop", "length")
    finally:
        rt.close()
    assert main(["make-test-model", "--arch", "qwen35moe", "--format", "hf", str(tmp_path / "hf")]) == 2


def test_a_ten_round_agent_loop_reuses_at_least_90_percent_of_each_prompt(moe_gguf: Path) -> None:
    rt = LlamaCppRuntime(str(moe_gguf), n_ctx=8192, draft="none")
    messages: list[Message] = [SystemMessage("You are a coding agent. " * 40), UserMessage("Read the files.")]
    reused: list[float] = []
    try:
        for i in range(10):
            request = ChatRequest(tuple(messages), (READ,), sampling=Sampling(max_tokens=48, seed=i),
                                  enable_thinking=False, tool_choice="required")
            done = rt.complete(request)
            assert done.tool_calls, (i, done.text)
            if i:
                reused.append(done.usage.cached_prompt_tokens / done.usage.prompt_tokens)
            call = ToolCall(f"c{i}", "read_file", {"path": f"src/m{i}.py"})
            messages += [AssistantMessage(done.text, tool_calls=(call,)), ToolMessage(f"c{i}", f"x = {i}\n")]
    finally:
        rt.close()
    assert len(reused) == 9 and min(reused) >= 0.9, reused
