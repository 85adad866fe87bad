"""`sigit acp` driven by an ACP client on a scripted model: served in this process (conftest.running_agent),
and as the real command over stdio for the handshake with PATH empty and a turn on the tiny GGUF."""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
import pytest
from acp import text_block

from ..mcp_server.conftest import running_sleeps, wait_until
from .conftest import SIGIT, TRANSPORT, RecordingClient, agent_env, running_agent, write_scenario


async def test_initialize_advertises_what_it_supports(tmp_path: Path, config_dir: Path) -> None:
    scenario = write_scenario(tmp_path / "s.json", [])
    client = RecordingClient()
    async with acp.spawn_agent_process(
        client.as_client(), SIGIT, "acp", "--model", f"scripted:{scenario}",
        env={**agent_env(config_dir), "PATH": ""}, transport_kwargs=TRANSPORT,
    ) as (conn, _):
        reply = await conn.initialize(protocol_version=99)
    assert reply.protocol_version == acp.PROTOCOL_VERSION
    assert reply.agent_info is not None and reply.agent_info.name == "sigit"
    caps = reply.agent_capabilities
    assert caps is not None and caps.load_session is True
    assert caps.prompt_capabilities is not None
    assert caps.prompt_capabilities.embedded_context is True
    assert caps.prompt_capabilities.image is True  # a scripted model takes what it is sent, images too
    assert caps.session_capabilities is not None and caps.session_capabilities.list is not None


async def test_prompt_streams_thought_text_and_a_granted_edit(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"reasoning": "I should create the file.", "tool_calls": [
            {"name": "create_file", "arguments": {"path": "hello.txt", "content": "hi\n"}}]},
        {"text": "Created hello.txt."},
    ])
    client = RecordingClient("allow_once")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        assert session.modes is not None and session.modes.current_mode_id == "default"
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("make hello.txt")])
    assert reply.stop_reason == "end_turn"
    assert (project / "hello.txt").read_text() == "hi\n"
    assert client.text("agent_thought_chunk") == "I should create the file."
    assert client.text() == "Created hello.txt."
    assert len(client.permissions) == 1
    (start,) = client.of("tool_call")
    assert start.kind == "edit" and start.status == "pending"
    assert start.locations[0].path == str(project / "hello.txt")
    statuses = [u.status for u in client.of("tool_call_update")]
    assert statuses == ["in_progress", "completed"]
    final = client.of("tool_call_update")[-1]
    diffs = [c for c in final.content if c.type == "diff"]
    assert diffs and diffs[0].new_text == "hi\n" and diffs[0].path == str(project / "hello.txt")


async def test_denied_permission_leaves_the_file_alone(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "create_file", "arguments": {"path": "no.txt", "content": "x"}}]},
        {"text": "OK, I did not."},
    ])
    client = RecordingClient("reject_once")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("make no.txt")])
    assert reply.stop_reason == "end_turn"
    assert not (project / "no.txt").exists()
    # and the reply says why: sigit's stop reason rides in the prompt reply's _meta
    assert reply.field_meta is not None
    assert reply.field_meta["sigit"] == {"stopReason": "permission_denied", "permissionDenials": 1}
    assert client.of("tool_call_update")[-1].status == "failed"


@pytest.mark.script_may_remain  # the turn after the cancelled one is never asked for
async def test_cancel_stops_a_running_command_quickly(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    """The command is killed, not waited out: the reply comes long before its 45 s are up (a clock on
    the cancel itself failed on a loaded machine) and the process is gone."""
    marker = "45.125"  # `sleep 45.125`: this test's command, found in /proc
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": f"sleep {marker}"}}]},
        {"text": "never"},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass") as conn:
        session = await conn.new_session(cwd=str(project))
        task = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("sleep")])
        )
        assert await asyncio.to_thread(wait_until, lambda: bool(running_sleeps(marker)))
        await conn.cancel(session_id=session.session_id)
        reply = await asyncio.wait_for(task, 30)
        assert await asyncio.to_thread(wait_until, lambda: not running_sleeps(marker))
    assert reply.stop_reason == "cancelled"


@pytest.mark.script_may_remain  # the second agent only loads: its model, the same script read afresh, is never asked
async def test_load_replays_the_conversation_before_replying(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "It says alpha."},
    ])
    (project / "a.txt").write_text("alpha\n")
    first = RecordingClient()
    async with running_agent(first, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("what is in a.txt?")])
    second = RecordingClient()
    async with running_agent(second, scenario, config_dir) as conn:
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        await conn.load_session(cwd=str(project), session_id=session.session_id)
        replayed = list(second.kinds(session.session_id))
    assert replayed[:4] == ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
    assert second.of("user_message_chunk")[0].content.text == "what is in a.txt?"
    assert second.of("tool_call_update")[0].status == "completed"
    assert "alpha" in second.of("tool_call_update")[0].content[0].content.text
    assert second.text() == "It says alpha."


async def test_two_sessions_keep_their_own_directories(
    tmp_path: Path, config_dir: Path
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "create_file", "arguments": {"path": "f.txt", "content": "1"}}]},
        {"tool_calls": [{"name": "create_file", "arguments": {"path": "f.txt", "content": "2"}}]},
        {"text": "done"},
        {"text": "done"},
    ])
    client = RecordingClient("allow_once")
    async with running_agent(client, scenario, config_dir, "--permission-mode", "accept-edits") as conn:
        a = await conn.new_session(cwd=str(one))
        b = await conn.new_session(cwd=str(two))
        await asyncio.gather(
            conn.prompt(session_id=a.session_id, prompt=[text_block("write")]),
            conn.prompt(session_id=b.session_id, prompt=[text_block("write")]),
        )
    assert (one / "f.txt").exists() and (two / "f.txt").exists()
    assert {(one / "f.txt").read_text(), (two / "f.txt").read_text()} == {"1", "2"}


