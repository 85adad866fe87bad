"""Issue 12, finding 3 through the editor: the rule an "Always allow" would save is the narrow one,
shown in the permission request's options, and a grant does not cover a wider command."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from .conftest import RecordingClient, running_agent, write_scenario


def _run(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}


async def test_always_allow_offers_the_narrow_rule(tmp_path: Path, config_dir: Path, project: Path) -> None:
    lines = ['find . -name "*.py"', 'bash -c "ls"', 'python3 -c "print(1)"', "FOO=1 make test"]
    scenario = write_scenario(tmp_path / "s.json", [*(_run(line) for line in lines), {"text": "done"}])
    client = RecordingClient("reject_once")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    offered = [next(o.name for o in options if o.option_id == "allow_always") for _, options in client.permissions]
    assert offered == [
        """Always allow run_command(find . -name '*.py') (this session)""",
        "Always allow run_command(bash -c ls) (this session)",
        "Always allow run_command(python3 -c 'print(1)') (this session)",
        "Always allow run_command(make test*) (this session)",
    ]


async def test_a_grant_covers_the_same_command_not_a_wider_one(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        _run('find . -name "*.py"'), _run("find . -name '*.py'"), _run("find . -delete"), {"text": "done"}])
    client = RecordingClient("allow_always")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    asked = [tool_call.raw_input["command"] for tool_call, _ in client.permissions]
    assert asked == ['find . -name "*.py"', "find . -delete"]  # the second, same command, did not ask
