"""`tool_choice` "required" (or a tool's name) with thinking on always reaches the call: thinking gets
a default budget of a quarter of `max_tokens`, at most 1,024 tokens, after which `</think>` is forced."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import validate
from qwen_runtime.backends._generation import THINK_CLOSE_TEXT, default_thinking_budget
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.types import ChatRequest, Sampling, ToolSpec, UserMessage

RUN = ToolSpec("run", "Run a command", {"type": "object", "properties": {"cmd": {"type": "string", "maxLength": 20}},
                                        "required": ["cmd"], "additionalProperties": False})


def request(
    tool_choice: str = "required", max_tokens: int = 200, *, thinking: bool = True, budget: int | None = None,
    seed: int = 0,
) -> ChatRequest:
    return ChatRequest((UserMessage("list the files"),), tools=(RUN,), tool_choice=tool_choice,
                       sampling=Sampling(max_tokens=max_tokens, seed=seed), enable_thinking=thinking,
                       thinking_budget=budget)


@pytest.mark.parametrize(
    ("choice", "max_tokens", "thinking", "given", "expected"),
    [
        ("required", 200, True, None, 50),
        ("run", 200, True, None, 50),
        ("required", 100_000, True, None, 1024),
        ("required", 200, True, 7, 7),  # the request's own budget wins
        ("auto", 200, True, None, None),  # nothing is owed: thinking stays free
        ("required", 200, False, None, None),
    ],
)
def test_the_default_budget(
    choice: str, max_tokens: int, thinking: bool, given: int | None, expected: int | None
) -> None:
    req = request(choice, max_tokens, thinking=thinking, budget=given)
    assert default_thinking_budget(req) == expected


@pytest.fixture(scope="module")
def tiny(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048)
    yield runtime
    runtime.close()


@pytest.mark.parametrize("seed", range(4))
def test_required_with_thinking_and_no_budget_reaches_a_valid_call(tiny: LlamaCppRuntime, seed: int) -> None:
    tiny.clear_cache()
    done = tiny.complete(request(seed=seed))
    assert done.reasoning  # it thought (the random model never closes <think> itself)
    assert done.usage.reasoning_tokens <= 200 // 4 + tiny.count_tokens(THINK_CLOSE_TEXT)
    assert done.tool_calls and not done.tool_call_errors, done.to_dict()
    validate(done.tool_calls[0].arguments, RUN.parameters)
