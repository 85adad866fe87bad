"""Every backend tells its parser why the reply ended: a call cut off at max_tokens never comes out as
a call (issue 33, class 2), on real llama.cpp, an OpenAI-compatible server and the scripted runtime."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.backends.openai_compat import OpenAICompatRuntime
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
from qwen_runtime.testing import ScriptedServer
from qwen_runtime.types import ChatRequest, Completion, Sampling, ToolSpec, UserMessage

WRITE = ToolSpec(
    "write_file",
    "Write a file",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
XML_CUT = (
    "Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n"
    "<parameter=content>\n# No"
)
JSON_CUT = '<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", "content": "# Notes\\n'


def ask(max_tokens: int = 256, tool_choice: str = "auto") -> ChatRequest:
    return ChatRequest(
        (UserMessage("Write notes.md"),),
        tools=(WRITE,),
        tool_choice=tool_choice,
        enable_thinking=False,
        sampling=Sampling(max_tokens=max_tokens, seed=0, temperature=0.8),
    )


def assert_cut_off(done: Completion, name: str | None = "write_file") -> None:
    assert done.finish_reason == "length"
    assert done.tool_calls == []
    assert [(e.name, e.truncated) for e in done.tool_call_errors] == [(name, True)]
    assert "cut off at the token limit" in done.tool_call_errors[0].message


@pytest.mark.parametrize("raw", [XML_CUT, JSON_CUT], ids=["xml", "json"])
def test_scripted_runtime_refuses_a_call_cut_at_the_limit(raw: str) -> None:
    runtime = ScriptedRuntime([ScriptedTurn(raw=raw, finish_reason="length")], chunk_size=3)
    assert_cut_off(runtime.complete(ask()))


def test_scripted_runtime_without_the_limit_still_refuses_an_xml_value_that_never_closed() -> None:
    done = ScriptedRuntime([ScriptedTurn(raw=XML_CUT)], chunk_size=5).complete(ask())
    assert done.tool_calls == []
    assert [(e.name, e.truncated) for e in done.tool_call_errors] == [("write_file", False)]
    assert "never closed" in done.tool_call_errors[0].message


@pytest.mark.parametrize("raw", [XML_CUT, JSON_CUT], ids=["xml", "json"])
def test_an_openai_server_that_stops_at_length_inside_a_call_in_its_text(raw: str) -> None:
    with ScriptedServer([ScriptedTurn(raw=raw, finish_reason="length")], chunk_size=4) as server:
        done = OpenAICompatRuntime(server.base_url, max_retries=0).complete(ask())
    assert_cut_off(done)
    assert done.text.strip() == ("Writing it." if raw == XML_CUT else "")


def test_ollama_that_stops_at_length_inside_a_call_in_its_text() -> None:
    with ScriptedServer([ScriptedTurn(raw=XML_CUT, finish_reason="length")], ollama=True) as server:
        runtime = OpenAICompatRuntime(server.base_url, "qwen3-coder:30b", max_retries=0)
        done = runtime.complete(ask())
    assert runtime.is_ollama
    assert_cut_off(done)


def test_an_openai_server_that_stops_at_length_during_its_last_structured_call() -> None:
    """The server parsed the calls itself: the last one was still streaming its arguments at the limit."""
    turn = ScriptedTurn(
        tool_calls=(
            ScriptedCall("write_file", {"path": "a.md", "content": "A"}, id="call_a"),
            ScriptedCall("write_file", {"path": "b.md", "content": "B"}, id="call_b"),
        ),
        finish_reason="length",
    )
    with ScriptedServer([turn], chunk_size=3) as server:
        done = OpenAICompatRuntime(server.base_url, max_retries=0).complete(ask())
    assert [(c.id, c.arguments["path"]) for c in done.tool_calls] == [("call_a", "a.md")]
    assert [(e.id, e.name, e.truncated) for e in done.tool_call_errors] == [("call_b", "write_file", True)]
    assert done.finish_reason == "length"


@pytest.fixture(scope="module", params=["json", "xml"])
def tiny_llama(
    request: pytest.FixtureRequest, tiny_gguf: Path, xml_template_gguf: Callable[[str], Path]
) -> LlamaCppRuntime:
    model = tiny_gguf if request.param == "json" else xml_template_gguf("qwen3-coder")
    runtime = LlamaCppRuntime(str(model), n_ctx=1024)
    request.addfinalizer(runtime.close)
    return runtime


@pytest.mark.parametrize(("max_tokens", "name"), [(4, None), (12, "write_file"), (24, "write_file")])
def test_llamacpp_required_call_cut_by_max_tokens_is_an_error_never_a_call(
    tiny_llama: LlamaCppRuntime, max_tokens: int, name: str | None
) -> None:
    """The grammar forces a call; a few tokens cannot hold a whole one, so the reply ends inside it
    (at 4 tokens inside the tool's name, so the error cannot name it)."""
    done = tiny_llama.complete(ask(max_tokens, tool_choice="required"))
    assert done.usage.completion_tokens == max_tokens
    assert_cut_off(done, name)
