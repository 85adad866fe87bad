"""Locations of the user config dir and of a project's `.sigit` folder."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs
from onde import expand_home

CONFIG_DIR_ENV = "SIGIT_CONFIG_DIR"
CACHE_DIR_ENV = "SIGIT_CACHE_DIR"
PROMPT_CACHE_DIR = "prompt-cache"
STATE_DIR_ENV = "SIGIT_STATE_DIR"
SETTINGS_FILE = "settings.toml"
PROJECT_DIR = ".sigit"


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$SIGIT_CONFIG_DIR`, else the platform's user config dir (`~/.config/sigit` on Linux)."""
    environ = os.environ if env is None else env
    override = environ.get(CONFIG_DIR_ENV, "").strip()
    if override:
        return expand_home(override)
    return Path(platformdirs.user_config_dir("sigit", appauthor=False))


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$SIGIT_CACHE_DIR`, else the platform's user cache dir (`~/.cache/sigit` on Linux)."""
    environ = os.environ if env is None else env
    override = environ.get(CACHE_DIR_ENV, "").strip()
    if override:
        return expand_home(override)
    return Path(platformdirs.user_cache_dir("sigit", appauthor=False))


def prompt_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where saved prompt states of local models go (`sigit cache` shows it)."""
    return cache_dir(env) / PROMPT_CACHE_DIR
def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$SIGIT_STATE_DIR`, else the platform's user state dir (`~/.local/state/sigit` on Linux): logs."""
    environ = os.environ if env is None else env
    override = environ.get(STATE_DIR_ENV, "").strip()
    if override:
        return expand_home(override)
    return Path(platformdirs.user_state_dir("sigit", appauthor=False))


def user_settings_path(directory: Path | None = None) -> Path:
    return (directory if directory is not None else config_dir()) / SETTINGS_FILE


def find_repo_root(cwd: Path) -> Path | None:
    """The nearest directory at or above `cwd` holding `.git` (a folder, or a file for worktrees)."""
    start = cwd.resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def project_root(cwd: Path) -> Path:
    """The repository root when `cwd` is inside one, else `cwd` itself."""
    root = find_repo_root(cwd)
    return root if root is not None else cwd.resolve()


def resolves_inside(path: Path, *bounds: Path) -> bool:
    """Whether `path`, every link followed, lies inside one of `bounds` (also resolved).

    What a repository puts in its config folders or instruction files is read only if it stays inside
    the project (or the user's config dir): `.claude/skills -> /` or `AGENTS.md -> ~/secret` do not.
    """
    try:
        real = path.resolve()
        roots = [bound.resolve() for bound in bounds]
    except (OSError, RuntimeError):
        return False
    return any(real == root or root in real.parents for root in roots)


def project_settings_path(cwd: Path) -> Path:
    return project_root(cwd) / PROJECT_DIR / SETTINGS_FILE
