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

from sigit.config.paths import PROJECT_DIR, find_repo_root, resolves_inside
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


def project_bounds(cwd: Path, config_dir: Path) -> tuple[Path, ...]:
    """Where a project's config folders and files may lead: the project (repository root, else the cwd)
    and the user's config dir."""
    start = Path(cwd).resolve()
    return (find_repo_root(start) or start, Path(config_dir))


def search_roots(kind: str, cwd: Path, config_dir: Path, home: Path | None = None,
                 warnings: list[str] | None = None) -> list[SearchRoot]:
    """Existing folders holding `kind` ("skills", "commands", "agents"), in precedence order.

    A project folder that resolves outside the project and the config dir (`.claude/skills -> /`) is
    skipped, with a warning in `warnings`.
    """
    start = Path(cwd).resolve()
    bounds = project_bounds(start, config_dir)
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
        if candidate.scope == "project" and not resolves_inside(candidate.path, *bounds):
            if warnings is not None:
                warnings.append(ExtensionWarning(candidate.path, f"skipped: it leads outside the project "
                                                 f"(to {resolved})"))
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
    bounds = project_bounds(cwd, config_dir)
    for root in search_roots(kind, cwd, config_dir, home, warnings):
        try:
            files = sorted(list_files(root.path))
        except OSError as exc:
            warnings.append(ExtensionWarning(root.path, f"cannot list: {exc.strerror or exc}"))
            continue
        for path in files:
            if root.scope == "project" and not resolves_inside(path, *bounds):
                warnings.append(ExtensionWarning(path, "skipped: it leads outside the project"))
                continue
            yield root, path
