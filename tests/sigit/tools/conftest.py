"""Fixtures for the tool tests: a session context rooted in a fresh tmp dir, with short timeouts, and
the sandbox a session gets by default (workspace-write, network off), as a user runs commands."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sigit.sandbox import SandboxPolicy, open_sandbox
from sigit.tools import ToolContext, ToolRegistry, default_registry


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    context = ToolContext(cwd=tmp_path / "work", command_timeout=5.0)
    context.cwd.mkdir()
    sandbox = context.sandbox = open_sandbox(SandboxPolicy.from_settings(None, workspace=context.cwd))
    yield context
    await context.processes.kill_all()
    for opened in {sandbox, context.sandbox}:  # a test may have given the context another one
        if opened is not None:
            opened.close()


@pytest.fixture
def registry() -> ToolRegistry:
    return default_registry()
