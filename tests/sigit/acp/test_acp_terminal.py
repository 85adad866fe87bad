"""run_command in the editor's terminal when the client offers `terminal`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import text_block
from sigit.frontends.acp.terminal import format_output
from sigit.sandbox.support import INTERPRETER
from sigit.tools.processes import run_shell

from ..mcp_server.conftest import running_sleeps, wait_until
from .conftest import RecordingClient, running_agent, write_scenario


async def test_foreground_command_runs_in_the_editor_terminal_shown_on_the_card(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    (project / "sub").mkdir()
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "run_command", "arguments": {
            "command": "echo hello from $(basename $PWD) pager=$GIT_PAGER; exit 3", "cwd": "sub"}}]},
        {"text": "It failed with 3."},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass", terminal=True) as conn:
        sid = (await conn.new_session(cwd=str(project))).session_id
        reply = await conn.prompt(session_id=sid, prompt=[text_block("run it")])
    assert reply.stop_reason == "end_turn"
    (create, *rest) = client.terminal_calls
    command, args, cwd, limit = create[1]
    # the editor runs the sandbox's launcher, which confines `sh -c COMMAND` (the default sandbox)
    assert command == INTERPRETER and (cwd, limit) == (str(project / "sub"), 50_000)
    assert args[-4:] == ["--", run_shell(), "-c", "echo hello from $(basename $PWD) pager=$GIT_PAGER; exit 3"]
    assert [name for name, _ in rest] == ["wait", "output", "release"]
    assert client.terminals == {}  # released
    updates = client.of("tool_call_update")
    live = [u for u in updates if u.content and u.content[0].type == "terminal"]
    assert live and live[0].status is None and live[0].content[0].terminal_id == "term-1"
    final = updates[-1]
    assert final.status == "failed" and [c.type for c in final.content] == ["terminal"]
    saved = (config_dir / "sessions" / f"{sid}.jsonl").read_text()
    assert "Exit code 3:\\nhello from sub pager=cat\\n" in saved


@pytest.mark.script_may_remain  # the turn after the cancelled one is never asked for
async def test_cancel_kills_and_releases_the_editor_terminal(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    marker = "45.375"  # `sleep 45.375`: killed, not waited out (the reply comes long before it would end)
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": f"sleep {marker}"}}]},
        {"text": "never"},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass", terminal=True) as conn:
        sid = (await conn.new_session(cwd=str(project))).session_id
        task = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("sleep")]))
        while ("wait", "term-1") not in client.terminal_calls:
            await asyncio.sleep(0.02)
        await conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(task, 30)
    assert reply.stop_reason == "cancelled"
    assert await asyncio.to_thread(wait_until, lambda: not running_sleeps(marker))
    names = [name for name, _ in client.terminal_calls]
    assert names.index("kill") < names.index("release")
    assert client.terminals == {}


def test_terminal_output_is_formatted_like_a_local_command() -> None:
    assert format_output("", truncated=False) == "(no output)"
    assert format_output("ok\n", truncated=True).startswith("[the start of the output was cut by the editor]")
    long = "a" * 40_000 + "b" * 40_000
    shown = format_output(long, truncated=False)
    assert shown.startswith("a" * 100) and shown.endswith("b" * 100) and "bytes of output omitted" in shown


async def _write_outside(tmp_path: Path, config_dir: Path, project: Path, answer: str
                         ) -> tuple[Path, RecordingClient, str, str]:
    """A bypass-mode session whose model writes outside the workspace in the editor terminal; the user
    answers the sandbox's prompt with `answer`. Returns the file, the client, the session id, the stop reason."""
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": f"echo changed > {outside}"}}]},
        {"text": "Done."},
    ])
    client = RecordingClient(answer)
    async with running_agent(client, scenario, config_dir, "--permission-mode", "bypass", terminal=True) as conn:
        sid = (await conn.new_session(cwd=str(project))).session_id
        reply = await conn.prompt(session_id=sid, prompt=[text_block("change it")])
    return outside, client, sid, reply.stop_reason


async def test_a_sandbox_refusal_in_the_editor_terminal_reaches_the_model(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    outside, client, sid, stop = await _write_outside(tmp_path, config_dir, project, "keep_sandbox")
    assert stop == "end_turn"
    assert outside.read_text() == "untouched\n"
    [(_asked, options)] = client.permissions  # bypass asks nothing else; leaving the sandbox it does
    assert [o.option_id for o in options] == ["run_unsandboxed_once", "keep_sandbox"]
    saved = (config_dir / "sessions" / f"{sid}.jsonl").read_text()
    assert f"blocked by the sandbox: write to {outside} outside the workspace" in saved
    assert "keep it in the sandbox" in saved


async def test_accepting_reruns_the_command_once_without_the_sandbox(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    outside, client, sid, _stop = await _write_outside(tmp_path, config_dir, project, "run_unsandboxed_once")
    [(asked, _options)] = client.permissions
    assert asked.title == f"Run `echo changed > {outside}` once without the sandbox?"
    assert any(f"blocked by the sandbox: write to {outside}" in c.content.text for c in asked.content)
    assert outside.read_text() == "changed\n"
    creates = [args for name, args in client.terminal_calls if name == "create"]
    assert [c[0] for c in creates] == [INTERPRETER, run_shell()]  # confined, then the one unconfined rerun
    saved = (config_dir / "sessions" / f"{sid}.jsonl").read_text()
    assert "The user let this command run once without the sandbox." in saved
