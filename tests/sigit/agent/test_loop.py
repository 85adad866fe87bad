"""The agent loop against the scripted model: what a user sees happen in one turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sigit.agent.events import (
    AgentEvent,
    Notice,
    PermissionAsked,
    PermissionReply,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    UsageUpdated,
)
from sigit.app import AgentSession
from sigit.sessions import SessionStore

OpenSession = Any


async def collect(session: AgentSession, prompt: str) -> list[AgentEvent]:
    return [event async for event in session.prompt(prompt)]


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


async def test_tool_round_trip_creates_file_and_answers(open_session: OpenSession, workdir: Path) -> None:
    session, runtime = await open_session(
        [call("create_file", path="a.txt", content="hello\n"), "Done: wrote a.txt."],
        permission_mode="accept-edits",
    )
    events = await collect(session, "write a.txt")
    assert (workdir / "a.txt").read_text() == "hello\n"
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.stop_reason == "end_turn" and finished.text == "Done: wrote a.txt."
    assert finished.rounds == 2
    tool_done = next(e for e in events if isinstance(e, ToolFinished))
    assert tool_done.diff and "+hello" in tool_done.diff
    assert any(isinstance(e, UsageUpdated) for e in events)
    # the tool result went back to the model under the call's id
    second = runtime.requests[1].messages
    assert second[-1].role == "tool" and "a.txt" in second[-1].content
    runtime.assert_consumed()


async def test_a_value_the_runtime_cut_to_fit_is_named_in_the_tool_result(
    open_session: OpenSession, workdir: Path
) -> None:
    """The budget-aware constraint closed the call early: the file is written as far as it went, and the
    model reads in the result that `content` was cut, so it can write the rest."""
    note = "the value of `content` was cut to fit the token limit"
    cut = {"name": "create_file", "arguments": {"path": "a.txt", "content": "hel"}, "notes": [note]}
    session, runtime = await open_session([{"tool_calls": [cut]}, "ok"], permission_mode="accept-edits")
    await collect(session, "write a.txt")
    assert (workdir / "a.txt").read_text() == "hel"
    result = runtime.requests[1].messages[-1]
    assert result.role == "tool" and result.content.endswith(f"\n\nnote: {note}.")


async def test_denied_in_default_mode_without_approver(open_session: OpenSession, workdir: Path) -> None:
    session, runtime = await open_session([call("run_command", command="touch x"), "ok"])
    events = await collect(session, "touch x")
    assert not (workdir / "x").exists()
    result = next(e for e in events if isinstance(e, ToolFinished))
    assert result.is_error and "--allow-tool" in result.output
    assert "Not run" in runtime.requests[1].messages[-1].content


async def test_approver_allow_for_session_is_remembered(open_session: OpenSession, workdir: Path) -> None:
    asked: list[PermissionAsked] = []

    async def approve(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        return PermissionReply(True, "session")

    session, _ = await open_session(
        [call("run_command", command="ls one"), call("run_command", command="ls two"), "done"],
        approver=approve,
    )
    events = await collect(session, "echo twice")
    outputs = [e.output for e in events if isinstance(e, ToolFinished)]
    assert "one" in outputs[0] and "two" in outputs[1]
    assert len(asked) == 1 and asked[0].suggested_rule == "run_command(ls*)"


async def test_repetition_guard_stops_third_identical_call(open_session: OpenSession, workdir: Path) -> None:
    (workdir / "f.txt").write_text("x\n")
    same = call("read_file", path="f.txt")
    session, runtime = await open_session([same, same, same, "I read it."])
    events = await collect(session, "read f.txt forever")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert len(finished) == 3 and finished[2].is_error and "already made 2 times" in finished[2].output
    assert any(isinstance(e, Notice) and "Repetition guard" in e.message for e in events)
    assert runtime.requests[-1].offered_tools() == ()  # the next round must answer in text


async def test_round_limit_offers_no_tools_on_last_round(open_session: OpenSession, workdir: Path) -> None:
    turns = [call("list_directory", path=".")] + [call("glob", pattern=f"*{i}") for i in range(2)]
    session, runtime = await open_session(turns, max_rounds=3)
    events = await collect(session, "loop")
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "max_rounds"
    assert runtime.requests[2].offered_tools() == ()
    assert runtime.requests[0].offered_tools() != ()


async def test_malformed_call_is_explained_to_the_model(open_session: OpenSession, workdir: Path) -> None:
    bad = {"raw": '<tool_call>\n{"name": "no_such_tool", "arguments": {}}\n</tool_call>'}
    session, runtime = await open_session([bad, "sorry"])
    events = await collect(session, "do it")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "sorry"
    retry_prompt = runtime.requests[1].messages[-1].content
    assert "could not be used" in retry_prompt and "no_such_tool" in retry_prompt


async def test_cancel_mid_stream_keeps_history_consistent(open_session: OpenSession, workdir: Path) -> None:
    session, runtime = await open_session(["word " * 400])
    runtime.chunk_delay = 0.01
    events = []

    async def consume() -> None:
        async for event in session.prompt("talk"):
            events.append(event)
            if isinstance(event, TextDelta) and len(events) == 3:
                session.cancel()

    await asyncio.wait_for(consume(), 5)
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "cancelled"
    history = session.messages
    assert history[0].content == "talk"


async def test_cancel_during_command_kills_it_and_answers_calls(open_session: OpenSession) -> None:
    session, _ = await open_session([call("run_command", command="sleep 30")], permission_mode="bypass")

    async def consume() -> list[object]:
        out = []
        async for event in session.prompt("sleep"):
            out.append(event)
            if isinstance(event, ToolStarted):
                asyncio.get_running_loop().call_later(0.2, session.cancel)
        return out

    events = await asyncio.wait_for(consume(), 25)  # the command sleeps 30 s: an answer before is the cancel's
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "cancelled"
    roles = [m.role for m in session.messages]
    assert roles[-2:] == ["assistant", "tool"]  # every call got an answer


async def test_session_saved_and_resumed_identically(open_session: OpenSession, tmp_path: Path) -> None:
    session, _ = await open_session([call("list_directory", path="."), "listed"])
    await collect(session, "list")
    store = SessionStore(tmp_path / "config" / "sessions")
    saved = store.load(session.id)
    assert saved.messages == list(session.messages)
    assert saved.title == "list"


async def test_rewind_restores_last_turn_files(open_session: OpenSession, workdir: Path) -> None:
    (workdir / "a.py").write_text("x = 1\n")
    session, _ = await open_session(
        [call("edit_file", path="a.py", old_text="x = 1", new_text="x = 2"), "edited"],
        permission_mode="accept-edits",
    )
    await collect(session, "edit")
    assert (workdir / "a.py").read_text() == "x = 2\n"
    session.rewind()
    assert (workdir / "a.py").read_text() == "x = 1\n"


async def test_a_model_no_session_uses_is_unloaded(tmp_path: Path, workdir: Path) -> None:
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.app import SessionHost
    from sigit.options import HostOptions

    scenario = tmp_path / "s.json"
    scenario.write_text('{"turns": []}')
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", model=f"scripted:{scenario}"))
    first = await host.open(workdir)
    second = await host.open(workdir)
    runtime = first._agent.engine.runtime  # white-box: one loaded model, shared
    assert isinstance(runtime, ScriptedRuntime) and runtime is second._agent.engine.runtime
    await first.close()
    assert host.loaded_models == [f"scripted:{scenario}"]  # still used by the second session
    await second.close()
    assert host.loaded_models == []


async def test_thinking_budget_setting_reaches_the_model_request(open_session: OpenSession, workdir: Path) -> None:
    (workdir / ".sigit").mkdir()
    (workdir / ".sigit" / "settings.toml").write_text("max_tokens = 4000\nthinking_budget = 1234\n")
    session, runtime = await open_session(["ok"])
    await collect(session, "hi")
    assert runtime.requests[0].thinking_budget == 1234
    assert runtime.requests[0].sampling.max_tokens == 4000


async def test_whole_file_rewrite_asks_with_a_real_diff(open_session: OpenSession, workdir: Path) -> None:
    (workdir / "m.py").write_text("a = 1\nb = 2\n")
    asked: list[PermissionAsked] = []

    async def approve(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        return PermissionReply(True)

    session, _ = await open_session(
        [call("create_file", path="m.py", content="a = 1\nb = 3\n", overwrite=True), "rewrote it"],
        approver=approve,
    )
    await collect(session, "change b")
    assert asked[0].preview is not None and "-b = 2" in asked[0].preview and "+b = 3" in asked[0].preview
    assert (workdir / "m.py").read_text() == "a = 1\nb = 3\n"
    session.rewind()
    assert (workdir / "m.py").read_text() == "a = 1\nb = 2\n"


async def test_session_grants_survive_a_resume_but_allow_flags_do_not(
    workdir: Path, tmp_path: Path
) -> None:
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.app import SessionHost
    from sigit.options import HostOptions

    async def always(request: PermissionAsked) -> PermissionReply:
        return PermissionReply(True, "session")

    runtime = ScriptedRuntime([call("run_command", command="ls there"), "ok"])
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", allow_tools=("glob",)), runtime=runtime)
    first = await host.open(workdir, approver=always)
    await collect(first, "echo")
    saved = host.store.load(first.id)
    assert saved.grants == ["run_command(ls*)"]  # the --allow-tool rule is not kept

    asked: list[PermissionAsked] = []

    async def record(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        return PermissionReply(False)

    runtime.add_turns(call("run_command", command="ls again"), "done")
    again = await SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=runtime).open(
        workdir, session=saved, approver=record
    )
    events = await collect(again, "echo again")
    assert asked == []  # the grant made before the resume still holds
    assert any(isinstance(e, ToolFinished) and "again" in e.output for e in events)


async def test_invalid_arguments_are_reported_without_asking(open_session: OpenSession, workdir: Path) -> None:
    asked: list[PermissionAsked] = []

    async def approve(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        return PermissionReply(True)

    session, runtime = await open_session([call("edit_file", path="a.py"), "gave up"], approver=approve)
    events = await collect(session, "edit a.py")
    result = next(e for e in events if isinstance(e, ToolFinished))
    assert result.is_error and "Invalid arguments for edit_file" in result.output
    assert asked == [] and not any(isinstance(e, ToolStarted) for e in events)
    assert "`old_text` is required" in runtime.requests[1].messages[-1].content


async def test_permission_prompt_carries_what_the_tool_declares(open_session: OpenSession, workdir: Path) -> None:
    (workdir / "m.py").write_text("a = 1\nb = 2\n")
    asked: list[PermissionAsked] = []

    async def approve(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        return PermissionReply(False)

    edits = [{"old_text": "a = 1", "new_text": "a = 10"}, {"old_text": "b = 2", "new_text": "b = 20"}]
    session, _ = await open_session(
        [{"tool_calls": [
            {"name": "multi_edit", "arguments": {"path": "./sub/../m.py", "edits": edits}},
            {"name": "run_command", "arguments": {"command": "make test"}},
        ]}, "ok"],
        approver=approve,
    )
    await collect(session, "change both")
    edit, command = asked
    assert edit.kind == "edit" and edit.locations == (str(workdir / "m.py"),) and edit.command is None
    assert edit.preview is not None and "+a = 10" in edit.preview and "+b = 20" in edit.preview
    assert edit.change is not None and edit.change.new_text == "a = 10\nb = 20\n"
    assert command.kind == "execute" and command.command == "make test" and command.preview == "make test"


def _overflowing_model(limit: int) -> Any:
    """A scripted model whose context holds `limit` messages: longer prompts overflow, as in llama.cpp."""
    from qwen_runtime.errors import ContextOverflowError
    from qwen_runtime.types import ChatRequest
    from sigit.agent.compaction import SUMMARY_PROMPT

    def respond(request: ChatRequest) -> str:
        if request.messages[-1].content == SUMMARY_PROMPT:
            return "The user greeted the model several times."
        if len(request.messages) > limit:
            raise ContextOverflowError(len(request.messages) * 100, limit * 100)
        return f"reply to {len(request.messages)} messages"

    return respond


async def test_a_context_overflow_compacts_the_conversation_and_retries(
    open_session: OpenSession, workdir: Path
) -> None:
    session, runtime = await open_session(_overflowing_model(limit=9))
    for n in range(4):
        assert (await collect(session, f"hello {n}"))[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    events = await collect(session, "and once more")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn", finished
    assert finished.text == "reply to 8 messages" and finished.rounds == 1
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("no longer fits" in m for m in notices) and any(m.startswith("Compacted 3 messages") for m in notices)
    retried = runtime.requests[-1].messages
    assert "[Conversation summary]" in retried[1].content and retried[-1].content == "and once more"
    assert session.session.messages[-1].content == "reply to 8 messages"  # saved as the reply


async def test_a_context_that_overflows_again_after_compacting_ends_the_turn_with_the_reason(
    open_session: OpenSession, workdir: Path
) -> None:
    session, _ = await open_session(_overflowing_model(limit=1))
    finished = (await collect(session, "hello"))[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "error"
    assert finished.error is not None and "context window" in finished.error


async def test_an_approver_may_edit_the_call_before_it_runs(open_session: OpenSession, workdir: Path) -> None:
    async def edit(request: PermissionAsked) -> PermissionReply:
        return PermissionReply(True, arguments={"command": "touch edited"})

    session, runtime = await open_session([call("run_command", command="touch asked"), "ok"], approver=edit)
    await collect(session, "touch a file")
    assert (workdir / "edited").exists() and not (workdir / "asked").exists()
    runtime.assert_consumed()


async def test_edited_arguments_are_validated_and_judged_again(open_session: OpenSession, workdir: Path) -> None:
    replies = iter([{"command": 42}, {"command": "rm -rf keep"}])

    async def edit(request: PermissionAsked) -> PermissionReply:
        return PermissionReply(True, arguments=next(replies))

    (workdir / "keep").mkdir()
    session, _ = await open_session(
        [call("run_command", command="ls a"), call("run_command", command="ls b"), "ok"],
        approver=edit, deny_tools=["run_command(rm *)"],
    )
    events = await collect(session, "list")
    outputs = [e.output for e in events if isinstance(e, ToolFinished)]
    assert "edited arguments are not valid" in outputs[0]
    assert "the edited call is refused" in outputs[1]
    assert (workdir / "keep").is_dir()
