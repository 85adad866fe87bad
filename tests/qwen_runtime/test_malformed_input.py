"""Bad input from servers, scenario files and tool definitions gets a clear error, not a raw exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qwen_runtime.backends.openai.ollama import OllamaDecoder
from qwen_runtime.backends.openai.stream import Decoder, SSEDecoder
from qwen_runtime.errors import QwenRuntimeError, ServerError
from qwen_runtime.scenario import ScriptedTurn, chunks, load_scenario
from qwen_runtime.types import ChatRequest, ToolSpec, Usage, UserMessage

URL = "http://127.0.0.1:1/v1/chat/completions"


def _request() -> ChatRequest:
    return ChatRequest(messages=(UserMessage("hi"),), tools=(ToolSpec("read", "read a file"),))


@pytest.mark.parametrize(
    "chunk",
    [
        {"choices": "oops"},
        {"choices": [["not", "a", "dict"]]},
        {"choices": [{"delta": "text"}]},
        {"choices": [{"delta": {"tool_calls": ["piece"]}}]},
        {"choices": [{"delta": {"tool_calls": [{"function": "read"}]}}]},
        {"choices": [], "usage": {"prompt_tokens": "many"}},
        {"choices": [], "usage": {"prompt_tokens_details": ["x"]}},
        {"choices": 3},
    ],
)
def test_sse_chunk_of_the_wrong_shape_is_a_server_error(chunk: dict[str, object]) -> None:
    decoder = SSEDecoder(_request(), URL, 4096)
    with pytest.raises(ServerError, match="malformed stream chunk") as info:
        decoder.line(f"data: {json.dumps(chunk)}")
    assert URL in str(info.value)


@pytest.mark.parametrize(
    "chunk",
    [
        {"message": "text"},
        {"message": {"tool_calls": ["call"]}},
        {"message": {"tool_calls": [{"function": "read"}]}},
        {"message": {}, "done": True, "eval_count": "lots"},
        {"message": {}, "done": True, "eval_duration": "long"},
    ],
)
def test_ollama_line_of_the_wrong_shape_is_a_server_error(chunk: dict[str, object]) -> None:
    decoder = OllamaDecoder(_request(), URL, 4096)
    with pytest.raises(ServerError, match="malformed stream chunk"):
        decoder.line(json.dumps(chunk))


def test_usage_keeps_unrounded_times_and_earlier_counts() -> None:
    decoder: Decoder = SSEDecoder(_request(), URL, 4096)
    decoder.line('data: {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}')
    decoder.line('data: {"choices": [], "timings": {"prompt_ms": 1.23456789, "predicted_ms": 2.5, "cache_n": 3}}')
    usage = next(e for e in decoder.finish() if isinstance(e, Usage))
    assert usage.prompt_tokens == 7 and usage.completion_tokens == 2
    assert usage.cached_prompt_tokens == 3
    assert usage.prompt_ms == 1.23456789
    assert usage.context_size == 4096


@pytest.mark.parametrize(
    ("turn", "message"),
    [
        ({"tool_calls": [{"name": "read", "arguments": "{not json"}]}, "arguments of tool call 'read' are not valid"),
        ({"tool_calls": [{"name": "read", "arguments": "[1, 2]"}]}, "must be a JSON object"),
        ({"tool_calls": [{"name": "read", "arguments": 5}]}, "must be a JSON object"),
        ({"delay": "soon"}, "'delay' must be a number"),
        ({"repeat": [2]}, "'repeat' must be a number"),
    ],
)
def test_bad_scenario_turn_names_the_turn(turn: dict[str, object], message: str) -> None:
    with pytest.raises(QwenRuntimeError, match=message) as info:
        ScriptedTurn.from_dict(turn)
    assert str(info.value).startswith("scenario turn")


def test_scenario_file_error_names_the_file_and_turn(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"turns": ["fine", {"delay": "soon"}]}), encoding="utf-8")
    with pytest.raises(QwenRuntimeError, match=r"bad\.json, turn 2: 'delay' must be a number"):
        load_scenario(path)


def test_scenario_accepts_arguments_as_a_json_string() -> None:
    turn = ScriptedTurn.from_dict({"tool_calls": [{"name": "read", "arguments": '{"path": "a"}'}], "repeat": "2"})
    assert turn.tool_calls[0].arguments == {"path": "a"}
    assert turn.repeat == 2


def test_chunks_cut_text_into_pieces() -> None:
    assert list(chunks("abcdefg", 3)) == ["abc", "def", "g"]
    assert list(chunks("", 3)) == []


@pytest.mark.parametrize(
    ("parameters", "message"),
    [("{not json", "parameters of tool 'read' are not valid JSON"), ("[1]", "must be a JSON object")],
)
def test_tool_spec_with_bad_parameter_string_names_the_tool(parameters: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolSpec.from_dict({"name": "read", "parameters": parameters})


def test_tool_spec_parameters_as_a_json_string() -> None:
    spec = ToolSpec.from_dict({"name": "read", "parameters": '{"type": "object"}'})
    assert spec.parameters == {"type": "object"}
