"""Session lifecycle over ACP: switching models, fork, resume, close, and the mode option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import text_block

from .conftest import RecordingClient, running_agent, write_scenario


def _saved_texts(config_dir: Path, session_id: str) -> list[str]:
    lines = (config_dir / "sessions" / f"{session_id}.jsonl").read_text().splitlines()
    return [line for line in lines if line.strip()]


def _option(options: list[Any] | None, config_id: str) -> Any:
    assert options is not None
    return next(getattr(o, "root", o) for o in options if getattr(o, "root", o).id == config_id)


async def test_switching_model_keeps_the_history_and_the_next_prompt_goes_to_the_new_model(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    model_a = write_scenario(tmp_path / "a.json", [{"text": "answer from A"}])
    model_b = write_scenario(tmp_path / "b.json", [{"text": "answer from B"}])
    client = RecordingClient()
    async with running_agent(client, model_a, config_dir, "--permission-mode", "accept-edits") as conn:
        session = await conn.new_session(cwd=str(project))
        sid = session.session_id
        await conn.prompt(session_id=sid, prompt=[text_block("first question")])
        with pytest.raises(acp.RequestError) as unknown:
            await conn.set_config_option(config_id="model", session_id=sid, value="no-such-model")
        with pytest.raises(acp.RequestError) as missing:
            await conn.set_config_option(config_id="model", session_id=sid,
                                         value=f"scripted:{tmp_path / 'missing.json'}")
        reply = await conn.set_config_option(config_id="model", session_id=sid, value=f"scripted:{model_b}")
        await conn.prompt(session_id=sid, prompt=[text_block("second question")])
        await conn.prompt(session_id=sid, prompt=[text_block("/status")])
    assert unknown.value.code == -32602 and "no-such-model" in str(unknown.value.data)
    assert missing.value.code == -32603 and "missing.json" in str(missing.value.data)
    assert _option(reply.config_options, "model").current_value == f"scripted:{model_b}"
    assert _option(reply.config_options, "mode").current_value == "accept-edits"
    assert "answer from Aanswer from B" in client.text()
    assert f"Model: `scripted:{model_b}`" in client.text()
    saved = "\n".join(_saved_texts(config_dir, sid))
    assert saved.index("first question") < saved.index("answer from A") < saved.index("second question")
    assert json.loads(_saved_texts(config_dir, sid)[0])["model"] == f"scripted:{model_b}"


async def test_switching_model_keeps_the_mode_and_the_rejections(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    call = {"name": "run_command", "arguments": {"command": "echo hi > a.txt"}}
    model_a = write_scenario(tmp_path / "a.json", [{"tool_calls": [call]}, {"text": "refused"}])
    model_b = write_scenario(tmp_path / "b.json", [{"tool_calls": [call]}, {"text": "refused again"}])
    client = RecordingClient("reject_always")
    async with running_agent(client, model_a, config_dir) as conn:
        sid = (await conn.new_session(cwd=str(project))).session_id
        await conn.set_session_mode(session_id=sid, mode_id="accept-edits")
        await conn.prompt(session_id=sid, prompt=[text_block("run it")])
        reply = await conn.set_config_option(config_id="model", session_id=sid, value=f"scripted:{model_b}")
        await conn.prompt(session_id=sid, prompt=[text_block("run it on B")])
    assert _option(reply.config_options, "mode").current_value == "accept-edits"
    assert len(client.permissions) == 1  # "always reject" outlived the switch: B's call was refused unasked
    assert not (project / "a.txt").exists()
    assert "refusedrefused again" in client.text()


async def test_fork_copies_the_history_and_then_goes_its_own_way(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"text": "first answer"}, {"text": "fork answer"}, {"text": "original answer"},
    ])
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        original = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=original.session_id, prompt=[text_block("shared question")])
        fork = await conn.fork_session(session_id=original.session_id, cwd=str(project))
        await conn.prompt(session_id=fork.session_id, prompt=[text_block("only in the fork")])
        await conn.prompt(session_id=original.session_id, prompt=[text_block("only in the original")])
    assert fork.session_id != original.session_id
    forked = "\n".join(_saved_texts(config_dir, fork.session_id))
    kept = "\n".join(_saved_texts(config_dir, original.session_id))
    assert "shared question" in forked and "first answer" in forked and "only in the fork" in forked
    assert "only in the original" not in forked
    assert "shared question" in kept and "only in the original" in kept and "only in the fork" not in kept


@pytest.mark.script_may_remain  # each agent reads the script afresh and plays one of its two turns
async def test_resume_continues_the_history_without_replaying_it(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])
    first = RecordingClient()
    async with running_agent(first, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("before restart")])
    second = RecordingClient()
    async with running_agent(second, scenario, config_dir) as conn:
        await conn.resume_session(session_id=session.session_id, cwd=str(project))
        assert second.of("user_message_chunk") == [] and second.of("agent_message_chunk") == []
        await conn.prompt(session_id=session.session_id, prompt=[text_block("after restart")])
        await conn.close_session(session_id=session.session_id)
        with pytest.raises(acp.RequestError) as closed:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("after close")])
        with pytest.raises(acp.RequestError) as twice:
            await conn.close_session(session_id=session.session_id)
    assert closed.value.code == -32602 and twice.value.code == -32602
    saved = "\n".join(_saved_texts(config_dir, session.session_id))
    assert saved.index("before restart") < saved.index("after restart")
    assert "after close" not in saved


async def test_plan_mode_refuses_a_mutating_tool(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [
        {"tool_calls": [{"name": "create_file", "arguments": {"path": "p.txt", "content": "x"}}]},
        {"text": "I may not write in plan mode."},
    ])
    client = RecordingClient("allow_once")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        sid = session.session_id
        reply = await conn.set_config_option(config_id="mode", session_id=sid, value="bypass")
        assert _option(reply.config_options, "mode").current_value == "bypass"
        with pytest.raises(acp.RequestError) as bad:
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        await conn.prompt(session_id=sid, prompt=[text_block("write p.txt")])
    assert bad.value.code == -32602
    assert not (project / "p.txt").exists()
    assert client.permissions == []
    assert client.of("tool_call_update")[-1].status == "failed"
