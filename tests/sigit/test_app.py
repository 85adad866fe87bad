"""SessionHost.switch_model: the one way a conversation moves to another model, whatever the frontend."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.app import SessionHost
from sigit.options import HostOptions
from sigit.tools import LocalFileSystem


async def test_switching_model_keeps_what_the_user_set(workdir: Path, tmp_path: Path) -> None:
    todos = [{"content": "read", "status": "completed"}, {"content": "write", "status": "in_progress"}]
    runtime = ScriptedRuntime([
        {"tool_calls": [{"name": "write_todos", "arguments": {"todos": todos}}]}, "planned", "second answer",
    ])
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=runtime)
    fs = LocalFileSystem()
    old = await host.open(workdir, fs=fs)
    async for _ in old.prompt("plan it"):
        pass
    old.set_mode("accept-edits")
    old.set_plan(True)
    old.grant("run_command(make test)")
    old.deny("run_command(rm -rf *)")
    old.set_thinking(False)
    background = await old.processes.start("sleep 5", workdir)

    new = await host.switch_model(old, "scripted-b")

    assert new is not old and new.id == old.id and new.session.model == "scripted-b"
    status = new.status()
    assert status.mode == "plan" and status.model == "scripted-b"
    assert new.set_plan(False) == "accept-edits"  # the mode before plan came along too
    assert "run_command(make test)" in status.session_grants
    assert status.session_denials == ("run_command(rm -rf *)",)
    assert status.thinking is False
    assert status.messages == 4  # prompt, tool call, tool result, answer
    assert [(t.content, t.status) for t in new.todos] == [("read", "completed"), ("write", "in_progress")]
    assert background in new.processes.ids()
    assert new._agent.context.fs is fs  # white-box: opened the way the old one was
    async for _ in new.prompt("again"):
        pass
    assert new.status().messages == 6
    await new.close()


async def test_a_failed_switch_leaves_the_session_as_it_was(workdir: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "a.json"
    scenario.write_text('{"turns": []}')
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", model=f"scripted:{scenario}"))
    old = await host.open(workdir)  # a host that loads models by name
    old.set_mode("bypass")
    with pytest.raises(Exception, match=r"missing\.json"):
        await host.switch_model(old, f"scripted:{tmp_path / 'missing.json'}")
    assert old.session.model != f"scripted:{tmp_path / 'missing.json'}"
    assert old.mode == "bypass"
    await old.close()


async def test_session_agent_still_works_but_warns(workdir: Path, tmp_path: Path) -> None:
    """`AgentSession.agent` was documented for embedders: it keeps working, with a DeprecationWarning."""
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=ScriptedRuntime([]))
    session = await host.open(workdir)
    with pytest.warns(DeprecationWarning, match=r"AgentSession\.agent is deprecated"):
        agent = session.agent
    assert agent.tools.names() == session.tools.names()
    await session.close()
