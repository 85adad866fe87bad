"""Hooks and MCP servers from settings reach the agent: a blocking hook stops a command, MCP tools run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from sigit.agent.events import AgentEvent, Notice, ToolFinished, TurnFinished
from sigit.app import AgentSession

FIXTURE = Path(__file__).resolve().parents[1] / "extensions" / "mcp_server_fixture.py"


async def collect(session: AgentSession, prompt: str) -> list[AgentEvent]:
    return [event async for event in session.prompt(prompt)]


def project_settings(workdir: Path, text: str) -> None:
    (workdir / ".sigit").mkdir(exist_ok=True)
    (workdir / ".sigit" / "settings.toml").write_text(text)


async def test_blocking_pre_tool_hook_stops_run_command(open_session: Any, workdir: Path) -> None:
    project_settings(workdir, """
[[hooks.pre_tool_use]]
matcher = "run_command"
command = "cat > hook-input.json; echo 'no commands on Fridays' >&2; exit 2"
""")
    session, runtime = await open_session(
        [{"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ran"}}]}, "ok"],
        permission_mode="bypass", trust=True,
    )
    events = await collect(session, "touch it")
    assert not (workdir / "ran").exists()
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert finished.is_error and "no commands on Fridays" in finished.output
    assert "Blocked by a hook" in runtime.requests[1].messages[-1].content
    payload = json.loads((workdir / "hook-input.json").read_text())
    assert payload["tool_name"] == "run_command" and payload["tool_input"]["command"] == "touch ran"


async def test_user_prompt_hook_can_refuse_a_prompt(open_session: Any, workdir: Path) -> None:
    project_settings(workdir, '[[hooks.user_prompt_submit]]\ncommand = "echo nope >&2; exit 2"\n')
    session, runtime = await open_session([], trust=True)
    events = await collect(session, "hello")
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "refusal"
    assert runtime.requests == []


async def test_mcp_server_from_mcp_json_is_offered_and_called(open_session: Any, workdir: Path) -> None:
    (workdir / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"fixture": {"command": sys.executable, "args": [str(FIXTURE)]}}}
    ))
    session, runtime = await open_session(
        [{"tool_calls": [{"name": "mcp__fixture__add", "arguments": {"a": 2, "b": 3}}]}, "five"],
        permission_mode="bypass", trust=True,
    )
    try:
        events = await collect(session, "add")
        names = [spec.name for spec in runtime.requests[0].tools]
        assert "mcp__fixture__add" in names
        finished = next(e for e in events if isinstance(e, ToolFinished))
        assert not finished.is_error and "5" in finished.output
        assert "fixture" in session.mcp_status()
    finally:
        await session.close()


async def test_bad_mcp_server_is_reported_not_fatal(open_session: Any, workdir: Path) -> None:
    (workdir / ".mcp.json").write_text(json.dumps({"mcpServers": {"dead": {"command": "/nonexistent/x"}}}))
    session, _ = await open_session(["hi"], trust=True)
    try:
        events = await collect(session, "hello")
        assert any(isinstance(e, Notice) and "dead" in e.message for e in events)
        assert isinstance(events[-1], TurnFinished) and events[-1].text == "hi"
    finally:
        await session.close()


async def test_custom_command_expands_and_skill_tool_is_offered(open_session: Any, workdir: Path) -> None:
    (workdir / ".claude" / "commands" / "git").mkdir(parents=True)
    (workdir / ".claude" / "commands" / "git" / "commit.md").write_text(
        "---\ndescription: Commit\nargument-hint: MESSAGE\n---\nCommit with message: $1 (all: $ARGUMENTS)\n"
    )
    (workdir / ".claude" / "skills" / "pdf").mkdir(parents=True)
    (workdir / ".claude" / "skills" / "pdf" / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: Work with PDF files\n---\nUse pdftotext.\n"
    )
    session, runtime = await open_session(["ok"])
    await collect(session, '/git:commit "fix bug" now')
    sent = runtime.requests[0].messages[-1].content
    assert sent.strip() == "Commit with message: fix bug (all: \"fix bug\" now)"
    offered = {spec.name for spec in runtime.requests[0].tools}
    assert {"skill", "task"} <= offered
    skill = next(spec for spec in runtime.requests[0].tools if spec.name == "skill")
    assert "pdf" in skill.description


async def test_mcp_timeouts_come_from_settings(open_session: Any, workdir: Path) -> None:
    server = f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(FIXTURE))}]\n"
    # values unlike the defaults (8, 120), and a handshake one a loaded machine's server start fits in
    # (the fixture imports the mcp SDK: seconds of CPU under load, which a 3 s limit failed on)
    project_settings(workdir, "[mcp]\nhandshake_timeout_secs = 60\ncall_timeout_secs = 90\n"
                     f"[mcp.servers.fixture]\n{server}")
    session, _ = await open_session(["hi"], trust=True)
    try:
        assert session.mcp is not None
        assert (session.mcp.handshake_timeout, session.mcp.call_timeout) == (60.0, 90.0)
        assert "fixture" in session.mcp_status() and "connected" in session.mcp_status()
        events = await collect(session, "hello")
        assert not any(isinstance(e, Notice) and "mcp" in e.message.lower() for e in events)
    finally:
        await session.close()
