"""Scaling out with a 2026 Qwen behind vLLM, SGLang or llama-server: the server parses the XML calls
(`--tool-call-parser qwen3_coder`, a reasoning parser) and returns `tool_calls`, or it was started
without a parser and leaves `<think>` and `<tool_call><function=...>` in `content`. Both give the
same call; the template options reach the server in `chat_template_kwargs`."""

from __future__ import annotations

import pytest
from qwen_runtime.backends.openai_compat import OpenAICompatRuntime
from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
from qwen_runtime.testing import ScriptedServer
from qwen_runtime.types import ChatRequest, ToolSpec, UserMessage

pytestmark = pytest.mark.timeout(20)

READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {
    "path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]})
ARGS = {"path": "src/a <b>.py", "limit": 20}
XML_REPLY = ("<think>\nThe user wants the file.\n</think>\n\n<tool_call>\n<function=read_file>\n"
             "<parameter=path>\nsrc/a <b>.py\n</parameter>\n<parameter=limit>\n20\n</parameter>\n"
             "</function>\n</tool_call>")
PARSED = ScriptedTurn(reasoning="The user wants the file.", tool_calls=(ScriptedCall("read_file", ARGS, id="c1"),))
UNPARSED = ScriptedTurn(raw=XML_REPLY, finish_reason="stop")


@pytest.mark.parametrize("turn", [PARSED, UNPARSED], ids=["tool_calls", "xml-in-content"])
def test_a_server_with_or_without_a_tool_parser_gives_the_same_xml_call(turn: ScriptedTurn) -> None:
    with ScriptedServer([turn]) as server:
        rt = OpenAICompatRuntime(server.base_url, "Qwen/Qwen3.6-35B-A3B")
        done = rt.complete(ChatRequest((UserMessage("read src/a <b>.py"),), (READ,), reasoning_effort="low",
                                       preserve_thinking=True))
        body = server.requests[0]
    assert [(c.name, c.arguments) for c in done.tool_calls] == [("read_file", ARGS)]
    assert done.reasoning.strip() == "The user wants the file."
    assert "<tool_call>" not in done.text and done.finish_reason == "tool_calls"
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "preserve_thinking": True,
                                            "reasoning_effort": "low"}
