"""ChatEngine never hands out a call the token limit cut off: not from send_message_with_tools, not
from a stream, not from send_tool_results, and the history does not keep it as a call."""

from __future__ import annotations

import pytest
from onde import ChatEngine, Done, SamplingConfig, ToolCallFailed, ToolCallReady, ToolDefinition, ToolResult
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import AssistantMessage

WRITE = ToolDefinition(
    "write_file",
    "Write a file",
    '{"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},'
    ' "required": ["path", "content"]}',
)
CLOSED = '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "A"}}\n</tool_call>'
CUT_JSON = '<tool_call>\n{"name": "write_file", "arguments": {"path": "big.md", "content": "# Big\\n\\nline 1\\n'
CUT_XML = "<tool_call>\n<function=write_file>\n<parameter=path>\nbig.md\n</parameter>\n<parameter=content>\n# Big\n"


def cut(raw: str) -> dict[str, str]:
    return {"raw": raw, "finish_reason": "length"}


@pytest.mark.parametrize("raw", [CUT_JSON, CUT_XML], ids=["json", "xml"])
def test_send_message_with_tools_returns_the_cut_call_as_an_error_only(raw: str) -> None:
    engine = ChatEngine(ScriptedRuntime([cut("I'll write it.\n" + raw)], chunk_size=3))
    result = engine.send_message_with_tools("write big.md", [WRITE])
    assert result.finish_reason == "length"
    assert result.tool_calls == []
    assert [(e.name, e.truncated) for e in result.cut_off_calls] == [("write_file", True)]
    assert result.cut_off_calls == result.tool_call_errors
    last = engine.history_messages()[-1]
    assert isinstance(last, AssistantMessage) and last.tool_calls == ()
    assert last.content.strip() == "I'll write it."


def test_an_empty_reply_says_the_call_did_not_fit_in_max_tokens() -> None:
    engine = ChatEngine(ScriptedRuntime([cut(CUT_XML)]), sampling=SamplingConfig(max_tokens=64))
    result = engine.send_message_with_tools("write big.md", [WRITE])
    assert result.empty_reason is not None
    assert "did not fit in max_tokens (64)" in result.empty_reason
    assert "cut off at the token limit" in result.empty_reason


def test_the_stream_fails_the_cut_call_and_readies_only_the_closed_one() -> None:
    engine = ChatEngine(ScriptedRuntime([cut(CLOSED + "\n" + CUT_JSON)], chunk_size=7))
    events = list(engine.stream_message_with_tools("write both", [WRITE]))
    ready = [e.call.parsed_arguments["path"] for e in events if isinstance(e, ToolCallReady)]
    failed = [(e.error.name, e.truncated) for e in events if isinstance(e, ToolCallFailed)]
    assert ready == ["a.md"]
    assert failed == [("write_file", True)]
    done = events[-1]
    assert isinstance(done, Done) and done.finish_reason == "length"
    assert [c.parsed_arguments["path"] for c in done.result.tool_calls] == ["a.md"]


async def test_send_tool_results_whose_reply_is_cut_hands_out_no_call() -> None:
    runtime = ScriptedRuntime([{"raw": CLOSED}, cut(CUT_XML)], chunk_size=1)
    engine = ChatEngine(runtime)
    first = await engine.asend_message_with_tools("write", [WRITE])
    [call] = first.tool_calls
    second = await engine.asend_tool_results([ToolResult(call.id, "wrote a.md")], [WRITE])
    assert second.tool_calls == []
    assert [e.truncated for e in second.cut_off_calls] == [True]
