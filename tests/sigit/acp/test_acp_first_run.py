"""`sigit acp` with no model cached: session/new answers an error naming the command that downloads it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import acp
import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities
from qwen_runtime.models.registry import get_model
from qwen_runtime.testing.fake_hub import serve_fake_hub
from sigit.config.settings import default_model

from .conftest import TRANSPORT, RecordingClient

SIGIT = str(Path(sys.executable).with_name("sigit"))


async def test_new_session_names_the_pull_command_and_downloads_nothing(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    default = get_model(default_model())
    with serve_fake_hub() as hub:
        hub.add(default.repo_id, default.filename, b"GGUF not a real model")
        env = {"SIGIT_CONFIG_DIR": str(config_dir), "PATH": os.environ.get("PATH", ""),
               "HF_HUB_CACHE": str(tmp_path / "empty-hub-cache"), "HF_ENDPOINT": hub.url}
        client = RecordingClient()
        async with acp.spawn_agent_process(client.as_client(), SIGIT, "acp", env=env,
                                           transport_kwargs=TRANSPORT) as (conn, _process):
            caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=False, write_text_file=False))
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
            with pytest.raises(acp.RequestError) as refused:
                await conn.new_session(cwd=str(project))
        requests = list(hub.requests)
    assert isinstance(refused.value.data, dict)
    details = str(refused.value.data["details"])
    assert f"`qwen-runtime pull {default.key}`" in details
    assert "--download" in details and 'download = "auto"' in details
    assert default.size_display in details
    assert requests == []
