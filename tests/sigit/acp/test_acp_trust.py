"""Folder trust over ACP: the editor is asked after session/new or load is answered, nothing of the
folder's own runs before the answer, and the first prompt waits for it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse

from .conftest import RecordingClient, running_agent, write_scenario

FIXTURE = Path(__file__).resolve().parents[1] / "extensions" / "mcp_server_fixture.py"


class TrustClient(RecordingClient):
    """Answers the folder question with `trust`, tool calls with `choice`; notes what had run when asked."""

    def __init__(self, trust: str, choice: str = "allow_once", markers: tuple[Path, ...] = ()) -> None:
        super().__init__(choice)
        self.trust = trust
        self.markers = markers
        self.trust_requests: list[Any] = []
        self.ran_before_answer: list[bool] = []
        self.asked = asyncio.Event()
        self.release: asyncio.Event | None = None
        """When set, the folder question is answered only once this event is set (a user thinking)."""

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kw: Any
                                 ) -> RequestPermissionResponse:
        if not tool_call.tool_call_id.startswith("trust-folder-"):
            return await super().request_permission(session_id, tool_call, options, **kw)
        self.trust_requests.append((session_id, tool_call, options))
        self.ran_before_answer.append(any(marker.exists() for marker in self.markers))
        self.asked.set()
        if self.release is not None:
            await self.release.wait()
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.trust))


class Folder:
    def __init__(self, tmp_path: Path, project: Path) -> None:
        self.project = project
        self.hook = tmp_path / "hook-ran"
        self.mcp = tmp_path / "mcp-ran"
        (project / ".sigit").mkdir()
        (project / ".sigit" / "settings.toml").write_text(
            f'[[hooks.session_start]]\ncommand = "touch {self.hook}"\n[permissions]\nmode = "accept-edits"\n'
        )
        (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {
            "command": "sh", "args": ["-c", f"touch {self.mcp}; exec {sys.executable} {FIXTURE}"]}}}))

    @property
    def markers(self) -> tuple[Path, Path]:
        return self.hook, self.mcp

    def ran(self) -> tuple[bool, bool]:
        return self.hook.exists(), self.mcp.exists()

    def reset(self) -> None:
        for marker in self.markers:
            marker.unlink(missing_ok=True)


def _wants(request: Any) -> list[str]:
    _, tool_call, _ = request
    return list(tool_call.raw_input["wants"])


async def test_new_session_asks_and_trusting_applies_the_project(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    folder = Folder(tmp_path, project)
    scenario = write_scenario(tmp_path / "s.json", ["one", "two"])
    client = TrustClient("trust", markers=folder.markers)
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        assert session.modes is not None and session.modes.current_mode_id == "default"  # untrusted until asked
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert reply.stop_reason == "end_turn"
        assert folder.ran() == (True, True)
        assert [u.current_mode_id for u in client.of("current_mode_update")] == ["accept-edits"]
        [options] = [u.config_options for u in client.of("config_option_update")]  # the pickers follow
        assert {o.id: o.current_value for o in options}["mode"] == "accept-edits"

        # recorded: the next session in the folder is not asked about
        folder.reset()
        again = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=again.session_id, prompt=[text_block("hi")])
    assert client.ran_before_answer == [False]
    assert len(client.trust_requests) == 1
    sid, tool_call, options = client.trust_requests[0]
    assert sid == session.session_id and str(project.resolve()) in tool_call.title
    wants = _wants(client.trust_requests[0])
    assert f"runs `touch {folder.hook}` at session_start" in wants
    assert any(line.startswith("starts MCP server `docs`: `sh -c touch") for line in wants)
    assert "permission mode accept-edits" in wants
    assert {o.option_id for o in options} == {"trust", "dont_trust"}
    # the question hangs on a card of its own, which says how it was answered
    card = [u for u in client.of("tool_call") if u.tool_call_id == tool_call.tool_call_id]
    assert len(card) == 1 and card[0].status == "pending"
    done = [u for u in client.of("tool_call_update") if u.tool_call_id == tool_call.tool_call_id]
    assert [u.status for u in done] == ["completed"]
    assert folder.ran() == (True, True)
    assert client.text() == "onetwo"


async def test_rejecting_keeps_the_project_parts_off(tmp_path: Path, config_dir: Path, project: Path) -> None:
    folder = Folder(tmp_path, project)
    scenario = write_scenario(tmp_path / "s.json", ["answered"])
    client = TrustClient("dont_trust", markers=folder.markers)
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/mcp")])
    assert reply.stop_reason == "end_turn" and "answered" in client.text()
    assert folder.ran() == (False, False)
    assert client.of("current_mode_update") == [] and client.of("config_option_update") == []
    assert "No MCP servers configured" in client.text()
    assert not (config_dir / "trusted_folders.json").exists()


@pytest.mark.script_may_remain  # the first agent is asked once, its second turn is for nobody
async def test_load_session_asks_the_same_way(tmp_path: Path, config_dir: Path, project: Path) -> None:
    folder = Folder(tmp_path, project)
    scenario = write_scenario(tmp_path / "s.json", ["first", "second"])
    first = TrustClient("dont_trust", markers=folder.markers)
    async with running_agent(first, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("remember me")])
    assert folder.ran() == (False, False)

    second = TrustClient("trust", markers=folder.markers)
    async with running_agent(second, write_scenario(tmp_path / "t.json", ["loaded"]), config_dir) as conn:
        await conn.load_session(cwd=str(project), session_id=session.session_id)
        assert "remember me" in second.text("user_message_chunk")  # the history replays first
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go on")])
    assert second.ran_before_answer == [False]
    assert [sid for sid, _, _ in second.trust_requests] == [session.session_id]
    assert folder.ran() == (True, True)
    assert "loaded" in second.text()


async def test_always_allow_in_this_project_keeps_the_folder_trusted(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    folder = Folder(tmp_path, project)
    call = {"name": "run_command", "arguments": {"command": "touch made-by-tool"}}
    scenario = write_scenario(tmp_path / "s.json", [{"tool_calls": [call]}, "done", "again"])
    client = TrustClient("trust", choice="allow_project", markers=folder.markers)
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("touch it")])
        assert (project / "made-by-tool").exists()
        assert "run_command(touch made-by-tool)" in (project / ".sigit" / "settings.toml").read_text()
        again = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=again.session_id, prompt=[text_block("hi")])
    assert len(client.trust_requests) == 1  # the rule the user saved did not make the folder ask again


async def test_cancel_while_the_folder_is_asked_about_ends_the_waiting_prompt(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    folder = Folder(tmp_path, project)
    scenario = write_scenario(tmp_path / "s.json", ["after the answer"])
    client = TrustClient("dont_trust", markers=folder.markers)
    client.release = asyncio.Event()
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        waiting = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("hi")]))
        await client.asked.wait()
        await conn.cancel(session_id=session.session_id)
        assert (await waiting).stop_reason == "cancelled"
        client.release.set()
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi again")])
    assert reply.stop_reason == "end_turn" and client.text() == "after the answer"
    assert folder.ran() == (False, False)
