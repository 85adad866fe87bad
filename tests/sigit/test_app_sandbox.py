"""The session's sandbox: built from settings and flags, kept across a model switch, changed by
/sandbox, closed with the session, and the one way out: the user, asked, once."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.agent.events import Notice, PermissionAnswered, PermissionAsked, PermissionReply, ToolFinished
from sigit.app import AgentSession, SessionHost
from sigit.errors import UsageError
from sigit.options import HostOptions
from sigit.sandbox import SandboxSupport, open_sandbox


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "outside.txt"
    target.write_text("untouched\n")
    return target


def write_outside(target: Path) -> list[object]:
    return [{"tool_calls": [{"name": "run_command", "arguments": {"command": f"echo changed > {target}"}}]},
            "done"]


def last_tool_result(runtime: ScriptedRuntime) -> str:
    """What the model read of the last tool call: the tool message in its latest request."""
    tool_messages = [m for m in runtime.requests[-1].messages if m.role == "tool"]
    return str(tool_messages[-1].content)


async def run_turn(session: AgentSession, prompt: str) -> list[object]:
    return [event async for event in session.prompt(prompt)]


async def test_a_session_runs_commands_in_the_default_sandbox_and_bypass_leaves_it_on(
    workdir: Path, tmp_path: Path, outside: Path
) -> None:
    runtime = ScriptedRuntime(write_outside(outside))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", permission_mode="bypass"), runtime=runtime)
    session = await host.open(workdir)
    assert session.status().sandbox == "workspace-write, network off"
    events = await run_turn(session, "change it")
    assert outside.read_text() == "untouched\n"
    result = last_tool_result(runtime)
    assert f"blocked by the sandbox: write to {outside} outside the workspace" in result
    # headless (nobody to ask): not rerun, and the model hears which flag would allow it
    assert "Not rerun without the sandbox" in result and "--sandbox off" in result
    asked = [e for e in events if isinstance(e, PermissionAsked)]
    assert [a.purpose for a in asked] == ["leave_sandbox"]
    temp = session.sandbox.policy.temp_dir if session.sandbox is not None else None
    assert temp is not None and temp.is_dir()
    await session.close()
    assert not temp.exists()  # the sandbox's private temp dir goes with the session


async def test_the_user_may_run_a_refused_command_once_without_the_sandbox(
    workdir: Path, tmp_path: Path, outside: Path
) -> None:
    asked: list[PermissionAsked] = []

    async def approver(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        return PermissionReply(True, "once")

    runtime = ScriptedRuntime([*write_outside(outside)[:1], *write_outside(outside)])
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", allow_tools=("run_command",)), runtime=runtime)
    session = await host.open(workdir, approver=approver)
    events = await run_turn(session, "change it")
    assert [a.purpose for a in asked] == ["leave_sandbox", "leave_sandbox"]  # the run_command rule asked nothing
    first = asked[0]
    assert first.reason == f"blocked by the sandbox: write to {outside} outside the workspace"
    assert first.command == f"echo changed > {outside}" and "once without the sandbox" in first.title
    assert outside.read_text() == "changed\n"
    answered = [e for e in events if isinstance(e, PermissionAnswered)]
    assert answered[-1].allowed and answered[-1].scope == "once"
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert finished[0].output.startswith("The user let this command run once without the sandbox.")
    assert "Exit code 0" in last_tool_result(runtime)
    assert session.sandbox is not None and session.sandbox.active  # once: the next command is confined again
    await session.close()


async def test_declining_keeps_the_command_refused(workdir: Path, tmp_path: Path, outside: Path) -> None:
    async def keep(request: PermissionAsked) -> PermissionReply:
        return PermissionReply(False, reason="The user chose to keep it in the sandbox; do not retry it.")

    runtime = ScriptedRuntime(write_outside(outside))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", allow_tools=("run_command",)), runtime=runtime)
    session = await host.open(workdir, approver=keep)
    await run_turn(session, "change it")
    assert outside.read_text() == "untouched\n"
    assert "keep it in the sandbox" in last_tool_result(runtime)
    await session.close()


async def test_flag_settings_and_slash_command_choose_the_mode(workdir: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text('[sandbox]\nmode = "read-only"\nnetwork = true\n')
    runtime = ScriptedRuntime([])
    from_settings = await SessionHost(HostOptions(config_dir=config), runtime=runtime).open(workdir)
    assert from_settings.status().sandbox == "read-only, network on"
    await from_settings.close()
    host = SessionHost(HostOptions(config_dir=config, sandbox_mode="off"), runtime=runtime)
    session = await host.open(workdir)
    assert session.sandbox_mode == "off" and session.status().sandbox == "off"
    await session.set_sandbox_mode("workspace-write")
    assert session.status().sandbox == "workspace-write, network on"
    with pytest.raises(UsageError, match="sandbox mode must be one of"):
        await session.set_sandbox_mode("loose")
    await session.close()


async def test_bad_sandbox_settings_are_a_usage_error(workdir: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text("[sandbox]\nnetwork = \"yes\"\n")
    host = SessionHost(HostOptions(config_dir=config), runtime=ScriptedRuntime([]))
    with pytest.raises(UsageError, match=r"\[sandbox\] network must be true or false"):
        await host.open(workdir)


async def test_a_model_switch_keeps_the_sessions_sandbox(workdir: Path, tmp_path: Path) -> None:
    runtime = ScriptedRuntime(["a"])
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=runtime)
    old = await host.open(workdir)
    await run_turn(old, "hi")
    changed = await old.set_sandbox_mode("read-only")
    new = await host.switch_model(old, "scripted-b")
    assert new.sandbox is changed and new.status().sandbox == "read-only, network off"
    assert changed.policy.temp_dir is not None and changed.policy.temp_dir.is_dir()  # still in use
    await new.close()
    assert not changed.policy.temp_dir.exists()


async def test_a_machine_that_cannot_confine_says_so_in_the_session(
    workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_kernel = SandboxSupport("Linux", "5.4.0")  # what an old kernel without bubblewrap offers
    monkeypatch.setattr("sigit.app.open_sandbox", lambda policy: open_sandbox(policy, old_kernel))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=ScriptedRuntime(["hi"]))
    session = await host.open(workdir)
    assert session.status().sandbox == "off (workspace-write unavailable here)"
    assert session.sandbox_mode == "off"
    events = await run_turn(session, "hello")
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert ("sandbox off: Landlock is not available (kernel 5.4.0), and bubblewrap is not installed"
            in warnings)
    await session.close()
