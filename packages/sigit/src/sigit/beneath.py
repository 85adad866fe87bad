"""Opening a path beneath a root folder, as one walk of descriptors that no link can lead out of.

A path checked by name and then opened by name again is two lookups: a command running meanwhile can
swap a folder for a link to `~/.config` between them, and the write lands there. Here the path is
walked from a descriptor of the root, one component at a time without following links (`O_NOFOLLOW`
with `dir_fd`); a link found on the way is read and followed by the walk itself, only while it stays
beneath the root. What the caller gets is the descriptor of the folder that holds the last component
and that component's name: checks run on the folder's real path (`fd_path`, the kernel's word for
the descriptor) and the write happens relative to the same descriptor, so what was judged is what is
written. On Linux `openat2(RESOLVE_BENEATH)` does the common case in one system call; the walk does
the rest (and every refusal), so both give the same answers.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_LINKS = 40
"""Links followed in one walk before it counts as a loop (the kernel's own limit)."""

_PATH_FLAG = getattr(os, "O_PATH", 0)
_DIR_FLAGS = (_PATH_FLAG or os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_F_GETPATH = 50  # macOS fcntl: the path of an open descriptor


class RefusedPathError(OSError):
    """A path a file tool will not act on; `strerror` says why in words the model can act on."""


class LeavesRootError(RefusedPathError):
    """The path leads out of the root through a link (or `..`)."""


class PathChangedError(RefusedPathError):
    """The path changed while it was walked or written (a folder swapped for a link, a file removed)."""


def changed(path: Path) -> PathChangedError:
    """The error of a path that changed between the walk that found it and the act on it."""
    return PathChangedError(errno.EAGAIN, f"the path changed while it was being read or written: {path} "
                            "(something else is changing it: try again once it has stopped)", str(path))


@dataclass
class Located:
    """An open folder beneath the root and the name of the last component in it (None: the folder itself).

    `name`, when not None, is not a link at the time of the walk (a link there was followed)."""

    dir_fd: int
    name: str | None
    shown: Path
    """The path as the caller gave it, for messages."""

    def close(self) -> None:
        os.close(self.dir_fd)

    def __enter__(self) -> Located:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def real_path(self) -> Path:
        """The real path of what `name` names (the folder's real path when there is no name)."""
        folder = fd_path(self.dir_fd)
        return folder / self.name if self.name is not None else folder


def fd_path(fd: int) -> Path:
    """The path the kernel gives an open descriptor (where it is now, every link resolved)."""
    if sys.platform == "darwin":
        import fcntl

        raw = fcntl.fcntl(fd, _F_GETPATH, b"\0" * 1024)
        return Path(os.fsdecode(raw.split(b"\0", 1)[0]))
    return Path(os.readlink(f"/proc/self/fd/{fd}"))


def locate(root: Path, path: Path, *, make_parents: bool = False,
           before_create: Callable[[Path], None] | None = None, follow_last: bool = True) -> Located:
    """Walk `path` (absolute, normalised, lexically inside `root`) from `root`; see the module docstring.

    `make_parents` creates missing folders on the way, each after `before_create(its real path)`
    (which raises to refuse). `follow_last=False` leaves a link in the last place as it is (deleting
    a link deletes the link). Raises `LeavesRootError`, `PathChangedError` or the OSError of the step
    that failed (FileNotFoundError for a missing folder, NotADirectoryError for a file on the way).
    """
    relative = PurePosixPath(path.relative_to(root).as_posix()) if path != root else PurePosixPath()
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the root itself: the user chose it
    try:
        fast = _openat2_parent(root_fd, relative, path) if not make_parents else None
        if fast is not None and (fast.name is None or not follow_last or not _is_link(fast.dir_fd, fast.name)):
            return fast
        if fast is not None:
            fast.close()
        return _walk(root_fd, root, list(relative.parts), path, make_parents, before_create, follow_last)
    finally:
        os.close(root_fd)


def _walk(root_fd: int, root: Path, parts: list[str], shown: Path, make_parents: bool,
          before_create: Callable[[Path], None] | None, follow_last: bool) -> Located:
    root_real = fd_path(root_fd)
    stack = [os.dup(root_fd)]
    names: list[str] = []  # the components walked so far (below the root), for messages
    links = 0
    try:
        while parts:
            part = parts.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if len(stack) == 1:
                    raise LeavesRootError(errno.EXDEV, f"{shown} leads outside {root} through '..'", str(shown))
                os.close(stack.pop())
                names.pop()
                continue
            here = stack[-1]
            if not parts:  # the last component
                if follow_last and _is_link(here, part):
                    links = _follow(here, part, parts, stack, names, root, root_real, shown, links)
                    continue
                return Located(stack.pop(), part, shown)
            try:
                fd = os.open(part, _DIR_FLAGS, dir_fd=here)
            except FileNotFoundError:
                if not make_parents:
                    raise
                if before_create is not None:
                    before_create(fd_path(here) / part)
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=here)
                parts.insert(0, part)  # open it now (or follow what raced in instead)
                continue
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                now = _mode(here, part)
                if not stat.S_ISLNK(now):
                    if stat.S_ISDIR(now):  # a link when opened, a folder now: swapped meanwhile
                        raise changed(shown) from None
                    raise
                links = _follow(here, part, parts, stack, names, root, root_real, shown, links)
                continue
            stack.append(fd)
            names.append(part)
        return Located(stack.pop(), None, shown)
    finally:
        for fd in stack:
            os.close(fd)


def _follow(here: int, part: str, parts: list[str], stack: list[int], names: list[str], root: Path,
            root_real: Path, shown: Path, links: int) -> int:
    """Splice the link `part` (in the folder `here`) into `parts`, when it stays beneath the root."""
    links += 1
    if links > MAX_LINKS:
        raise OSError(errno.ELOOP, f"{shown}: too many levels of symbolic links (a loop)", str(shown))
    try:
        target = os.readlink(part, dir_fd=here)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):  # no longer a link: swapped while walked
            raise changed(shown) from None
        raise
    link = root.joinpath(*names, part)
    if os.path.isabs(target):
        inside = PurePosixPath(target)
        try:
            below = inside.relative_to(root_real)
        except ValueError:
            try:
                below = inside.relative_to(root)
            except ValueError:
                raise LeavesRootError(errno.EXDEV, f"{shown} leads outside {root} through the link {link} "
                                      f"(-> {target})", str(shown)) from None
        while len(stack) > 1:
            os.close(stack.pop())
        names.clear()
        parts[:0] = list(below.parts)
    else:
        parts[:0] = list(PurePosixPath(target).parts)
    return links


