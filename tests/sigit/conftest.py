"""Fixtures shared by the sigit tests: a fresh working directory with siGit's config dir beside it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tmp_path/work`, with `SIGIT_CONFIG_DIR` at `tmp_path/config` and no permission default from the
    environment, so the test sees what a user with no settings sees."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("SIGIT_PERMISSION_DEFAULT", raising=False)
    return work
