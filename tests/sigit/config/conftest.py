"""The folders the settings tests load from: a config dir, and a project that is a git repository's root."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """(config dir, project dir that is a git repo root)."""
    config, project = tmp_path / "config", tmp_path / "project"
    config.mkdir()
    (project / ".git").mkdir(parents=True)
    return config, project
