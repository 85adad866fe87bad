"""The agent loop never runs a call that a reply at max_tokens left unclosed: the model is told, the
frontends see a failed tool call, and the turn's result lists it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sigit.agent.events import AgentEvent, ToolFinished, ToolStarted, TurnFinished
from sigit.app import AgentSession

OpenSession = Any

CUT_XML = (
    "I'll write the file.\n<tool_call>\n<function=create_file>\n<parameter=path>\nbig.md\n</parameter>\n"
    "<parameter=content>\n# Big\n\nThe first part of a long fi"
)
CLOSED_JSON = (
    '<tool_call>\n{"name": "create_file", "arguments": {"path": "small.md", "content": "small\\n"}}\n</tool_call>\n'
)
CUT_JSON = '<tool_call>\n{"name": "create_file", "arguments": {"path": "big.md", "content": "# Big\\n\\nThe fi'


def cut(raw: str) -> dict[str, str]:
    return {"raw": raw, "finish_reason": "length"}


async def collect(session: AgentSession, prompt: str) -> list[AgentEvent]:
    return [event async for event in session.prompt(prompt)]


async def test_a_cut_off_call_never_runs_and_the_model_is_told_to_make_it_in_pieces(
    open_session: OpenSession, workdir: Path
) -> None:
    session, runtime = await open_session([cut(CUT_XML), "I'll write it in parts."], permission_mode="accept-edits")
    events = await collect(session, "write big.md")
    assert not (workdir / "big.md").exists()
    assert not any(isinstance(e, ToolStarted) for e in events)
    [failed] = [e for e in events if isinstance(e, ToolFinished)]
    assert failed.is_error and failed.name == "create_file"
    assert "cut off at the token limit" in failed.output and "nothing was run" in failed.output
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn"
    assert [(c.tool_name, c.tool_use_id) for c in finished.cut_off_calls] == [("create_file", failed.call_id)]
    told = runtime.requests[1].messages[-1]
    assert told.role == "user"
    assert "cut off at the token limit" in told.content
    assert "in parts" in told.content
    runtime.assert_consumed()


async def test_the_calls_closed_before_the_cut_run_and_the_cut_one_does_not(
    open_session: OpenSession, workdir: Path
) -> None:
    session, runtime = await open_session([cut(CLOSED_JSON + CUT_JSON), "Done."], permission_mode="accept-edits")
    events = await collect(session, "write both")
    assert (workdir / "small.md").read_text() == "small\n"
    assert not (workdir / "big.md").exists()
    outcomes = [(e.name, e.is_error) for e in events if isinstance(e, ToolFinished)]
    assert outcomes == [("create_file", False), ("create_file", True)]  # in the order the model wrote them
    result = runtime.requests[1].messages[-1]
    assert result.role == "tool" and "cut off at the token limit" in result.content
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and len(finished.cut_off_calls) == 1


async def test_a_cut_off_call_in_the_last_round_ends_the_turn_at_max_tokens(
    open_session: OpenSession, workdir: Path
) -> None:
    session, _ = await open_session([cut(CUT_JSON)], permission_mode="accept-edits", max_rounds=1)
    events = await collect(session, "write big.md")
    assert not (workdir / "big.md").exists()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "max_tokens"
    assert [c.tool_name for c in finished.cut_off_calls] == ["create_file"]
