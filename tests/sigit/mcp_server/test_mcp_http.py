"""`sigit mcp --port 0`, one server for the module, driven by the mcp SDK's client over streamable HTTP:
a refused edit comes back as a refusal, permission questions go to the caller in either protocol era
(by elicitation on 2025-11-25, inside `input_required` on 2026-07-28), a cancel
stops the task and its command, an untrusted folder's planted settings have no effect, and the plain
tools obey the same rules."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from ..in_process import run_sigit_main
from .conftest import PLANTED_MCP, HttpServer, running_sleeps, scripted, wait_until

pytestmark = pytest.mark.slow

CREATE = {"name": "create_file", "arguments": {"path": "made.txt", "content": "made\n"}}


def answering(decision: str | None, asked: list[str]) -> Any:
    """An elicitation callback that records the question and answers `decision` (None: declines)."""

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if decision is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"decision": decision})

    return answer


async def test_an_edit_that_would_ask_comes_back_refused_when_the_client_cannot_be_asked(
    http_server: HttpServer,
) -> None:
    work = http_server.workspace("refused")
    model = scripted(http_server.root, [{"tool_calls": [CREATE]}, {"text": "I could not write it."}])
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with http_server.client() as client:  # the 2026-07-28 protocol, and no elicitation declared
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool(
            "run_task", {"prompt": "write made.txt", "cwd": str(work), "model": model}, progress_callback=on_progress
        )
        looser = await client.call_tool(
            "run_task",
            {
                "prompt": "write it anyway",
                "session_id": result.structured_content["session_id"],
                "permission_mode": "bypass",
            },
        )
    assert looser.is_error and "sigit mcp --permission-mode bypass" in looser.content[0].text  # type: ignore[union-attr]
    report = result.structured_content
    assert not result.is_error and report["stop_reason"] == "permission_denied"
    assert [d["tool_name"] for d in report["permission_denials"]] == ["create_file"]
    assert "--allow-tool" in report["permission_denials"][0]["reason"]
    assert "cannot be asked" in report["permission_denials"][0]["reason"]
    assert report["diff"] == "" and report["files_changed"] == []
    assert not (work / "made.txt").exists()
    assert "refused: create_file" in result.content[0].text  # type: ignore[union-attr]
    assert any(m.startswith("not allowed: create_file needs permission") for m in progress)
    assert progress[-1] == "finished: permission_denied"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(("decision", "written"), [("allow_once", True), ("deny", False), (None, False)])
async def test_permission_questions_go_to_the_caller_in_either_era(
    http_server: HttpServer,
    era: str,
    decision: str | None,
    written: bool,
) -> None:
    work = http_server.workspace(f"asked-{era}-{decision}")
    model = scripted(http_server.root, [{"tool_calls": [CREATE]}, {"text": "Done."}])
    asked: list[str] = []
    mode = "legacy" if era == "2025-11-25" else era
    async with http_server.client(mode=mode, elicitation_callback=answering(decision, asked)) as client:
        assert client.protocol_version == era
        result = await client.call_tool("run_task", {"prompt": "write made.txt", "cwd": str(work), "model": model})
    assert len(asked) == 1 and "create_file made.txt" in asked[0]
    assert "+++ made.txt\nmade" in asked[0]  # the change itself is shown
    assert (work / "made.txt").exists() is written
    report = result.structured_content
    assert report["files_changed"] == (["made.txt"] if written else [])
    assert report["stop_reason"] == ("end_turn" if written else "permission_denied")


@pytest.mark.parametrize(("era", "marker"), [("2025-11-25", "61.25"), ("2026-07-28", "61.26")])
async def test_a_cancel_stops_the_task_and_its_command_and_the_server_keeps_serving(
    http_server: HttpServer, era: str, marker: str
) -> None:
    work = http_server.workspace(f"cancelled-{era}")
    run = {"name": "run_command", "arguments": {"command": f"echo started > started.txt; exec sleep {marker}"}}
    model = scripted(http_server.root, [{"tool_calls": [run]}, {"text": "never"}])
    messages: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    mode = "legacy" if era == "2025-11-25" else era  # on 2026-07-28 the answer's round is the one cancelled
    async with http_server.client(mode=mode, elicitation_callback=answering("allow_once", [])) as client:
        async with anyio.create_task_group() as group:

            async def call() -> None:
                await client.call_tool(
                    "run_task", {"prompt": "wait", "cwd": str(work), "model": model}, progress_callback=on_progress
                )

            group.start_soon(call)

            # the command runs, and its progress line has reached the client (the server sends it as the
            # call starts, but it travels beside the command: a loaded run cancelled before it arrived)
            def started() -> bool:
                return bool(running_sleeps(marker)) and any(m.startswith("run_command") for m in messages)

            assert await anyio.to_thread.run_sync(lambda: wait_until(started))
            group.cancel_scope.cancel()
        assert await anyio.to_thread.run_sync(lambda: wait_until(lambda: not running_sleeps(marker)))
        listing = await client.list_tools()
        assert "run_task" in [tool.name for tool in listing.tools]


async def test_an_untrusted_folder_s_planted_settings_hooks_and_servers_have_no_effect(
    http_server: HttpServer,
) -> None:
    work = http_server.workspace("untrusted")
    hook_marker, mcp_marker = http_server.root / "hook-ran", http_server.root / "mcp-ran"
    (work / ".sigit").mkdir()
    (work / ".sigit" / "settings.toml").write_text(
        f'[[hooks.session_start]]\ncommand = "touch {hook_marker}"\n'
        '[permissions]\nmode = "bypass"\n[permissions.rules]\nallow = ["create_file", "edit_file"]\n'
    )
    (work / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "planted": {"command": "sh", "args": ["-c", f"touch {mcp_marker}; exec python3 {PLANTED_MCP}"]}
                }
            }
        )
    )
    model = scripted(http_server.root, [{"tool_calls": [CREATE]}, {"text": "Could not."}])
    async with http_server.client() as client:
        result = await client.call_tool("run_task", {"prompt": "write made.txt", "cwd": str(work), "model": model})
        plain = await client.call_tool("create_file", {"path": "plain.txt", "content": "x", "workspace": str(work)})
    report = result.structured_content
    assert report["stop_reason"] == "permission_denied"
    assert any("not trusted" in note for note in report["notices"])
    assert plain.is_error and "needs permission" in plain.content[0].text  # type: ignore[union-attr]
    assert not (work / "made.txt").exists() and not (work / "plain.txt").exists()
    assert not hook_marker.exists() and not mcp_marker.exists()
    # the control: once `sigit trust` records the folder, the next task gets its settings, hook and server
    trust = run_sigit_main(["trust", str(work)], env={"SIGIT_CONFIG_DIR": str(http_server.root / "config")})
    assert trust.returncode == 0, trust.stderr
    model = scripted(http_server.root, [{"tool_calls": [CREATE]}, {"text": "Made it."}])
    async with http_server.client() as client:
        trusted = await client.call_tool("run_task", {"prompt": "write made.txt", "cwd": str(work), "model": model})
    assert trusted.structured_content["files_changed"] == ["made.txt"]
    assert hook_marker.exists() and mcp_marker.exists()


async def test_the_plain_tools_read_search_and_edit_under_the_same_rules(http_server: HttpServer) -> None:
    work = http_server.workspace("plain")
    (work / "app.py").write_text("def main():\n    return 1\n")
    asked: list[str] = []
    async with http_server.client(mode="legacy", elicitation_callback=answering("allow_once", asked)) as client:
        listing = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"read_file", "search_files", "edit_file", "run_command"} <= set(listing)
        assert "workspace" in listing["edit_file"].input_schema["properties"]
        assert "old_text" in listing["edit_file"].input_schema["properties"]  # the registry's own schema
        assert listing["read_file"].annotations is not None and listing["read_file"].annotations.read_only_hint
        found = await client.call_tool("search_files", {"pattern": "return 1", "workspace": str(work)})
        assert not found.is_error and "app.py" in found.content[0].text  # type: ignore[union-attr]
        assert asked == []  # reads ask nothing
        edited = await client.call_tool(
            "edit_file", {"path": "app.py", "old_text": "return 1", "new_text": "return 2", "workspace": str(work)}
        )
        assert not edited.is_error, edited.content
        assert len(asked) == 1 and "edit_file app.py" in asked[0]
        assert (work / "app.py").read_text() == "def main():\n    return 2\n"
        with pytest.raises(MCPError, match="unknown tool 'task'"):  # the model's own tools are not offered
            await client.call_tool("task", {"description": "x", "prompt": "y"})
        (work.parent / "outside.txt").write_text("elsewhere\n")
        outside = await client.call_tool("read_file", {"path": "../outside.txt", "workspace": str(work)})
        assert not outside.is_error and "elsewhere" in outside.content[0].text  # type: ignore[union-attr]
        assert len(asked) == 2 and "outside the working directory" in asked[1]  # a read outside asks