def _mode(dir_fd: int, name: str) -> int:
    """The entry's type and mode, its link not followed (0 when it is gone)."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return 0


def _is_link(dir_fd: int, name: str) -> bool:
    return stat.S_ISLNK(_mode(dir_fd, name))


# ---------------------------------------------------------------- openat2 (Linux 5.6+)

_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}.get(platform.machine())
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08
_openat2_works: bool | None = None if sys.platform.startswith("linux") and _OPENAT2 is not None else False


def _libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


_LIBC: ctypes.CDLL | None = None


class _OpenHow(ctypes.Structure):
    _fields_ = (("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64))


def _openat2_parent(root_fd: int, relative: PurePosixPath, shown: Path) -> Located | None:
    """The folder holding the last component, opened in one `openat2(RESOLVE_BENEATH)`; None where the
    kernel lacks it or refuses (a link leading out, a missing folder): the walk then decides and says why."""
    global _openat2_works
    if _openat2_works is False:
        return None
    folder = relative.parent if relative.parts else relative
    name = relative.name if relative.parts else None
    how = _OpenHow(_DIR_FLAGS & ~os.O_NOFOLLOW, 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
    fd = _libc().syscall(_OPENAT2, root_fd, os.fsencode(str(folder)), ctypes.byref(how), ctypes.sizeof(how))
    if fd < 0:
        if ctypes.get_errno() in (errno.ENOSYS, errno.EPERM):  # no openat2 here (or a filter forbids it)
            _openat2_works = False
        return None
    _openat2_works = True
    return Located(int(fd), name, shown)
