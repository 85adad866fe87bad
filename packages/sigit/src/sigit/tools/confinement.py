"""Where a session's file tools may act, and the acts themselves, each on one opened folder.

Every read, write, folder creation, listing and deletion a file tool makes goes through here: the path
is walked beneath the root it lies in (the working directory, an `--add-dir` folder, else `/` for a
path outside them all, which the permission policy asked about), the protected places
(`sigit.config.protected`) judge the real path of the folder that walk opened, and the act happens
relative to that same folder. A link that leaves the root, a swap made while the tool ran, or a
protected place each end in an error result naming the path, never in a write somewhere else.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from sigit.beneath import Located, RefusedPathError, changed, locate
from sigit.config.protected import ProtectedPlaces
from sigit.fileio import check_regular, not_regular, read_regular_at, write_atomic_at

_ANYWHERE = Path("/")


class ProtectedPlaceError(RefusedPathError):
    """The path is in one of the protected places."""


@dataclass(frozen=True)
class Confinement:
    """The roots file tools walk from (the working directory first) and the places they never touch."""

    roots: tuple[Path, ...]
    places: ProtectedPlaces

    def root_for(self, path: Path) -> Path:
        """The deepest root that holds `path` (absolute, normalised), else `/`."""
        holding = [root for root in self.roots if path == root or root in path.parents]
        return max(holding, key=lambda root: len(root.parts)) if holding else _ANYWHERE

    def locate(self, path: Path, *, writing: bool, make_parents: bool = False,
               follow_last: bool = True) -> Located:
        """`path` walked beneath its root, refused when the real path is a protected place."""

        def before_create(real: Path) -> None:
            self._refuse(real, writing=True)

        located = locate(self.root_for(path), path, make_parents=make_parents, before_create=before_create,
                         follow_last=follow_last)
        try:
            self._refuse(located.real_path(), writing=writing)
        except BaseException:
            located.close()
            raise
        return located

    def guard(self, path: Path, *, writing: bool) -> None:
        """Raise when a file tool may not act on `path` (for a write made by an editor, under ACP)."""
        try:
            self.locate(path, writing=writing).close()
        except FileNotFoundError:  # a folder on the way is missing: judge the nearest one there is
            parent = path.parent
            if parent != path:
                self.guard(parent, writing=writing)

    def _refuse(self, real: Path, *, writing: bool) -> None:
        reason = self.places.refusal(real, writing)
        if reason is not None:
            raise ProtectedPlaceError(errno.EACCES, reason, str(real))

    # -- the acts --------------------------------------------------------------------------------

    def read(self, path: Path, limit: int) -> bytes:
        """At most `limit + 1` bytes of the regular file at `path` (see `fileio.read_regular`)."""
        with self.locate(path, writing=False) as located:
            if located.name is None:
                raise not_regular(path, stat.S_IFDIR)
            return read_regular_at(located.dir_fd, located.name, path, limit)

    def write(self, path: Path, data: bytes) -> None:
        """Replace the file at `path` (missing folders made) through a temporary in its opened folder.

        A file with several hard links gets its own copy (the rename breaks the link): another name may
        be outside the workspace (uv builds `.venv` from links into its cache) and keeps the old content.
        A file in a folder this user may not create files in is written in place, unless it has hard
        links: then the write is refused. A FIFO or device is refused, never opened for a write.
        """
        with self.locate(path, writing=True, make_parents=True) as located:
            if located.name is None:
                raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
            dir_fd, name = located.dir_fd, located.name
            try:
                info: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            if info is not None and stat.S_ISLNK(info.st_mode):
                raise changed(path)
            if info is not None and not stat.S_ISREG(info.st_mode):
                raise not_regular(path, info.st_mode)
            try:
                write_atomic_at(dir_fd, name, data, mode=0o666, shown=path)
                return
            except PermissionError:
                if info is None or _folder_writable(dir_fd):
                    raise
                if info.st_nlink > 1:
                    raise PermissionError(
                        errno.EACCES, f"{path} has {info.st_nlink} hard links and its directory is not writable, "
                        "so it cannot get its own copy; writing it in place would change the other links too"
                    ) from None
            _write_in_place(dir_fd, name, path, data)

    def make_directories(self, path: Path) -> None:
        """`mkdir -p path`, each folder made in the one opened before it."""
        with self.locate(path, writing=True, make_parents=True) as located:
            if located.name is not None:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(located.name, 0o777, dir_fd=located.dir_fd)

    def remove(self, path: Path) -> None:
        """Delete the file, link or empty folder at `path` (a link itself, not what it leads to)."""
        with self.locate(path, writing=True, follow_last=False) as located:
            if located.name is None:
                raise PermissionError(errno.EACCES, f"{path} is the root the file tools work in; it is not "
                                      "deleted", str(path))
            info = os.stat(located.name, dir_fd=located.dir_fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                os.rmdir(located.name, dir_fd=located.dir_fd)
            else:
                os.unlink(located.name, dir_fd=located.dir_fd)

    def list(self, path: Path) -> list[tuple[bool, str]]:
        """(is a file, name) of each entry of the folder at `path`, folders first, by name."""
        with self.locate(path, writing=False) as located:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
            if located.name is None:
                fd = os.open(".", flags, dir_fd=located.dir_fd)
            else:
                try:
                    fd = os.open(located.name, flags | os.O_NOFOLLOW, dir_fd=located.dir_fd)
                except OSError as exc:
                    if exc.errno == errno.ELOOP:
                        raise changed(path) from None
                    raise
            try:
                with os.scandir(fd) as entries:
                    found = [(not _is_dir(entry), entry.name) for entry in entries]
            finally:
                os.close(fd)
        return sorted(found, key=lambda e: (e[0], e[1].lower()))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _folder_writable(dir_fd: int) -> bool:
    return os.access(".", os.W_OK, dir_fd=dir_fd) if os.access in os.supports_dir_fd else True


def _write_in_place(dir_fd: int, name: str, shown: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, 0o666, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise changed(shown) from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads, or a socket
            check_regular(shown)
        raise
    with os.fdopen(fd, "wb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(shown, mode)
        os.set_blocking(fd, True)
        handle.truncate(0)
        handle.write(data)
