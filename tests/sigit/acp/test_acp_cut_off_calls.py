"""A call the token limit cut off shows in the ACP client as a failed tool call, and nothing is written."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from .conftest import RecordingClient, running_agent, write_scenario

CUT_WRITE = {
    "raw": "<tool_call>\n<function=create_file>\n<parameter=path>\nbig.md\n</parameter>\n"
    "<parameter=content>\n# Big\n\nThe first part of a long fi",
    "finish_reason": "length",
}


async def test_a_cut_off_call_is_a_failed_card_and_writes_nothing(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [CUT_WRITE, {"text": "I'll write it in parts."}])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir, "--permission-mode", "accept-edits") as conn:
        session = await conn.new_session(cwd=str(project))
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("write big.md")])
    assert not (project / "big.md").exists()
    [card] = client.of("tool_call")
    [update] = client.of("tool_call_update")
    assert update.tool_call_id == card.tool_call_id
    assert update.status == "failed" and "cut off at the token limit" in str(update.content)
    assert reply.stop_reason == "end_turn"
    assert reply.field_meta is not None and reply.field_meta["sigit"]["cutOffCalls"] == 1
