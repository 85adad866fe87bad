"""ACP's stopReason tells the truth: the loop guard is a refusal to go on, not a token limit (and the reply
says so); refused calls end an ordinary turn with sigit's own reason in `_meta`."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from .conftest import RecordingClient, running_agent, write_scenario


async def test_the_loop_guard_is_a_refusal_not_max_tokens(tmp_path: Path, config_dir: Path, project: Path) -> None:
    scenario = write_scenario(tmp_path / "s.json", [{"text": "I will check the file again. " * 40}])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("check it")])
    assert reply.stop_reason == "refusal"
    assert reply.field_meta is not None and reply.field_meta["sigit"]["stopReason"] == "loop_guard"
    assert "repeating itself" in client.text()
