"""Where model hosts live and who may talk to them: the private folder their sockets are in, the socket
named for a model file and its load settings, the log folder, and the peer-credential check.

Every host of a user is a socket in one folder only that user can enter (0700, owned by them, checked
before use: a folder someone else made in /tmp is refused, never reused), the socket itself 0600; and
both ends ask the kernel who is on the other side (SO_PEERCRED), so even a socket that somehow became
reachable serves, and is trusted by, the same user only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import stat
import struct
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..home import expand_home

HOST_DIR_NAME = "qwen-runtime"

KEY_ENV_PREFIXES = ("QWEN_RUNTIME_", "LLAMA_", "GGML_", "OMP_", "HF_")
"""Environment variables that change how a model loads (threads, llama.cpp's own switches, the hub):
part of a host's key, so a client with other values gets a host loaded the way it would load."""


class HostPlaceError(OSError):
    """The host folder is not private to this user (someone else's, or open to others)."""


def runtime_dir(env: Mapping[str, str] | None = None) -> Path:
    """The folder of this user's host sockets: `$XDG_RUNTIME_DIR/qwen-runtime`, else
    `/tmp/qwen-runtime-<uid>`; made 0700 when missing, refused (`HostPlaceError`) when it is not this
    user's own private folder."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_RUNTIME_DIR", "").strip()
    folder = Path(base) / HOST_DIR_NAME if base else Path("/tmp") / f"{HOST_DIR_NAME}-{os.getuid()}"
    return private_dir(folder)


def private_dir(folder: Path) -> Path:
    """`folder`, made 0700 if missing; `HostPlaceError` when it is a link, not a folder, someone else's,
    or open to group or others (checked on the folder opened, not on the name)."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    if info.st_uid != os.getuid():
        raise HostPlaceError(f"{folder} belongs to uid {info.st_uid}, not to this user: no model host there")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise HostPlaceError(f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}): "
                             "no model host there")
    return folder


def log_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where hosts write their logs: `$XDG_STATE_HOME/qwen-runtime/hosts` (~/.local/state when unset)."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_STATE_HOME") or os.path.join("~", ".local", "state")
    folder = expand_home(base) / HOST_DIR_NAME / "hosts"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def host_key(model_path: str, options: Mapping[str, Any], env: Mapping[str, str] | None = None) -> str:
    """A short name for one model file loaded one way: the file (its path, size and change time, so a
    rewritten file gets a new host), the load options, the Python and package that serve it, and the
    environment variables that change a load."""
    from .. import __version__

    environ = os.environ if env is None else env
    info = os.stat(model_path)
    described = {
        "path": os.path.realpath(model_path),
        "size": info.st_size,
        "mtime_ns": info.st_mtime_ns,
        "options": dict(options),
        "python": sys.executable,
        "version": __version__,
        "env": {k: v for k, v in sorted(environ.items()) if k.startswith(KEY_ENV_PREFIXES)},
    }
    text = json.dumps(described, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


_KEY = re.compile(r"^[0-9a-f]{20}$")


def socket_path(folder: Path, key: str) -> Path:
    if not _KEY.match(key):
        raise ValueError(f"not a host key: {key!r}")
    return folder / f"{key}.sock"


def info_path(socket_file: Path) -> Path:
    """The host's description beside its socket (model, pid, start time), for `sigit doctor`."""
    return socket_file.with_suffix(".json")


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a connected unix socket, as the kernel says it."""
    if hasattr(socket, "SO_PEERCRED"):
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return int(uid)
    getpeereid = getattr(os, "getpeereid", None)  # not in the stdlib on every platform
    if getpeereid is not None:
        return int(getpeereid(conn.fileno())[0])
    raise HostPlaceError("this platform cannot tell who is at the other end of a socket: no model host")


def same_user(conn: socket.socket, uid: int | None = None) -> bool:
    """Whether the peer of `conn` is this user (`uid`: the one expected, ours by default)."""
    expected = os.getuid() if uid is None else uid
    try:
        return peer_uid(conn) == expected
    except OSError:
        return False
