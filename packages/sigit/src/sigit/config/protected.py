"""The places no tool, command or caller may change (or read), declared once with the reason for each.

What siGit reads at its next start decides what runs outside any sandbox: its settings (hooks, MCP
servers), trust records, saved sessions, the prompt cache, the runtime's tuning records. A model or an
MCP caller that could write them would plant code in the user's next ordinary run, whatever folder the
session was started in (the home folder holds them all). One list says where they are; the permission
policy, the file tools (on the directory they opened, so a swapped link cannot redirect the write),
and the sandbox (read-only mounts) all read it.

`no_write`: never written, in any permission mode. `no_read`: neither read nor written (a secret; eval
adds the answer folders of its cases). Repository places (`.git/hooks`, `.git/config`, `.git/info`) lie
in every repository: commands never write them; file tools ask first (the policy's git rule), and the
repository guard undoes what a step planted there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from onde import expand_home

from sigit.config.paths import PROMPT_CACHE_DIR, cache_dir, state_dir
from sigit.config.paths import config_dir as default_config_dir

Kind = Literal["no_write", "no_read"]

TUNING_DIR_ENV = "QWEN_RUNTIME_TUNING_DIR"
MCP_TOKEN_FILE = "mcp-token"
"""The HTTP MCP server's bearer token in the state folder (sigit.frontends.mcp_server.http_transport)."""


@dataclass(frozen=True)
class ProtectedPlace:
    """One folder or file (and everything below it) and why it is protected."""

    path: Path
    kind: Kind
    reason: str


@dataclass(frozen=True)
class RepositoryPlace:
    """A path inside every repository's `.git` that git reads as code (hooks, config)."""

    name: str
    reason: str


REPOSITORY_PLACES: tuple[RepositoryPlace, ...] = (
    RepositoryPlace(".git/hooks", "git runs these programs at commit, checkout and merge"),
    RepositoryPlace(".git/config", "git runs the programs its keys name (core.fsmonitor, aliases, filters)"),
    RepositoryPlace(".git/info", "git reads attributes (filters that run programs) and excludes from it"),
)


class ProtectedPlaces:
    """The declared list; `refusal` judges a real path (every link followed, as an opened descriptor's)."""

    def __init__(self, places: Iterable[ProtectedPlace] = (),
                 repository: Iterable[RepositoryPlace] = REPOSITORY_PLACES) -> None:
        self._places: list[ProtectedPlace] = list(places)
        self.repository: tuple[RepositoryPlace, ...] = tuple(repository)

    @classmethod
    def default(cls, config_dir: Path | None = None, env: Mapping[str, str] | None = None) -> ProtectedPlaces:
        """siGit's own folders (`config_dir` as the session uses it, else the environment's) and the
        runtime's tuning records."""
        environ = os.environ if env is None else env
        config = config_dir if config_dir is not None else default_config_dir(environ)
        cache, state = cache_dir(environ), state_dir(environ)
        return cls([
            ProtectedPlace(config, "no_write", "siGit's configuration: settings (hooks, MCP servers), trust "
                           "records and saved sessions, which the next sigit reads and runs"),
            ProtectedPlace(cache, "no_write", "siGit's cache: the prompt cache the next session loads"),
            ProtectedPlace(cache / PROMPT_CACHE_DIR, "no_write", "siGit's prompt cache"),
            ProtectedPlace(state, "no_write", "siGit's state folder: logs and the MCP server's token"),
            ProtectedPlace(state / MCP_TOKEN_FILE, "no_read",
                           "the MCP server's bearer token: whoever reads it reaches siGit's tools over HTTP"),
            ProtectedPlace(tuning_dir(environ), "no_write",
                           "the runtime's tuning records, which choose how the next model load runs"),
        ])

    def add(self, path: Path, kind: Kind, reason: str) -> ProtectedPlaces:
        """One more place (eval's answer folders); returns self."""
        self._places.append(ProtectedPlace(Path(os.path.abspath(os.path.expanduser(path))), kind, reason))
        return self

    @property
    def places(self) -> tuple[ProtectedPlace, ...]:
        return tuple(self._places)

    def no_write_dirs(self) -> tuple[Path, ...]:
        """The places not inside another, as declared: the sandbox keeps these read-only where they lie
        in a folder commands may write (and makes a missing one first, so no command can make it)."""
        paths = list(dict.fromkeys(p.path for p in self._places))
        return tuple(p for p in paths if not any(other in p.parents for other in paths))

    def repository_names(self) -> tuple[str, ...]:
        """`.git/hooks`, ...: kept read-only in every writable root by the sandbox."""
        return tuple(p.name for p in self.repository)

    def refusal(self, path: Path, writing: bool) -> str | None:
        """Why `path` (a real path: links already followed) may not be written (or read), or None.

        A `no_read` place is not written either. The places are resolved now, so a folder that is
        itself reached through a link (`~/.config -> dotfiles/config`) is judged where it is."""
        real = _comparable(path)
        for place in self._places:
            if not writing and place.kind != "no_read":
                continue
            where = _comparable(Path(os.path.realpath(place.path)))
            if real == where or where in real.parents:
                verb = "written" if writing else "read"
                return (f"{path} is in a protected place ({place.path}: {place.reason}); siGit's tools never "
                        f"{'write' if writing else 'read'} there, in any permission mode, so it was not {verb}")
        return None


def tuning_dir(env: Mapping[str, str]) -> Path:
    """`qwen_runtime.speed.tuning.tuning_dir` (sigit reaches the runtime only through onde, which does
    not need to load here): $QWEN_RUNTIME_TUNING_DIR, else $XDG_CACHE_HOME/qwen-runtime/tuning. A test
    keeps the two in step."""
    if folder := env.get(TUNING_DIR_ENV):
        return expand_home(folder)
    base = env.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return expand_home(base) / "qwen-runtime" / "tuning"


def _comparable(path: Path) -> Path:
    """macOS and Windows file systems ignore case by default: compare folded there."""
    if sys.platform in ("darwin", "win32"):
        return Path(str(path).casefold())
    return path
