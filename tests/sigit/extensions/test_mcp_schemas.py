"""A real MCP server (mcp_schema_server.py, FastMCP-style) whose tool takes nested pydantic models:
sigit's MCP client publishes the server's `$defs`/`$ref` schema to the model, the tiny models write the
call under `tool_choice` "required" in both call formats, and the server itself accepts every call."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from jsonschema import Draft202012Validator
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.testing.testmodel import write_test_gguf
from qwen_runtime.types import ChatRequest, Sampling, UserMessage
from sigit.extensions.mcp_client import McpManager, McpTool
from sigit.tools.base import ToolContext

SERVER = str(Path(__file__).with_name("mcp_schema_server.py"))
MODULE = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def create_event(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpTool]:
    project = tmp_path_factory.mktemp("project")
    (project / ".git").mkdir()
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"cal": {"command": sys.executable, "args": [SERVER]}}})
    )
    manager = McpManager()
    warnings = await manager.start(project, {})
    assert not warnings, warnings
    [tool] = [t for t in manager.tools() if t.name == "mcp__cal__create_event"]
    yield tool
    await manager.close()


@MODULE
@pytest.mark.slow
@pytest.mark.parametrize("template", [None, "qwen3-coder"], ids=["json-calls", "xml-calls"])
async def test_nested_pydantic_models_are_called_validly_in_both_formats(
    create_event: McpTool, template: str | None, tmp_path: Path
) -> None:
    spec = create_event.spec()
    assert "$defs" in spec.parameters  # the server's own schema, references and all
    model = write_test_gguf(tmp_path / "tiny.gguf", **({"template": template} if template else {}))
    runtime = LlamaCppRuntime(str(model), n_ctx=2048)
    try:
        for seed in range(3):
            request = ChatRequest(
                (UserMessage("plan the meeting"),),
                tools=(spec,),
                tool_choice="required",
                sampling=Sampling(max_tokens=400, seed=seed),
                enable_thinking=False,
            )
            runtime.clear_cache()
            done = runtime.complete(request)
            assert done.tool_calls and not done.tool_call_errors, done.to_dict()
            call = done.tool_calls[0]
            errors = [e.message for e in Draft202012Validator(spec.parameters).iter_errors(call.arguments)]
            assert not errors, (call.arguments, errors)
            out = await create_event.invoke(call.arguments, ToolContext(cwd=tmp_path))
            assert not out.is_error and out.text.startswith("created"), (call.arguments, out.text)
    finally:
        runtime.close()
