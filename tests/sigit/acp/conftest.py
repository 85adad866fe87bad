"""A recording ACP client and a helper that starts the real `sigit acp` on a scripted model."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

SIGIT = str(Path(sys.executable).with_name("sigit"))


class RecordingClient:
    """Answers permission requests with `choice` and records every update it receives."""

    def __init__(self, choice: str | None = "allow_once") -> None:
        self.choice = choice
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[Any] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kw: Any
                                 ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        if self.choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.choice))

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append((session_id, update))

    async def read_text_file(self, session_id: str, path: str, **kw: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any
                              ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        Path(path).write_text(content)
        return WriteTextFileResponse()

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u.session_update for s, u in self.updates if session_id in (None, s)]

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


def write_scenario(path: Path, turns: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"turns": turns}))
    return path


def agent_env(config_dir: Path) -> dict[str, str]:
    return {"SIGIT_CONFIG_DIR": str(config_dir), "PATH": os.environ.get("PATH", "")}


@asynccontextmanager
async def running_agent(
    client: RecordingClient, scenario: Path, config_dir: Path, *extra: str, fs: bool = False,
) -> AsyncIterator[acp.core.ClientSideConnection]:
    args = ["acp", "--model", f"scripted:{scenario}", *extra]
    async with acp.spawn_agent_process(
        client, SIGIT, *args, env=agent_env(config_dir), transport_kwargs={"stderr": None},
    ) as (conn, _process):
        caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs))
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
        yield conn


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    path = tmp_path / "config"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path
