"""Save points found in the prompt's own tokens (their bytes spell each prefix) are the points that
tokenizing each prefix again finds, on real tokenizers and templates (Qwen 3's ChatML, Qwen 3.5's, which
drops earlier thinking), for conversations of every shape: a faster way to the same cache keys."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.speed.save_points import TokenText, save_points
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from .samples import READ_FILE

TOOLS = (READ_FILE,)


@pytest.fixture(scope="module", params=["qwen3", "qwen35"])
def rt(request: pytest.FixtureRequest, tiny_gguf: Path, tiny_hybrid_gguf: Path) -> Iterator[LlamaCppRuntime]:
    model = LlamaCppRuntime(str(tiny_gguf if request.param == "qwen3" else tiny_hybrid_gguf), n_ctx=4096,
                            draft="none")
    yield model
    model.close()


class Retokenizing:
    """The same model with no pieces to align on: every prefix is tokenized again (the reference)."""

    def __init__(self, rt: LlamaCppRuntime) -> None:
        self.rt = rt
        self.tokenized = 0

    def piece(self, token: int) -> bytes:
        raise LookupError("no pieces here")

    def prompt_tokens(self, prompt: str) -> list[int]:
        self.tokenized += 1
        return self.rt.prompt_tokens(prompt)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rt, name)


class Counting(Retokenizing):
    def piece(self, token: int) -> bytes:
        return self.rt.piece(token)


# text a user, a file or a model brings: newlines, markup, other scripts, a literal end-of-turn marker
TEXT = st.lists(st.sampled_from([*"ab xyz\n\t{}<>/\"'", "é", "ß", "你好", "🙂", "</think>", "<|im_end|>", "\n\n",
                                 "</tool_call>", "def f():\n    return 1\n"]), max_size=20).map("".join)


@st.composite
def conversations(draw: st.DrawFn) -> tuple[Message, ...]:
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(SystemMessage(draw(TEXT) or "You are a coding agent."))
    messages.append(UserMessage(draw(TEXT) or "hi"))
    for i in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            call = ToolCall(f"c{i}", "read_file", {"path": draw(TEXT)})
            messages += [AssistantMessage(draw(TEXT), reasoning=draw(st.none() | TEXT), tool_calls=(call,)),
                         ToolMessage(f"c{i}", draw(TEXT))]
        else:
            messages += [AssistantMessage(draw(TEXT) or "ok", reasoning=draw(st.none() | TEXT)),
                         UserMessage(draw(TEXT) or "more")]
    return tuple(messages)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=conversations(), thinking=st.booleans(), tools=st.booleans())
def test_points_found_in_the_prompts_own_tokens_are_those_tokenizing_each_prefix_finds(
    rt: LlamaCppRuntime, messages: Sequence[Message], thinking: bool, tools: bool,
) -> None:
    request = ChatRequest(tuple(messages), tools=TOOLS if tools else (), enable_thinking=thinking)
    tokens = rt.prompt_tokens(rt.prompt_text(request))
    assert save_points(rt, request, tokens) == save_points(Retokenizing(rt), request, tokens)


def test_an_agents_next_round_tokenizes_no_prefix_again(rt: LlamaCppRuntime) -> None:
    request = ChatRequest((SystemMessage("You are a coding agent. " * 20), UserMessage("Read main.py"),
                           AssistantMessage("", tool_calls=(ToolCall("c1", "read_file", {"path": "main.py"}),)),
                           ToolMessage("c1", "print('hi')\n"), AssistantMessage("It prints hi."),
                           UserMessage("And now?"),
                           AssistantMessage("", tool_calls=(ToolCall("c2", "read_file", {"path": "b.py"}),)),
                           ToolMessage("c2", "x = 1\n")), tools=TOOLS, enable_thinking=False)
    tokens = rt.prompt_tokens(rt.prompt_text(request))
    counting = Counting(rt)
    points = save_points(counting, request, tokens)
    assert [p.kind for p in points] == ["stable", "reply", "turn", "round"]
    assert counting.tokenized == 0


def test_a_prefix_the_tokens_do_not_spell_is_not_found() -> None:
    spelled = TokenText(b"<s>hello world", {3: 1, 8: 2, 14: 3}, 3)
    assert spelled.position("hello") == 2  # after the leading token the text lacks
    assert spelled.position("hel") is None  # inside a token: the caller tokenizes the prefix instead
    assert spelled.position("goodbye") is None
