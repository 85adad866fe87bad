"""Where skills, commands and agent types live, most specific first.

Project folders (`.sigit/<kind>`, then `.claude/<kind>`) in every directory from the cwd up to the
repo root, then the user config dir's `<kind>/`, then `~/.claude/<kind>`. The first definition of a
name wins, so a project overrides the user and a nearer directory overrides an outer one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sigit.config.paths import PROJECT_DIR, find_repo_root

Scope = Literal["project", "user"]


@dataclass(frozen=True)
class SearchRoot:
    path: Path
    scope: Scope


def home_dir() -> Path:
    """`$HOME` when set (tests point it at a tmp dir), else the account's home."""
    home = os.environ.get("HOME", "").strip()
    return Path(home) if home else Path.home()


def search_roots(kind: str, cwd: Path, config_dir: Path, home: Path | None = None) -> list[SearchRoot]:
    """Existing folders holding `kind` ("skills", "commands", "agents"), in precedence order."""
    start = Path(cwd).resolve()
    root = find_repo_root(start)
    directories = [start]
    if root is not None:
        directories = [start, *[p for p in start.parents if root == p or root in p.parents]]
    candidates: list[SearchRoot] = []
    for directory in directories:
        candidates.append(SearchRoot(directory / PROJECT_DIR / kind, "project"))
        candidates.append(SearchRoot(directory / ".claude" / kind, "project"))
    candidates.append(SearchRoot(Path(config_dir) / kind, "user"))
    candidates.append(SearchRoot((home or home_dir()) / ".claude" / kind, "user"))
    found: list[SearchRoot] = []
    seen: set[Path] = set()
    for candidate in candidates:
        try:
            resolved = candidate.path.resolve()
            if resolved in seen or not resolved.is_dir():
                continue
        except OSError:
            continue
        seen.add(resolved)
        found.append(candidate)
    return found
