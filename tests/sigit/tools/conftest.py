"""Fixtures for the tool tests: a session context rooted in a fresh tmp dir, with short timeouts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sigit.tools import ToolContext, ToolRegistry, default_registry


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    context = ToolContext(cwd=tmp_path / "work", command_timeout=5.0)
    context.cwd.mkdir()
    yield context
    await context.processes.kill_all()


@pytest.fixture
def registry() -> ToolRegistry:
    return default_registry()
