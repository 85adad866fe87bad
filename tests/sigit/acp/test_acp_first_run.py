"""`sigit acp` with no model cached: session/new answers an error naming the command that downloads it."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities
from qwen_runtime.models.registry import get_model
from qwen_runtime.testing.fake_hub import serve_fake_hub
from sigit.config.settings import default_model

from .conftest import RecordingClient, agent_in_process


async def test_new_session_names_the_pull_command_and_downloads_nothing(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    default = get_model(default_model())
    with serve_fake_hub() as hub:
        hub.add(default.repo_id, default.filename, b"GGUF not a real model")
        # a new user's: online, no token, an empty cache, the hub at the fake one
        env: dict[str, str | None] = {"HF_HUB_CACHE": str(tmp_path / "empty-hub-cache"), "HF_ENDPOINT": hub.url}
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN", "HF_HOME"):
            env[name] = None
        client = RecordingClient()
        async with agent_in_process(client, ["acp"], config_dir, env) as conn:
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
