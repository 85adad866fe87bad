"""ACP with the SDK's client (the server in this process, conftest.agent_in_process): `promptCapabilities.image`
says whether the model can see, and `image` blocks (base64) and `resource_link`s to image files go to the model
as pictures."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import acp
import pytest
from acp.schema import ImageContentBlock, ResourceContentBlock, TextContentBlock

from .conftest import RecordingClient, agent_in_process, running_agent, write_scenario

pytestmark = pytest.mark.timeout(60)


async def _image_capability(model: str, config_dir: Path) -> bool | None:
    async with agent_in_process(RecordingClient(), ["acp", "--model", model], config_dir) as conn:
        reply = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
    caps = reply.agent_capabilities
    return caps.prompt_capabilities.image if caps and caps.prompt_capabilities else None


async def test_image_capability_follows_the_model(
    tmp_path: Path, config_dir: Path, tiny_gguf: Path, tiny_vision_gguf: Path
) -> None:
    assert await _image_capability(str(tiny_vision_gguf), config_dir) is True  # its projector is beside it
    assert await _image_capability(str(tiny_gguf), config_dir) is False  # text-only


async def test_image_blocks_and_image_links_reach_the_model(
    tmp_path: Path, config_dir: Path, project: Path, make_png: Callable[..., Path]
) -> None:
    scenario = write_scenario(tmp_path / "s.json", [{"text": "Two pictures."}])
    pasted = make_png(48, 32, seed=21).read_bytes()
    shutil.copy(make_png(40, 40, seed=22), project / "linked.png")
    client = RecordingClient()
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[
            TextContentBlock(type="text", text="compare these"),
            ImageContentBlock(type="image", data=base64.b64encode(pasted).decode(), mime_type="image/png"),
            ResourceContentBlock(type="resource_link", uri=(project / "linked.png").as_uri(), name="linked.png",
                                 mime_type="image/png"),
        ])
    assert reply.stop_reason == "end_turn"
    sessions = config_dir / "sessions"
    lines = [json.loads(line) for line in (sessions / f"{session.session_id}.jsonl").read_text().splitlines()[1:]]
    user = next(line for line in lines if line["role"] == "user")
    assert user["content"] == "compare these"
    stored = [(sessions / f"{session.session_id}.images" / ref["file"]).read_bytes() for ref in user["images"]]
    assert stored == [pasted, (project / "linked.png").read_bytes()]
