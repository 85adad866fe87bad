"""What a sandboxed command may do: the mode, the directories it may write, the network.

A policy is plain data, built from the `[sandbox]` settings table and the command-line flags; the
`Sandbox` (runner.py) turns it into what this machine can enforce. Reads are never restricted: a
command may read anything the user can (the permission rules guard what the agent reads).

Settings (all optional):

    [sandbox]
    mode = "workspace-write"   # "read-only" | "workspace-write" | "off"
    network = false            # TCP and UDP off; true lets commands reach the network
    loopback = false           # with network off: let the command reach servers it starts itself
    writable_dirs = []         # more directories writable in workspace-write (like --add-dir)
    cache_dirs = [...]         # replaces DEFAULT_CACHE_DIRS

Writable in `workspace-write`: the workspace, `writable_dirs` and `--add-dir` directories, the build
caches below, a private temp dir (TMPDIR points at it), and a few devices (/dev/null, ttys, /dev/shm).
Writable in `read-only`: the private temp dir and the devices only. Inside writable roots,
`.git/hooks` and `.git/config` (and what else redirects git: gitdirs.py) stay read-only, so a command
cannot plant code that git would run later outside the sandbox.

The caches are a trade-off: builds need them, and a command can also leave files there that a later
build outside the sandbox uses. Set `cache_dirs = []` to close that door.
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from sigit.config.protected import REPOSITORY_PLACES
from sigit.errors import UsageError

SandboxMode = Literal["read-only", "workspace-write", "off"]
MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
DEFAULT_MODE: SandboxMode = "workspace-write"

# Build caches that package managers write while installing or building (missing ones are skipped).
# Not `~/.cache/uv`: uv links `.venv` files to its archive (shared with every project, siGit's own
# packages included), so a command writing there would change code that runs unsandboxed; commands
# get a private uv cache instead (UV_CACHE_DIR in the temp dir).
DEFAULT_CACHE_DIRS: tuple[str, ...] = (
    "~/.cache/pip",
    "~/.cache/pypoetry",
    "~/.npm",
    "~/.cache/yarn",
    "~/.local/share/pnpm",
    "~/.cargo/registry",
    "~/.cargo/git",
    "~/go/pkg/mod",
    "~/.cache/go-build",
    "~/.gradle/caches",
    "~/.m2/repository",
    "~/.cache/ccache",
)

# Devices every command needs to write (`> /dev/null`, a terminal) and POSIX shared memory
# (Python's multiprocessing locks live in /dev/shm).
DEVICE_FILES: tuple[str, ...] = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
                                 "/dev/random", "/dev/urandom")
DEVICE_DIRS: tuple[str, ...] = ("/dev/pts", "/dev/shm")

# Relative to each writable root: kept read-only even though the root is writable (the repository
# places of the one protected list, `sigit.config.protected`).
DEFAULT_PROTECTED: tuple[str, ...] = tuple(place.name for place in REPOSITORY_PLACES)

# Hidden from the command (an empty directory or /dev/null mounted over them): unix sockets of
# services that would run code for it outside the sandbox. Landlock does not cover connecting to a
# socket by path, so `systemd-run --user ...` through the session's systemd or bus in
# /run/user/UID, `docker run -v /:/host ...` through docker.sock, or `tmux new-window CMD` through
# the tmux server would otherwise escape. `{uid}` is the user's id; the directory of `$TMUX`'s socket
# is hidden too, and so is every path matching MASKED_PATTERNS and every socket found in /tmp and
# $XDG_RUNTIME_DIR (two levels deep) when the sandbox wraps a command. Paths that hold a writable root
# are never hidden. Sockets elsewhere (a project's own, a service's in an unusual place) stay reachable.
DEFAULT_MASKED: tuple[str, ...] = (
    "/run/user/{uid}",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    "/run/snapd.socket",
    "/tmp/tmux-{uid}",
    "/tmp/.X11-unix",
    "/run/screen",
)
# Patterns (`*` globbing, `~` the home directory) for the sockets of agents and services that live
# elsewhere: ssh-agent, gpg-agent, D-Bus, tmux/screen, X11/Wayland, docker/podman under the home.
MASKED_PATTERNS: tuple[str, ...] = (
    "/tmp/ssh-*",
    "/tmp/gpg-*",
    "/tmp/dbus-*",
    "/tmp/tmux-*",
    "/tmp/screens",
    "/tmp/uscreens",
    "/tmp/.X11-unix",
    "/tmp/.ICE-unix",
    "/tmp/podman-run-*",
    "/var/run/screen",
    "~/.gnupg/S.*",
    "~/.ssh/*.sock",
    "~/.ssh/agent*",
    "~/.docker/run",
    "~/.colima",
    "~/.lima",
    "~/.rd/docker.sock",
    "~/.local/share/containers/podman/machine",
)
# Scanned for unix sockets (two levels deep), each hidden: whatever else listens there.
SOCKET_SCAN_DIRS: tuple[str, ...] = ("/tmp", "$XDG_RUNTIME_DIR", "/run/user/{uid}")
# For root only (others cannot use them to run code): systemd's private socket and the system bus.
ROOT_MASKED: tuple[str, ...] = ("/run/systemd/private", "/run/dbus/system_bus_socket")

_KEYS = {"mode", "network", "loopback", "writable_dirs", "cache_dirs"}


@dataclass(frozen=True)
class SandboxPolicy:
    """The sandbox a command runs in. `temp_dir` is filled in by `open_sandbox`."""

    workspace: Path
    mode: SandboxMode = DEFAULT_MODE
    extra_dirs: tuple[Path, ...] = ()
    cache_dirs: tuple[str, ...] = DEFAULT_CACHE_DIRS
    network: bool = False
    loopback: bool = False
    protected: tuple[str, ...] = DEFAULT_PROTECTED
    masked: tuple[str, ...] = DEFAULT_MASKED
    temp_dir: Path | None = field(default=None)
    tag: str | None = field(default=None, repr=False)  # the launcher's secret (filled in by the Sandbox)
    hidden: tuple[Path, ...] = ()
    """Hidden like `masked`, besides it (the default socket scan still applies): `sigit eval` hides the
    tasks' checks and reference solutions from the agent's commands and from the checks it grades."""
    own_dirs: tuple[Path, ...] = ()
    """The protected places (`ProtectedPlaces.no_write_dirs`: siGit's config, cache and state folders,
    the tuning records, ...): read-only to commands where they lie in a writable root (a session
    started in `~`)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"sandbox mode must be one of {', '.join(MODES)}, not {self.mode!r}")

    @classmethod
    def from_settings(
        cls,
        section: Mapping[str, object] | None,
        *,
        workspace: Path,
        add_dirs: Sequence[Path] = (),
        mode: str | None = None,
    ) -> SandboxPolicy:
        """Build a policy from the `[sandbox]` table; `mode` (the `--sandbox` flag) wins over it.

        `add_dirs` are the `--add-dir` directories: writable in `workspace-write`, like the workspace.
        Relative `writable_dirs` are taken from the workspace. Raises `UsageError` naming the key.
        """
        table = dict(section or {})
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise UsageError(f"[sandbox] has unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}")
        chosen = mode if mode is not None else table.get("mode", DEFAULT_MODE)
        if chosen not in MODES:
            raise UsageError(f"sandbox mode must be one of {', '.join(MODES)}, not {chosen!r}")
        network = _bool(table, "network", False)
        loopback = _bool(table, "loopback", False)
        writable = tuple(workspace / os.path.expanduser(p) for p in _strings(table, "writable_dirs", ()))
        caches = _strings(table, "cache_dirs", DEFAULT_CACHE_DIRS)
        return cls(workspace=workspace, mode=chosen, extra_dirs=(*add_dirs, *writable),
                   cache_dirs=caches, network=network, loopback=loopback)

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def work_roots(self) -> tuple[Path, ...]:
        """The workspace and the extra directories (where `protected` paths are looked for)."""
        if self.mode != "workspace-write":
            return ()
        return _existing_dirs((self.workspace, *self.extra_dirs))

    def writable_roots(self) -> tuple[Path, ...]:
        """Every existing directory a command may write under (resolved), devices aside."""
        roots: list[Path] = list(self.work_roots())
        if self.mode == "workspace-write":
            roots += _existing_dirs(Path(os.path.expanduser(c)) for c in self.cache_dirs)
        if self.temp_dir is not None and self.mode != "off":
            roots += _existing_dirs((self.temp_dir,))
        return tuple(dict.fromkeys(roots))

    def own_read_only(self) -> tuple[Path, ...]:
        """`own_dirs` that lie in a writable root, resolved (made first if missing, so that a command
        cannot create them): the next session would read what a command wrote there."""
        roots = self.writable_roots()
        found: list[Path] = []
        for raw in self.own_dirs:
            path = Path(os.path.realpath(os.path.expanduser(raw)))
            if any(path == root or root in path.parents for root in roots):
                with contextlib.suppress(OSError):
                    path.mkdir(parents=True, exist_ok=True)
                found.append(path)
        return tuple(found)

    def masked_paths(self) -> tuple[Path, ...]:
        """Existing `masked` paths, resolved, leaving out any that hold or sit in a writable root."""
        if self.mode == "off":
            return ()
        roots = self.writable_roots()
        uid = getattr(os, "getuid", lambda: 0)()
        found: list[Path] = []
        extra: list[str] = []
        if self.masked == DEFAULT_MASKED:
            extra += ROOT_MASKED if uid == 0 else ()
            tmux = os.environ.get("TMUX", "").split(",")[0]
            if tmux.startswith("/"):
                extra.append(os.path.dirname(tmux))
        if self.masked == DEFAULT_MASKED:
            extra += [str(p) for pattern in MASKED_PATTERNS
                      for p in glob.glob(os.path.expanduser(pattern.format(uid=uid)))]
            extra += [str(p) for p in find_sockets(SOCKET_SCAN_DIRS, uid)]
        for raw in (*self.masked, *extra, *(str(p).replace("{", "{{").replace("}", "}}") for p in self.hidden)):
            path = Path(os.path.realpath(raw.format(uid=uid) if "{" in raw else raw))
            if not os.path.lexists(path):
                continue
            if any(path == r or path in r.parents or r in path.parents for r in roots):
                continue
            found.append(path)
        unique = list(dict.fromkeys(found))
        # a path inside another hidden one is hidden with it (and no longer there to mount over)
        return tuple(p for p in unique if not any(other in p.parents for other in unique))

    def describe(self) -> str:
        """One line for a status bar or `/status`: `workspace-write, network off`."""
        if self.mode == "off":
            return "off"
        net = "network on" if self.network else "network off" + (" (loopback on)" if self.loopback else "")
        return f"{self.mode}, {net}"


