"""`sigit mcp` on stdio, driven by the mcp SDK's client: a task edits a file and the diff comes back with
progress on the way, the task continues by its session id, and bad input gets an MCP error while the
server keeps serving. (Bad flags are refused before anything serves: `sigit.cli.main` in this process.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from ..in_process import run_sigit_main
from .conftest import SIGIT, scripted, server_env

pytestmark = pytest.mark.slow

EDIT = {"name": "edit_file", "arguments": {"path": "greet.py", "old_text": "hello", "new_text": "goodbye"}}
RUN = {"name": "run_command", "arguments": {"command": "echo tested"}}


def stdio(work: Path, config: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=SIGIT, args=["mcp", "--cwd", str(work), *flags], env=server_env(config), cwd=str(work)
    )


async def test_a_task_edits_a_file_and_the_diff_commands_and_progress_come_back(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    (work / "greet.py").write_text("print('hello')\n")
    model = scripted(tmp_path, [{"tool_calls": [EDIT]}, {"tool_calls": [RUN]}, {"text": "Changed the greeting."}])
    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    server = stdio(work, config, "--permission-mode", "accept-edits", "--allow-tool", "run_command(echo *)")
    async with Client(server, mode="legacy") as client:  # the 2025-11-25 handshake Claude Code speaks
        result = await client.call_tool(
            "run_task", {"prompt": "say goodbye", "model": model}, progress_callback=on_progress
        )
    assert not result.is_error, result.content
    report = result.structured_content
    assert report["answer"] == "Changed the greeting." and report["stop_reason"] == "end_turn"
    assert (work / "greet.py").read_text() == "print('goodbye')\n"
    assert report["files_changed"] == ["greet.py"]
    assert "-print('hello')\n+print('goodbye')\n" in report["diff"] and "--- a/greet.py" in report["diff"]
    assert report["commands"] == [
        {"command": "echo tested", "ran": True, "is_error": False, "output": report["commands"][0]["output"]}
    ]
    assert "tested" in report["commands"][0]["output"]
    assert report["usage"]["input_tokens"] > 0 and report["turns"] == 3
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("Changed the greeting.") and "+print('goodbye')" in text
    steps = [done for done, _ in progress]
    assert steps == sorted(steps) and len(steps) >= 4
    messages = [message or "" for _, message in progress]
    assert any("edit_file greet.py" in m for m in messages) and messages[-1] == "finished: end_turn"


async def test_a_task_continues_by_its_session_id_and_bad_input_gets_errors(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    first = scripted(tmp_path, [{"text": "The file is empty."}])
    second = scripted(tmp_path, [{"text": "Still empty."}])
    async with Client(stdio(work, config), mode="legacy") as client:
        one = await client.call_tool("run_task", {"prompt": "look at notes.txt", "model": first})
        session_id = one.structured_content["session_id"]
        two = await client.call_tool("run_task", {"prompt": "and now?", "session_id": session_id, "model": second})
        assert two.structured_content["session_id"] == session_id
        assert two.structured_content["answer"] == "Still empty."

        with pytest.raises(MCPError, match="unknown tool 'delete_everything'"):
            await client.call_tool("delete_everything", {})
        wrong = await client.call_tool("run_task", {"prompt": 5, "max_turns": "many"})
        assert wrong.is_error
        assert "`prompt`" in wrong.content[0].text and "`max_turns`" in wrong.content[0].text  # type: ignore[union-attr]
        wrong_tool = await client.call_tool("read_file", {"path": ["a", "b"]})
        assert wrong_tool.is_error and "Invalid arguments for read_file" in wrong_tool.content[0].text  # type: ignore[union-attr]
        huge = await client.call_tool("create_file", {"path": "big.txt", "content": "x" * (3 * 1024 * 1024)})
        assert huge.is_error and "at most" in huge.content[0].text  # type: ignore[union-attr]
        assert not (work / "big.txt").exists()
        unknown_session = await client.call_tool("run_task", {"prompt": "go", "session_id": "nope"})
        assert unknown_session.is_error and "nope" in unknown_session.content[0].text  # type: ignore[union-attr]
        relative = await client.call_tool("run_task", {"prompt": "go", "cwd": "work"})
        assert relative.is_error and "absolute" in relative.content[0].text  # type: ignore[union-attr]

        listing = await client.list_tools()  # still serving
        assert "run_task" in [tool.name for tool in listing.tools]
        (work / "notes.txt").write_text("")
        read = await client.call_tool("read_file", {"path": "notes.txt"})
        assert not read.is_error
    saved = (config / "sessions" / f"{session_id}.jsonl").read_text()  # one conversation, both prompts
    assert saved.index(json.dumps("look at notes.txt")) < saved.index(json.dumps("and now?"))


def test_bad_flags_are_a_usage_error_before_anything_serves(tmp_path: Path) -> None:
    proc = run_sigit_main(["mcp", "--cwd", str(tmp_path / "missing"), "--port", "0"],
                          env={"SIGIT_CONFIG_DIR": str(tmp_path / "config"), "HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"sigit mcp: --cwd {tmp_path / 'missing'} is not a directory" in proc.stderr
