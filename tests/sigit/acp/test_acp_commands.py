"""Permission answers that outlive one call, and the slash commands that act on the session."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from .conftest import RecordingClient, running_agent, write_scenario


async def test_always_allow_in_this_project_saves_the_rule(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo hi > out.txt"}}]},
        {"text": "done"},
    ])
    client = RecordingClient("allow_project")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert (project / "out.txt").read_text() == "hi\n"
    (_, options) = client.permissions[0]
    assert "allow_project" in {o.option_id for o in options}
    settings = (project / ".sigit" / "settings.toml").read_text()
    assert "run_command(" in settings and "echo" in settings


async def test_always_reject_refuses_the_same_call_later_without_asking(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    call = {"name": "create_file", "arguments": {"path": "x.txt", "content": "x"}}
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [call]}, {"text": "ok"}, {"tool_calls": [call]}, {"text": "still no"},
    ])
    client = RecordingClient("reject_always")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("make x")])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("make x again")])
    assert len(client.permissions) == 1
    assert not (project / "x.txt").exists()
    finals = [u for u in client.of("tool_call_update") if u.status in ("completed", "failed")]
    assert [u.status for u in finals] == ["failed", "failed"]


async def test_undo_restores_the_file_and_compact_summarises(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    (project / "f.txt").write_text("original\n")
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "edit_file", "arguments": {
            "path": "f.txt", "old_text": "original", "new_text": "changed"}}]},
        {"text": "edited"},
        {"text": "answer two"},
        {"text": "answer three"},
        {"text": "SUMMARY-OF-IT-ALL"},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass") as conn:
        sid = (await conn.new_session(cwd=str(project))).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("change it")])
        assert (project / "f.txt").read_text() == "changed\n"
        await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
        assert (project / "f.txt").read_text() == "original\n"
        await conn.prompt(session_id=sid, prompt=[text_block("question two")])
        await conn.prompt(session_id=sid, prompt=[text_block("question three")])
        reply = await conn.prompt(session_id=sid, prompt=[text_block("/compact")])
    assert reply.stop_reason == "end_turn"
    assert "Restored:" in client.text() and "f.txt" in client.text()
    assert "Compacted" in client.text()
    saved = (config_dir / "sessions" / f"{sid}.jsonl").read_text()
    assert "[Conversation summary]\\nSUMMARY-OF-IT-ALL" in saved
    assert '"content": "change it"' not in saved  # summarised away (the title keeps it)


async def test_init_runs_the_init_prompt_and_tools_and_mcp_list_the_session(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "create_file", "arguments": {
            "path": "AGENTS.md", "content": "# Agents\nRun the tests.\n"}}]},
        {"text": "Wrote AGENTS.md."},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass") as conn:
        sid = (await conn.new_session(cwd=str(project))).session_id
        init = await conn.prompt(session_id=sid, prompt=[text_block("/init")])
        await conn.prompt(session_id=sid, prompt=[text_block("/tools")])
        tools_text = client.text()
        await conn.prompt(session_id=sid, prompt=[text_block("/mcp")])
    assert init.stop_reason == "end_turn"
    assert (project / "AGENTS.md").read_text() == "# Agents\nRun the tests.\n"
    saved = (config_dir / "sessions" / f"{sid}.jsonl").read_text()
    assert "write (or improve, if it exists) AGENTS.md" in saved
    assert "- `run_command`" in tools_text and "- `read_file` (read-only)" in tools_text
    assert "No MCP servers configured" in client.text()
