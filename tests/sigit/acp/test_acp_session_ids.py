"""Issue 35's third audit, ACP: a session id an editor sends that traverses (`../x`), holds a NUL or a
control character, or is longer than any file name is refused as invalid params naming it, reads or
writes nothing outside the sessions folder, and leaves the agent answering."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest

from .conftest import RecordingClient, running_agent, write_scenario

BAD_IDS = ["../../outside", "..", "a/../../b", "a\\..\\b", "a\x00b", "a\nb", "x" * 5000]


async def test_bad_session_ids_are_invalid_params_and_the_agent_goes_on(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text("{not a session}\n")
    scenario = write_scenario(tmp_path / "s.json", [{"text": "still here"}])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        for method in ("load_session", "resume_session"):
            for bad in BAD_IDS:
                with pytest.raises(acp.RequestError) as refused:
                    await getattr(conn, method)(session_id=bad, cwd=str(project))
                assert refused.value.code == -32602, (method, bad, refused.value)
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")])
    assert "still here" in client.text()
    assert outside.read_text() == "{not a session}\n"
    assert sorted(p.name for p in (config_dir / "sessions").iterdir() if p.suffix == ".jsonl") == [
        f"{session.session_id}.jsonl"
    ]
