from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Layout:
    """A repo with a nested cwd, a user config dir and a HOME, all under tmp."""

    repo: Path
    cwd: Path
    config: Path
    home: Path

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "pkg" / "sub"
    cwd.mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return Layout(repo, cwd, config, home)
