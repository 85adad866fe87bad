from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.app import AgentSession, SessionHost
from sigit.options import HostOptions

OpenSession = Callable[..., Any]


@pytest.fixture
def open_session(workdir: Path, tmp_path: Path) -> OpenSession:
    async def _open(turns: list[Any], **options: Any) -> tuple[AgentSession, ScriptedRuntime]:
        approver = options.pop("approver", None)
        runtime = ScriptedRuntime(turns)
        host = SessionHost(HostOptions(config_dir=tmp_path / "config", **options), runtime=runtime)
        kwargs = {"approver": approver} if approver else {}
        return await host.open(workdir, **kwargs), runtime

    return _open


