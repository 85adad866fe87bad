"""A prefill with tools also builds llguidance's view of the vocabulary, so the first request does not.

On a 250k-token vocabulary that view costs about a second of CPU, with the GIL held; a session's
prefill runs while the user types, the first request is what the user waits for.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llguidance
import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.types import ChatRequest, Sampling, SystemMessage, ToolSpec, UserMessage

TOOLS = (ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}},
                                                 "required": ["path"]}),)
SYSTEM = SystemMessage("You are a coding agent. " * 10)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times llguidance's tokenizer is built (each call appends its vocabulary size)."""
    calls: list[int] = []
    real = llguidance.LLTokenizer

    class Counting:
        @staticmethod
        def from_llamacpp(**kwargs: Any) -> Any:
            calls.append(len(kwargs["tokens"]))
            return real.from_llamacpp(**kwargs)  # type: ignore[attr-defined]

    monkeypatch.setattr(llguidance, "LLTokenizer", Counting)
    return calls


@pytest.fixture
def runtime(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, draft="none")
    yield rt
    rt.close()


def test_the_prefill_builds_it_and_the_first_request_reuses_it(runtime: LlamaCppRuntime, builds: list[int]) -> None:
    runtime.prefill(ChatRequest((SYSTEM,), tools=TOOLS, enable_thinking=False))
    assert len(builds) == 1
    first = ChatRequest((SYSTEM, UserMessage("Read main.py")), tools=TOOLS, sampling=Sampling(max_tokens=4, seed=0),
                        enable_thinking=False)
    runtime.complete(first)
    assert len(builds) == 1


def test_a_prefill_without_tools_leaves_it_for_when_tools_come(runtime: LlamaCppRuntime, builds: list[int]) -> None:
    runtime.prefill(ChatRequest((SYSTEM,), enable_thinking=False))
    assert builds == []
