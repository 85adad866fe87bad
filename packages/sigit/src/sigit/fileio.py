"""Reading files that may not be files, and writing files that must survive a crash.

Paths come from the model and the repository, both untrusted: `/dev/zero` never ends, a FIFO blocks
the reader until someone writes, and a path checked a moment ago may have been swapped for either.
`read_regular` opens without blocking, asks the open descriptor (not the path) what it is, and never
reads more than its limit plus one byte, so the caller can tell "exactly the limit" from "more".

`write_atomic` is the one way siGit replaces a file (sessions, settings, file tools): a temporary
file in the same directory, fsynced, renamed over the target, then the directory fsynced, keeping
the old file's permission bits and owner, so a crash or a full disk leaves either the old or the new
content and a private file stays private.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any

from sigit.beneath import changed

MAX_TEXT_BYTES = 8 * 1024 * 1024
"""The most a text file tool reads of one file (bigger files are refused, not cut)."""

_CHUNK = 1 << 20


class NotRegularFileError(OSError):
    """The path is a FIFO, a device, a socket or a directory: file tools read regular files only."""


class FileTooLargeError(OSError):
    """The file is bigger than the reader's limit."""


_KINDS = ((stat.S_ISREG, "regular file"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO (named pipe)"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))


def kind_of(mode: int) -> str:
    """What a file mode says the file is, in words a user recognises."""
    return next((name for is_kind, name in _KINDS if is_kind(mode)), "special file")


def not_regular(path: Path, mode: int) -> NotRegularFileError:
    return NotRegularFileError(
        f"{path} is a {kind_of(mode)}, not a regular file; only regular files can be read."
    )


def check_regular(path: Path) -> None:
    """Raise `NotRegularFileError` when `path` exists and is not a regular file (follows symlinks)."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(path, mode)


def read_regular(path: Path, limit: int) -> bytes:
    """At most `limit + 1` bytes of the regular file at `path`; blocking, so run it in a thread.

    The file is opened non-blocking (a FIFO opens at once instead of waiting for a writer) and the
    open descriptor is checked, so a path swapped for a FIFO or device after a check cannot hang or
    flood the reader. The descriptor stays non-blocking: disk files ignore it, while kernel files
    that call themselves regular (`/proc/kmsg`, tracefs `trace_pipe`) would otherwise wait forever
    for data. A result longer than `limit` means the file holds more.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a device without a driver
            check_regular(path)
        raise
    return read_open(fd, path, limit)


_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def read_regular_at(dir_fd: int, name: str, shown: Path, limit: int) -> bytes:
    """`read_regular` of `name` in the open folder `dir_fd`, the name not followed if it is a link
    (a link there now was swapped in after the walk that found `name`)."""
    try:
        fd = os.open(name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise changed(shown) from None
        if exc.errno == errno.ENXIO:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
            raise not_regular(shown, mode) from None
        raise
    return read_open(fd, shown, limit)


def read_open(fd: int, path: Path, limit: int) -> bytes:
    """At most `limit + 1` bytes from the open descriptor `fd` (closed here), a regular file only."""
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(path, mode)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            try:
                chunk = os.read(fd, min(left, _CHUNK))
            except BlockingIOError:
                raise NotRegularFileError(
                    f"{path} is a kernel or stream file that says it is regular but has no data to "
                    "read now (reading it would wait); only regular files on disk can be read."
                ) from None
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_bounded(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The whole regular file at `path`, or `FileTooLargeError` when it holds more than `limit` bytes."""
    data = read_regular(path, limit)
    if len(data) > limit:
        raise FileTooLargeError(
            f"{path} is larger than {limit // (1024 * 1024)} MiB, more than file tools read at once."
        )
    return data


def write_atomic(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace `path` with `data` all at once, keeping its permission bits and, where allowed, its
    owner (`mode`, less the umask, for a new file: private by default, as sessions and settings may
    hold what the user typed).

    A symlink is written through: the file it points at is replaced and the link stays a link.
    Blocking (it fsyncs): call it through `asyncio.to_thread` from async code.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    target = Path(os.path.realpath(path))
    dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        write_atomic_at(dir_fd, target.name, data, mode=mode, shown=target)
    finally:
        os.close(dir_fd)


def write_atomic_at(dir_fd: int, name: str, data: bytes, *, mode: int, shown: Path) -> None:
    """`write_atomic` of `name` in the open folder `dir_fd`: the temporary is made in that same folder
    and renamed over `name` there, so no lookup by path can send either elsewhere. A link at `name`
    is replaced by the file (the caller followed links before it chose the folder and the name)."""
    try:
        old: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        if stat.S_ISLNK(old.st_mode):
            raise changed(shown)
        raise not_regular(shown, old.st_mode)
    fd, tmp = _create_temporary(dir_fd, name, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if old is not None:
                _keep_owner_and_mode(handle.fileno(), old)
            os.fsync(handle.fileno())
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    _fsync_open_directory(dir_fd)


def _create_temporary(dir_fd: int, name: str, mode: int) -> tuple[int, str]:
    """A new file next to `name` in `dir_fd`, created with `mode` so the umask applies as for any new file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = f".{name[:200]}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, flags, mode, dir_fd=dir_fd), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", name)


def _fsync_open_directory(dir_fd: int) -> None:
    """fsync the open folder (through a readable descriptor: an `O_PATH` one cannot be synced)."""
    _fsync_folder(".", dir_fd)


def _fsync_folder(path: str | Path, dir_fd: int | None = None) -> None:
    """fsync the folder at `path` (relative to `dir_fd` when given); a no-op where it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """The replacement gets the old file's owner (when this user may give it) and permission bits;
    chown first, as it clears set-id bits."""
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
        with contextlib.suppress(PermissionError):
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def fsync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (a no-op where directories cannot be opened)."""
    _fsync_folder(directory)



_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any, **options: Any) -> str:
    """JSON that is always valid UTF-8 text: a lone surrogate (from a model's or a client's `\\ud800`)
    is written as its escape, NaN and infinities as null. Protocol lines, session files and headless
    output go through here, so no text can make them fail or be unreadable."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    except ValueError:
        text = json.dumps(_finite(value), ensure_ascii=False, allow_nan=False, **options)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_lone_surrogate(value: Any) -> bool:
    """Whether any string in `value` (keys too, nested) holds a lone surrogate, which is not Unicode text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
