"""Issue 50 item 13: `sigit mcp` on stdio asks its caller's permission in both protocol eras, driven by the
mcp SDK's own client: 2025-11-25 by `elicitation/create`, 2026-07-28 by answering the call `input_required`
and reading the answer from the retry. The tool runs only after the answer, a denial comes back with its
reason, and an answer presented with another call's `requestState`, or a second time, approves nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from .conftest import SIGIT, scripted, server_env

pytestmark = pytest.mark.slow

ERAS = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}
"""Each protocol era, as the `mode` that makes the SDK's client speak it."""


def stdio(work: Path, config: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=SIGIT, args=["mcp", "--cwd", str(work), *flags], env=server_env(config), cwd=str(work)
    )


def answering(decision: str | None, asked: list[str]) -> Any:
    """An elicitation callback that records the question and answers `decision` (None: declines)."""

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        assert isinstance(params, types.ElicitRequestFormParams)
        assert params.requested_schema["properties"]["decision"]["enum"] == ["allow_once", "allow_session", "deny"]
        if decision is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"decision": decision})

    return answer


def accept(decision: str) -> dict[str, types.InputResponse]:
    return {"permission": types.ElicitResult(action="accept", content={"decision": decision})}


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(("decision", "edited"), [("allow_once", True), ("deny", False), (None, False)])
async def test_an_edit_is_asked_with_its_diff_and_runs_only_if_allowed_in_either_era(
    tmp_path: Path, era: str, decision: str | None, edited: bool
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("x = 1\n")
    asked: list[str] = []
    async with Client(
        stdio(work, tmp_path / "config"), mode=ERAS[era], elicitation_callback=answering(decision, asked)
    ) as client:
        assert client.protocol_version == era
        result = await client.call_tool("edit_file", {"path": "app.py", "old_text": "x = 1", "new_text": "x = 2"})
    assert len(asked) == 1 and "siGit wants to run edit_file app.py" in asked[0]
    assert "-x = 1\n+x = 2" in asked[0]  # the change itself is shown
    assert (work / "app.py").read_text() == ("x = 2\n" if edited else "x = 1\n")
    assert result.is_error is not edited
    text = result.content[0].text  # type: ignore[union-attr]
    if decision == "deny":
        assert "The MCP client's user denied permission to run edit_file" in text
    elif decision is None:
        assert "The MCP client's user declined the request for edit_file" in text


async def test_a_task_asks_in_rounds_and_allow_for_session_covers_its_later_calls(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    first = {"name": "create_file", "arguments": {"path": "one.txt", "content": "1\n"}}
    second = {"name": "create_file", "arguments": {"path": "two.txt", "content": "2\n"}}
    model = scripted(tmp_path, [{"tool_calls": [first]}, {"tool_calls": [second]}, {"text": "Made both."}])
    asked: list[str] = []
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    server = stdio(work, tmp_path / "config")
    async with Client(server, mode="2026-07-28", elicitation_callback=answering("allow_session", asked)) as client:
        result = await client.call_tool(
            "run_task", {"prompt": "make two files", "model": model}, progress_callback=on_progress
        )
    report = result.structured_content
    assert not result.is_error and report["stop_reason"] == "end_turn", report
    assert len(asked) == 1 and "create_file one.txt" in asked[0] and "+++ one.txt\n1" in asked[0]
    assert report["files_changed"] == ["one.txt", "two.txt"]
    assert (work / "one.txt").read_text() == "1\n" and (work / "two.txt").read_text() == "2\n"
    assert messages[-1] == "finished: end_turn"  # progress goes on to the round that ends the call


async def test_a_task_denied_in_rounds_stops_with_the_reason(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    create = {"name": "create_file", "arguments": {"path": "made.txt", "content": "made\n"}}
    model = scripted(tmp_path, [{"tool_calls": [create]}, {"text": "I was not allowed."}])
    asked: list[str] = []
    async with Client(
        stdio(work, tmp_path / "config"), mode="2026-07-28", elicitation_callback=answering("deny", asked)
    ) as client:
        result = await client.call_tool("run_task", {"prompt": "write made.txt", "model": model})
    report = result.structured_content
    assert len(asked) == 1 and report["stop_reason"] == "permission_denied"
    assert [d["tool_name"] for d in report["permission_denials"]] == ["create_file"]
    assert "denied permission to run create_file" in report["permission_denials"][0]["reason"]
    assert not (work / "made.txt").exists()


async def test_an_answer_approves_only_its_own_call_and_only_once(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    log = work / "log.txt"
    ours = {"command": "printf 'approved\\n' >> log.txt"}
    other = {"command": "printf 'forged\\n' >> log.txt"}
    async with Client(
        stdio(work, tmp_path / "config"), mode="2026-07-28", elicitation_callback=answering("deny", [])
    ) as client:
        session = client.session
        asked = await session.call_tool("run_command", ours, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult) and asked.request_state
        assert "wait" not in asked.request_state  # sealed by the SDK: the client cannot read or alter it
        question = (asked.input_requests or {})["permission"]
        assert isinstance(question, types.ElicitRequest) and "printf 'approved" in question.params.message
        assert not log.exists()  # nothing runs before the answer

        # the answer with this call's state, presented for another call: refused, and that call never runs
        with pytest.raises(MCPError, match="requestState"):
            await session.call_tool(
                "run_command", other, input_responses=accept("allow_once"), request_state=asked.request_state
            )
        assert not log.exists()

        done = await session.call_tool(
            "run_command", ours, input_responses=accept("allow_once"), request_state=asked.request_state
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error, done
        assert log.read_text() == "approved\n"

        # the same answer again: the state was used, so it approves nothing and nothing runs twice
        with pytest.raises(MCPError, match="answers no question this server is waiting on"):
            await session.call_tool(
                "run_command", ours, input_responses=accept("allow_once"), request_state=asked.request_state
            )
        # an answer with no state at all answers nothing: the call is asked afresh
        unasked = await session.call_tool(
            "run_command", other, input_responses=accept("allow_once"), allow_input_required=True
        )
        assert isinstance(unasked, types.InputRequiredResult)
    assert log.read_text() == "approved\n"
