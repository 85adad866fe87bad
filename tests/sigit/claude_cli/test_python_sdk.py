"""The Python `claude-agent-sdk`, unchanged, with `cli_path` pointing at `sigit`: what an app built on
it sees (typed messages, permission callbacks, interrupts, modes) on a local model. The first test's
SDK starts the real `sigit`; the others' run its `main` in this process on the SDK's pipes (conftest)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultError,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

from ..proc_table import alive_with, token
from .conftest import SIGIT, MakeOptions

pytestmark = pytest.mark.slow


async def _response(client: ClaudeSDKClient) -> list[Any]:
    return [message async for message in client.receive_response()]


def _blocks(messages: list[Any], kind: type) -> list[Any]:
    return [b for m in messages if isinstance(m, AssistantMessage | UserMessage) and isinstance(m.content, list)
            for b in m.content if isinstance(b, kind)]


async def test_query_reads_a_file_and_answers(workdir: Path, sdk_options: MakeOptions, real_cli_process: None) -> None:
    """The SDK starts the real `sigit` here (the other tests run its `main` in this process: conftest)."""
    (workdir / "notes.txt").write_text("the answer is 42\n")
    options = sdk_options([
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"text": "The notes say the answer is 42."},
    ])
    found = [message async for message in query(prompt="What do the notes say?", options=options)]

    init = next(m for m in found if isinstance(m, SystemMessage) and m.subtype == "init")
    assert "Read" in init.data["tools"] and "Bash" in init.data["tools"]  # Claude Code's tool names
    uses = _blocks(found, ToolUseBlock)
    assert [(u.name, u.input) for u in uses] == [("Read", {"file_path": "notes.txt"})]
    results = _blocks(found, ToolResultBlock)
    assert results[0].tool_use_id == uses[0].id and "the answer is 42" in str(results[0].content)
    assert not results[0].is_error
    answer = [m for m in found if isinstance(m, AssistantMessage) and any(isinstance(b, TextBlock) for b in m.content)]
    assert answer and answer[-1].model.startswith("scripted:")
    result = found[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "success" and not result.is_error
    assert result.result == "The notes say the answer is 42." and result.num_turns == 2
    assert result.session_id == init.data["session_id"]


async def test_client_conversation_of_two_turns_in_one_process(sdk_options: MakeOptions) -> None:
    options = sdk_options([{"text": "Hello! I am here."}, {"text": "You said hello before."}])
    async with ClaudeSDKClient(options) as client:
        info = await client.get_server_info()
        await client.query("hello")
        first = await _response(client)
        await client.query("what did I say?")
        second = await _response(client)
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "Hello! I am here."
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "You said hello before."
    assert first[-1].session_id == second[-1].session_id  # one session: the second turn continued it
    assert info is not None and info["models"][0]["value"].startswith("scripted:")
    assert "acceptEdits" in info["permission_modes"] and info["permissionMode"] == "default"


BASH_TURNS = [
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ran.txt"}}]},
    {"text": "Done."},
]


async def test_can_use_tool_denies_a_bash_call(workdir: Path, sdk_options: MakeOptions) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext
                           ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((name, tool_input))
        return PermissionResultDeny(message="No shell commands today.")

    async with ClaudeSDKClient(sdk_options(BASH_TURNS, can_use_tool=can_use_tool)) as client:
        await client.query("touch a file")
        found = await _response(client)
    assert asked == [("Bash", {"command": "touch ran.txt"})]
    assert not (workdir / "ran.txt").exists()  # nothing ran
    result_block = _blocks(found, ToolResultBlock)[0]
    assert result_block.is_error and "No shell commands today." in str(result_block.content)  # the model is told
    assert isinstance(found[-1], ResultMessage)
    assert [d["tool_name"] for d in found[-1].permission_denials or []] == ["Bash"]


async def test_can_use_tool_allows_a_bash_call(workdir: Path, sdk_options: MakeOptions) -> None:
    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext
                           ) -> PermissionResultAllow:
        return PermissionResultAllow()

    async with ClaudeSDKClient(sdk_options(BASH_TURNS, can_use_tool=can_use_tool)) as client:
        await client.query("touch a file")
        found = await _response(client)
    assert (workdir / "ran.txt").exists()
    assert not _blocks(found, ToolResultBlock)[0].is_error
    assert isinstance(found[-1], ResultMessage) and found[-1].subtype == "success"


async def test_can_use_tool_may_edit_the_input(workdir: Path, sdk_options: MakeOptions) -> None:
    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext
                           ) -> PermissionResultAllow:
        return PermissionResultAllow(updated_input={"command": "touch edited.txt"})

    async with ClaudeSDKClient(sdk_options(BASH_TURNS, can_use_tool=can_use_tool)) as client:
        await client.query("touch a file")
        await _response(client)
    assert (workdir / "edited.txt").exists() and not (workdir / "ran.txt").exists()


@pytest.mark.script_may_remain
async def test_interrupt_kills_a_long_command_and_ends_the_turn(workdir: Path, sdk_options: MakeOptions) -> None:
    sleeper = token()  # found from outside by its command line: `$$` would be its PID namespace's number
    turns = [
        {"tool_calls": [{"name": "run_command", "arguments": {
            "command": f"touch started.txt; sleep {sleeper}; touch late.txt"}}]},
        {"text": "never reached"},
    ]
    async with ClaudeSDKClient(sdk_options(turns, allowed_tools=["Bash"])) as client:
        await client.query("run the long job")
        while not (workdir / "started.txt").exists():
            await asyncio.sleep(0.05)
        await client.interrupt()
        found = await _response(client)
    result = found[-1]
    assert isinstance(result, ResultMessage)
    assert result.is_error and result.stop_reason == "cancelled"
    assert alive_with(sleeper) == []  # the command is gone, long before its minutes were up
    assert not (workdir / "late.txt").exists()


async def test_set_permission_mode_accept_edits(workdir: Path, sdk_options: MakeOptions) -> None:
    write = {"tool_calls": [{"name": "create_file", "arguments": {"path": "a.txt", "content": "A\n"}}]}
    options = sdk_options([write, {"text": "Could not write."}, write, {"text": "Wrote a.txt."}])
    async with ClaudeSDKClient(options) as client:
        await client.query("write a.txt")
        refused = await _response(client)
        assert not (workdir / "a.txt").exists()  # default mode: a write asks, and nobody can be asked
        assert _blocks(refused, ToolResultBlock)[0].is_error
        await client.set_permission_mode("acceptEdits")
        await client.query("write a.txt again")
        accepted = await _response(client)
    assert (workdir / "a.txt").read_text() == "A\n"
    uses = _blocks(accepted, ToolUseBlock)
    assert [(u.name, u.input["file_path"]) for u in uses] == [("Write", "a.txt")]
    assert isinstance(accepted[-1], ResultMessage) and accepted[-1].subtype == "success"


async def test_a_pre_tool_use_hook_of_the_app_blocks_a_call(workdir: Path, sdk_options: MakeOptions) -> None:
    heard: list[tuple[str, Any]] = []

    async def guard(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        heard.append((hook_input["hook_event_name"], hook_input["tool_input"]))
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "touching files is off limits"}}

    options = sdk_options(BASH_TURNS, allowed_tools=["Bash"],
                          hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]})
    async with ClaudeSDKClient(options) as client:
        await client.query("touch a file")
        found = await _response(client)
    assert heard == [("PreToolUse", {"command": "touch ran.txt"})]
    assert not (workdir / "ran.txt").exists()
    assert "touching files is off limits" in str(_blocks(found, ToolResultBlock)[0].content)


async def test_resume_continues_a_saved_session(sdk_options: MakeOptions) -> None:
    first = [m async for m in query(prompt="remember the word kiwi", options=sdk_options([{"text": "Noted."}]))]
    session_id = first[-1].session_id
    again = sdk_options([{"text": "The word was kiwi."}], resume=session_id)
    async with ClaudeSDKClient(again) as client:
        await client.query("which word?")
        found = await _response(client)
        usage = await client.get_context_usage()
    assert isinstance(found[-1], ResultMessage) and found[-1].session_id == session_id
    assert usage["totalTokens"] > 0 and usage["model"].startswith("scripted:")


async def test_thinking_arrives_as_a_thinking_block(sdk_options: MakeOptions) -> None:
    options = sdk_options([{"reasoning": "The user greets me.", "text": "Hi!"}])
    found = [m async for m in query(prompt="hello", options=options)]
    thoughts = _blocks(found, ThinkingBlock)
    assert [t.thinking for t in thoughts] == ["The user greets me."]
    assert isinstance(found[-1], ResultMessage) and found[-1].result == "Hi!"


async def test_mcp_servers_from_the_options_are_started(workdir: Path, sdk_options: MakeOptions) -> None:
    fixture = Path(__file__).parents[1] / "extensions" / "mcp_server_fixture.py"
    servers = {"fixture": {"type": "stdio", "command": sys.executable, "args": [str(fixture)]}}
    options = sdk_options([{"tool_calls": [{"name": "mcp__fixture__add", "arguments": {"a": 2, "b": 3}}]},
                           {"text": "2 + 3 = 5"}], mcp_servers=servers, allowed_tools=["mcp__fixture__add"])
    async with ClaudeSDKClient(options) as client:
        status = await client.get_mcp_status()
        await client.query("add 2 and 3")
        found = await _response(client)
    assert [(s["name"], s["status"]) for s in status["mcpServers"]] == [("fixture", "connected")]
    results = _blocks(found, ToolResultBlock)
    assert "5" in str(results[0].content) and not results[0].is_error


async def test_an_edited_input_is_still_judged_by_the_deny_rules(workdir: Path, sdk_options: MakeOptions) -> None:
    (workdir / "keep.txt").write_text("keep\n")

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext
                           ) -> PermissionResultAllow:
        return PermissionResultAllow(updated_input={"command": "rm keep.txt"})

    options = sdk_options(BASH_TURNS, can_use_tool=can_use_tool, disallowed_tools=["Bash(rm *)"])
    async with ClaudeSDKClient(options) as client:
        await client.query("touch a file")
        found = await _response(client)
    assert (workdir / "keep.txt").exists()
    result_block = _blocks(found, ToolResultBlock)[0]
    assert result_block.is_error and "the edited call is refused" in str(result_block.content)


async def test_set_model_switches_the_session_to_another_model(sdk_options: MakeOptions, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"turns": [{"text": "from the other model"}]}')
    async with ClaudeSDKClient(sdk_options([{"text": "from the first model"}])) as client:
        await client.query("hi")
        first = await _response(client)
        await client.set_model(f"scripted:{other}")
        await client.query("hi again")
        second = await _response(client)
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "from the first model"
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "from the other model"
    assert first[-1].session_id == second[-1].session_id  # the same conversation, on another model
    model = next(m.model for m in second if isinstance(m, AssistantMessage))
    assert model == f"scripted:{other}"


@pytest.mark.script_may_remain
async def test_interrupt_while_the_app_decides_ends_the_turn(workdir: Path, sdk_options: MakeOptions) -> None:
    asked = asyncio.Event()
    cancelled: list[bool] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext
                           ) -> PermissionResultAllow:
        asked.set()
        try:
            await asyncio.Event().wait()  # the user never answers
        except asyncio.CancelledError:
            cancelled.append(True)  # sigit withdrew the question (control_cancel_request)
            raise
        return PermissionResultAllow()

    async with ClaudeSDKClient(sdk_options(BASH_TURNS, can_use_tool=can_use_tool)) as client:
        await client.query("touch a file")
        await asyncio.wait_for(asked.wait(), 30)
        await client.interrupt()
        found = await _response(client)
        while not cancelled:
            await asyncio.sleep(0.01)
    assert isinstance(found[-1], ResultMessage) and found[-1].stop_reason == "cancelled"
    assert not (workdir / "ran.txt").exists()


async def test_dont_ask_mode_refuses_without_asking_the_app(workdir: Path, sdk_options: MakeOptions) -> None:
    asked: list[str] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext
                           ) -> PermissionResultAllow:
        asked.append(name)
        return PermissionResultAllow()

    options = sdk_options(BASH_TURNS, can_use_tool=can_use_tool, permission_mode="dontAsk")
    async with ClaudeSDKClient(options) as client:
        await client.query("touch a file")
        found = await _response(client)
    assert asked == [] and not (workdir / "ran.txt").exists()
    assert "dontAsk" in str(_blocks(found, ToolResultBlock)[0].content)


async def test_the_apps_in_process_mcp_tools_are_offered_and_called(sdk_options: MakeOptions) -> None:
    calls: list[dict[str, Any]] = []

    @tool("multiply", "Multiply two integers", {"a": int, "b": int})
    async def multiply(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] * args["b"])}]}

    server = create_sdk_mcp_server("calc", tools=[multiply])
    options = sdk_options([{"tool_calls": [{"name": "mcp__calc__multiply", "arguments": {"a": 6, "b": 7}}]},
                           {"text": "6 x 7 = 42"}],
                          mcp_servers={"calc": server}, allowed_tools=["mcp__calc__multiply"])
    found = [m async for m in query(prompt="what is 6 x 7?", options=options)]
    init = next(m for m in found if isinstance(m, SystemMessage) and m.subtype == "init")
    assert "mcp__calc__multiply" in init.data["tools"]
    assert calls == [{"a": 6, "b": 7}]  # the app's own function ran, in the app's process
    result_block = _blocks(found, ToolResultBlock)[0]
    assert "42" in str(result_block.content) and not result_block.is_error
    assert isinstance(found[-1], ResultMessage) and found[-1].result == "6 x 7 = 42"


async def test_a_bad_model_name_reaches_the_app_as_a_clear_error(workdir: Path) -> None:
    options = ClaudeAgentOptions(cli_path=SIGIT, cwd=workdir, model="no-such-model")
    found: list[Any] = []
    with pytest.raises(ResultError, match="bad runtime name 'no-such-model'"):
        async for message in query(prompt="hi", options=options):
            found.append(message)
    assert isinstance(found[-1], ResultMessage) and found[-1].is_error
