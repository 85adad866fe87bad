"""The 2026-07-28 permission rounds' own binding, under the SDK's sealing: the server's handlers in this
process, driven by the SDK's client without `RequestStateBoundary`, so the test can read and forge the
state as an attacker who broke the seal could. A state names its call and question, and is used once."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from sigit.frontends.mcp_server import asking
from sigit.frontends.mcp_server.server import SigitMcp
from sigit.options import HostOptions

ANSWER: types.InputResponses = {"permission": types.ElicitResult(action="accept", content={"decision": "allow_once"})}


@asynccontextmanager
async def unsealed(work: Path) -> AsyncIterator[Client]:
    """A 2026-07-28 client of `sigit mcp`'s handlers with the state left in plain text."""
    frontend = SigitMcp(HostOptions(), work)
    server: Server[Any] = Server("sigit", on_list_tools=frontend.list_tools, on_call_tool=frontend.call_tool)

    async def never(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("asked by elicitation/create on 2026-07-28")

    try:
        async with Client(server, mode="2026-07-28", elicitation_callback=never) as client:
            yield client
    finally:
        await frontend.close()


def edit(path: str) -> dict[str, str]:
    return {"path": path, "old_text": "old", "new_text": "new"}


async def asked_for(client: Client, path: str) -> tuple[types.InputRequiredResult, dict[str, Any]]:
    """The server's question for an edit of `path` (2026-07-28: the call answers input_required), and the
    request state it sent with it, read as the client could if it were not sealed."""
    asked = await client.session.call_tool("edit_file", edit(path), allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult) and asked.request_state is not None
    state: dict[str, Any] = json.loads(asked.request_state)
    return asked, state


async def test_a_state_forged_for_another_call_approves_neither(workdir: Path) -> None:
    (workdir / "a.txt").write_text("old\n")
    (workdir / "b.txt").write_text("old\n")
    async with unsealed(workdir) as client:
        asked, state = await asked_for(client, "a.txt")
        # b.txt's call with a.txt's waiting key (and, to get past a naive check, its digests): refused
        with pytest.raises(MCPError, match="belongs to another call"):
            await client.session.call_tool(
                "edit_file", edit("b.txt"), input_responses=ANSWER, request_state=json.dumps(state)
            )
        # and a.txt's call, whose question was answered for another call, is over: nobody said yes to it
        with pytest.raises(MCPError, match="answers no question"):
            await client.session.call_tool(
                "edit_file", edit("a.txt"), input_responses=ANSWER, request_state=asked.request_state
            )
    assert (workdir / "a.txt").read_text() == "old\n" and (workdir / "b.txt").read_text() == "old\n"


async def test_a_state_must_name_the_question_it_answers(workdir: Path) -> None:
    (workdir / "a.txt").write_text("old\n")
    async with unsealed(workdir) as client:
        _, state = await asked_for(client, "a.txt")
        with pytest.raises(MCPError, match="belongs to another call"):
            await client.session.call_tool(
                "edit_file", edit("a.txt"), input_responses=ANSWER, request_state=json.dumps({**state, "asks": "0"})
            )
        with pytest.raises(MCPError, match="answers no question"):  # a key nobody minted
            await client.session.call_tool(
                "edit_file", edit("a.txt"), input_responses=ANSWER, request_state=json.dumps({**state, "wait": "x"})
            )
    assert (workdir / "a.txt").read_text() == "old\n"


async def test_an_answer_in_its_own_round_runs_the_call_and_a_missing_one_refuses_it(workdir: Path) -> None:
    (workdir / "a.txt").write_text("old\n")
    (workdir / "b.txt").write_text("old\n")
    async with unsealed(workdir) as client:
        asked = await client.session.call_tool("edit_file", edit("a.txt"), allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult)
        assert (workdir / "a.txt").read_text() == "old\n"
        done = await client.session.call_tool(
            "edit_file", edit("a.txt"), input_responses=ANSWER, request_state=asked.request_state
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error, done
        assert (workdir / "a.txt").read_text() == "new\n"
        missing = await client.session.call_tool("edit_file", edit("b.txt"), allow_input_required=True)
        assert isinstance(missing, types.InputRequiredResult)
        refused = await client.session.call_tool(
            "edit_file", edit("b.txt"), input_responses={}, request_state=missing.request_state
        )
        assert isinstance(refused, types.CallToolResult) and refused.is_error
        assert "came back without an answer" in refused.content[0].text  # type: ignore[union-attr]
    assert (workdir / "b.txt").read_text() == "old\n"


async def test_an_answer_after_the_wait_approves_nothing(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asking, "ANSWER_WAIT_S", 0.0)  # every answer comes too late
    (workdir / "a.txt").write_text("old\n")
    async with unsealed(workdir) as client:
        asked = await client.session.call_tool("edit_file", edit("a.txt"), allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult)
        with pytest.raises(MCPError, match="timed out"):
            await client.session.call_tool(
                "edit_file", edit("a.txt"), input_responses=ANSWER, request_state=asked.request_state
            )
    assert (workdir / "a.txt").read_text() == "old\n"
