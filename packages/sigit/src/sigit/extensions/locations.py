"""Where skills, commands and agent types live, most specific first.

Project folders (`.sigit/<kind>`, then `.claude/<kind>`) in every directory from the cwd up to the
repo root, then the user config dir's `<kind>/`, then `~/.claude/<kind>`. The first definition of a
name wins, so a project overrides the user and a nearer directory overrides an outer one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sigit.config.paths import PROJECT_DIR, find_repo_root
from sigit.extensions.frontmatter import ExtensionWarning

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


def markdown_files(folder: Path) -> Iterable[Path]:
    """Every `*.md` file below `folder` (commands and agent types)."""
    return (p for p in folder.rglob("*.md") if p.is_file())


def extension_files(
    kind: str,
    cwd: Path,
    config_dir: Path,
    home: Path | None,
    list_files: Callable[[Path], Iterable[Path]],
    warnings: list[str],
) -> Iterator[tuple[SearchRoot, Path]]:
    """Each root's files in precedence order, sorted within a root; an unreadable root becomes a warning."""
    for root in search_roots(kind, cwd, config_dir, home):
        try:
            files = sorted(list_files(root.path))
        except OSError as exc:
            warnings.append(ExtensionWarning(root.path, f"cannot list: {exc.strerror or exc}"))
            continue
        for path in files:
            yield root, path