async def test_resource_link_line_range_reaches_the_model(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    src = project / "code.py"
    src.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    scenario = write_scenario(tmp_path / "s.json", [{"text": "ok"}])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[
            text_block("explain"),
            acp.resource_link_block("code.py", f"file://{src}#L3:4"),
            acp.resource_block(acp.embedded_text_resource("file:///x/notes.md", "remember this")),
        ])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/status")])
    status = client.text()
    assert "Messages:" in status and "Mode: **default**" in status
    # the saved session holds exactly what the model was sent
    saved = next((config_dir / "sessions").glob("*.jsonl")).read_text()
    assert f"--- file://{src}#L3:4 ---\\nline 3\\nline 4\\n--- end ---" in saved
    assert "--- file:///x/notes.md ---\\nremember this\\n--- end ---" in saved
    assert "line 5" not in saved


async def test_plan_updates_from_write_todos_and_slash_plan(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    todos = [{"content": "read", "status": "completed"}, {"content": "write", "status": "in_progress"}]
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "write_todos", "arguments": {"todos": todos}}]},
        {"text": "planned"},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("plan it")])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/plan")])
        await client.wait_for("plan")
        await client.wait_for("current_mode_update")
        await client.wait_for("available_commands_update")
    (plan,) = client.of("plan")
    assert [(e.content, e.status) for e in plan.entries] == [("read", "completed"), ("write", "in_progress")]
    assert client.of("current_mode_update")[-1].current_mode_id == "plan"
    commands = client.of("available_commands_update")[0].available_commands
    assert {"help", "plan", "init", "undo", "compact"} <= {c.name for c in commands}


async def test_file_writes_go_through_the_editor_when_it_offers_fs(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    (project / "e.txt").write_text("old line\n")
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "edit_file", "arguments": {
            "path": "e.txt", "old_text": "old line", "new_text": "new line"}}]},
        {"text": "edited"},
    ])
    client = RecordingClient("allow_always")
    async with running_agent(client, scenario, config_dir, fs=True) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("edit")])
    assert client.writes == [(str(project / "e.txt"), "new line\n")]
    assert str(project / "e.txt") in client.reads
    diff = next(c for c in client.of("tool_call_update")[-1].content if c.type == "diff")
    assert (diff.old_text, diff.new_text) == ("old line\n", "new line\n")
    (_tool_call, options) = client.permissions[0]
    assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once", "reject_always"}


async def test_editor_mcp_servers_are_connected_and_their_tools_run(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    import sys

    from acp.schema import McpServerStdio

    fixture = Path(__file__).resolve().parents[1] / "extensions" / "mcp_server_fixture.py"
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "mcp__fixture__add", "arguments": {"a": 20, "b": 22}}]},
        {"text": "42"},
    ])
    client = RecordingClient()
    server = McpServerStdio(name="fixture", command=sys.executable, args=[str(fixture)], env=[])
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass") as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("add")])
    assert reply.stop_reason == "end_turn"
    done = client.of("tool_call_update")[-1]
    assert done.status == "completed"
    assert "42" in str(done.content)


async def test_blocking_hook_stops_run_command_over_acp(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    (project / ".sigit").mkdir()
    (project / ".sigit" / "settings.toml").write_text(
        '[[hooks.pre_tool_use]]\nmatcher = "run_command"\ncommand = "echo blocked-by-policy >&2; exit 2"\n'
    )
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ran"}}]},
        {"text": "ok"},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass", "--trust") as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("touch")])
    assert not (project / "ran").exists()
    done = client.of("tool_call_update")[-1]
    assert done.status == "failed" and "blocked-by-policy" in str(done.content)


async def test_claude_custom_commands_are_advertised_and_expanded(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully.\n")
    scenario = write_scenario(tmp_path / "s.json", [{"text": "Looks fine."}])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        while not client.of("available_commands_update"):
            await asyncio.sleep(0.02)
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("/review main.py")])
    assert reply.stop_reason == "end_turn"
    names = [c.name for c in client.of("available_commands_update")[-1].available_commands]
    assert "review" in names and "mcp" in names
    saved = (config_dir / "sessions" / f"{session.session_id}.jsonl").read_text()
    assert "Review main.py carefully." in saved


async def test_smoke_turn_on_the_tiny_gguf(tiny_gguf: Path, config_dir: Path, project: Path) -> None:
    """Real llama.cpp behind the real protocol: whatever the random model emits, the turn ends cleanly.
    Mutating calls are rejected so its random commands never run."""
    client = RecordingClient("reject_once")
    args = ["acp", "--model", str(tiny_gguf), "--max-turns", "2", "--no-think"]
    async with acp.spawn_agent_process(
        client.as_client(), SIGIT, *args, env=agent_env(config_dir), transport_kwargs=TRANSPORT,
    ) as (conn, _process):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("hello")]), 120
        )
    assert reply.stop_reason in ("end_turn", "max_tokens", "max_turn_requests", "refusal")  # refusal: the loop guard
    usage = reply.usage
    # the guard may stop a looping random model early: the prompt was evaluated all the same
    assert usage is not None and usage.input_tokens > 0
    assert (usage.cached_read_tokens or 0) + (usage.cached_write_tokens or 0) == usage.input_tokens