def find_sockets(directories: Iterable[str], uid: int, depth: int = 2) -> list[Path]:
    """Unix sockets in `directories` (and `depth - 1` levels below), links not followed."""
    found: list[Path] = []
    for raw in directories:
        top = os.path.expandvars(raw.format(uid=uid))
        if not top.startswith("/"):
            continue
        stack = [(Path(top), 1)]
        while stack and len(found) < 1000:
            directory, level = stack.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries[:5000]:
                try:
                    if entry.is_symlink():
                        continue
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                if stat.S_ISSOCK(mode):
                    found.append(Path(entry.path))
                elif stat.S_ISDIR(mode) and level < depth:
                    stack.append((Path(entry.path), level + 1))
    return list(dict.fromkeys(found))


def _existing_dirs(paths: Iterable[Path]) -> tuple[Path, ...]:
    found: list[Path] = []
    for path in paths:
        real = Path(os.path.realpath(path))
        if real.is_dir():
            found.append(real)
    return tuple(found)


def _bool(table: Mapping[str, object], key: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise UsageError(f"[sandbox] {key} must be true or false, not {value!r}")
    return value


def _strings(table: Mapping[str, object], key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    value = table.get(key, default)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"[sandbox] {key} must be a list of paths, not {value!r}")
    return tuple(value)
