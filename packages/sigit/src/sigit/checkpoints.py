"""File checkpoints: what files held before the agent changed them, so a turn can be rewound.

Before each call runs, the agent loop snapshots the paths the call declares it writes
(`Subjects.writes`). Only the first snapshot of a path in a turn is kept: that is the state to go
back to. Changes made by shell commands are not covered (a command can touch any file), which the
rewind summary cannot know.
"""

from __future__ import annotations

import base64
import difflib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sigit.config.protected import ProtectedPlaces
from sigit.errors import UsageError
from sigit.fileio import read_regular
from sigit.tools.confinement import Confinement
from sigit.tools.subjects import Subjects

MAX_SNAPSHOT_BYTES = 10 * 1024 * 1024
FORMAT_VERSION = 1

EntryKind = Literal["file", "dir", "absent", "too_large", "unreadable"]



class CheckpointError(UsageError, ValueError):
    """Checkpoint data (from a session file) that cannot be loaded."""


@dataclass(frozen=True)
class _Entry:
    path: Path
    kind: EntryKind
    content: bytes = b""
    mode: int | None = None


def paths_touched(subjects: Subjects) -> list[Path]:
    """Absolute paths a call will change, missing parent directories first when it creates them.

    Blocking (it checks which parents exist). A command declares no writes: what a shell command
    changes cannot be known before it runs, so its changes are not checkpointed.
    """
    paths: list[Path] = []
    for target in subjects.writes:
        target = Path(os.path.abspath(target))
        if subjects.creates_parents:
            missing: list[Path] = []
            for parent in target.parents:
                if _there(parent):
                    break
                missing.insert(0, parent)
            paths.extend(p for p in missing if p not in paths)
        if target not in paths:
            paths.append(target)
    return paths


def _there(path: Path) -> bool:
    """Whether something (a link included) is at `path`. A name the system refuses (too long, a loop,
    a file where a folder should be) counts as there: nothing is made above it, and the tool itself
    reports the error, instead of the snapshot ending the session."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


class CheckpointStore:
    """Per-turn snapshots. Turns that change no file are not kept, so a rewind undoes real work."""

    def __init__(self, root: Path | None = None, *, max_turns: int = 50) -> None:
        self.root = root
        self.max_turns = max_turns
        self._turns: list[dict[Path, _Entry]] = []
        self._open = False

    def begin_turn(self) -> None:
        self._open = False

    def snapshot(self, path: Path) -> None:
        """Record `path` as it is now, unless this turn already recorded it."""
        path = Path(os.path.abspath(path))
        if not self._open:
            self._turns.append({})
            self._open = True
            del self._turns[: -self.max_turns]
        turn = self._turns[-1]
        if path not in turn:
            turn[path] = _capture(path)

    @property
    def turn_count(self) -> int:
        return len(self._turns)

    def last_turn_paths(self) -> list[Path]:
        return list(self._turns[-1]) if self._turns else []

    def turn_diff(self) -> str:
        """What the current turn changed in the files it snapshotted, as one unified diff (paths
        relative to the root); "" when it changed none. Blocking: it reads the files as they are now.
        Like the snapshots, it knows nothing of what shell commands changed."""
        if not self._open or not self._turns:
            return ""
        return "".join(_entry_diff(entry, self._shown(entry.path)) for entry in self._turns[-1].values())

    def rewind_last_turn(self, confinement: Confinement | None = None) -> list[str]:
        """Put back the files of the latest turn that changed any; one line per path, [] if none.

        Every restore goes through `confinement` (the session's; else one rooted at `root`), as a file
        tool's write does: a file a command swapped for a link since the snapshot is not written through
        it out of the workspace or into a protected place (siGit's settings), it is reported instead."""
        if not self._turns:
            return []
        walls = confinement or Confinement((Path(os.path.abspath(self.root)),) if self.root else (),
                                           ProtectedPlaces.default())
        turn = self._turns.pop()
        self._open = False
        return [self._restore(entry, walls) for entry in reversed(list(turn.values()))]

    def _restore(self, entry: _Entry, walls: Confinement) -> str:
        shown = self._shown(entry.path)
        try:
            if entry.kind == "too_large":
                return f"not restored (over {MAX_SNAPSHOT_BYTES // (1024 * 1024)} MiB when saved): {shown}"
            if entry.kind == "unreadable":
                return f"not restored (could not be read when saved): {shown}"
            now = _mode_at(walls, entry.path)
            if entry.kind == "absent":
                return _remove(walls, entry.path, now, shown)
            if entry.kind == "dir":
                if now is not None and stat.S_ISDIR(now):
                    return f"unchanged directory: {shown}"
                walls.make_directories(entry.path)
                return f"recreated directory: {shown}"
            if now is not None and stat.S_ISDIR(now):
                return f"not restored (a directory is there now): {shown}"
            walls.write(entry.path, entry.content)
            if entry.mode is not None:
                _chmod(walls, entry.path, entry.mode)
            return f"restored: {shown}" if now is not None else f"recreated deleted file: {shown}"
        except OSError as exc:
            return f"could not restore {shown}: {exc.strerror or exc}"

    def _shown(self, path: Path) -> str:
        if self.root is not None:
            try:
                return path.relative_to(Path(os.path.abspath(self.root))).as_posix()
            except ValueError:
                pass
        return str(path)

    # -- session files ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"version": FORMAT_VERSION, "turns": [[_encode(e) for e in t.values()] for t in self._turns]}

    @classmethod
    def from_json(cls, data: Any, root: Path | None = None) -> CheckpointStore:
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            raise CheckpointError(f"checkpoints must be an object with version {FORMAT_VERSION}")
        turns = data.get("turns")
        if not isinstance(turns, list):
            raise CheckpointError("checkpoints: `turns` must be a list")
        store = cls(root)
        for index, turn in enumerate(turns):
            if not isinstance(turn, list):
                raise CheckpointError(f"checkpoints: turn {index} must be a list")
            entries = [_decode(item, index) for item in turn]
            store._turns.append({entry.path: entry for entry in entries})
        return store


def _mode_at(walls: Confinement, path: Path) -> int | None:
    """The mode of what is at `path` now (a link's own), walked as a file tool walks; None: nothing."""
    try:
        with walls.locate(path, writing=False, follow_last=False) as located:
            if located.name is None:
                return stat.S_IFDIR
            return os.stat(located.name, dir_fd=located.dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None


def _remove(walls: Confinement, path: Path, mode: int | None, shown: str) -> str:
    """Undo a creation: the file or link itself (never what a link leads to), or the folder if empty."""
    if mode is None:
        return f"already gone: {shown}"
    if not stat.S_ISDIR(mode):
        walls.remove(path)
        return f"deleted new file: {shown}"
    try:
        walls.remove(path)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        return f"kept new directory (not empty): {shown}"
    return f"removed new directory: {shown}"


def _chmod(walls: Confinement, path: Path, mode: int) -> None:
    """Give the restored regular file its saved permission bits, on the file opened (no link followed)."""
    with walls.locate(path, writing=True) as located:
        if located.name is None:
            return
        fd = os.open(located.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=located.dir_fd)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.fchmod(fd, mode)
        finally:
            os.close(fd)


def _capture(path: Path) -> _Entry:
    try:
        info = path.stat()
    except FileNotFoundError:
        # A dangling symlink is not "absent": a rewind must not delete it.
        return _Entry(path, "unreadable" if path.is_symlink() else "absent")
    except OSError:
        return _Entry(path, "unreadable")
    if stat.S_ISDIR(info.st_mode):
        return _Entry(path, "dir")
    if info.st_size > MAX_SNAPSHOT_BYTES:
        return _Entry(path, "too_large")
    try:  # a FIFO would block the snapshot and /dev/zero never end: regular files only, bounded
        content = read_regular(path, MAX_SNAPSHOT_BYTES)
    except OSError:
        return _Entry(path, "unreadable")
    if len(content) > MAX_SNAPSHOT_BYTES:  # it grew since the stat
        return _Entry(path, "too_large")
    return _Entry(path, "file", content, stat.S_IMODE(info.st_mode))


def _entry_diff(entry: _Entry, shown: str) -> str:
    """One file's diff from its snapshot to now ("" for a directory, or a file that is unchanged)."""
    if entry.kind in ("dir", "too_large", "unreadable"):
        return "" if entry.kind == "dir" else f"--- a/{shown}\n+++ b/{shown}\n@@ not shown ({entry.kind}) @@\n"
    now = _capture(entry.path)
    if now.kind == "dir" or (now.kind == entry.kind and now.content == entry.content):
        return ""
    if now.kind in ("too_large", "unreadable"):
        return f"--- a/{shown}\n+++ b/{shown}\n@@ not shown ({now.kind}) @@\n"
    before, after = _lines(entry), _lines(now)
    if before is None or after is None:
        return f"Binary files a/{shown} and b/{shown} differ\n"
    old_name = f"a/{shown}" if entry.kind == "file" else "/dev/null"
    new_name = f"b/{shown}" if now.kind == "file" else "/dev/null"
    lines = difflib.unified_diff(before, after, old_name, new_name)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _lines(entry: _Entry) -> list[str] | None:
    """The entry's text as lines (none for an absent file), or None for binary content."""
    if entry.kind != "file":
        return []
    if b"\x00" in entry.content[:8192]:
        return None
    try:
        return entry.content.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _encode(entry: _Entry) -> dict[str, Any]:
    item: dict[str, Any] = {"path": str(entry.path), "kind": entry.kind}
    if entry.kind == "file":
        try:
            item["text"] = entry.content.decode("utf-8")
        except UnicodeDecodeError:
            item["base64"] = base64.b64encode(entry.content).decode("ascii")
        item["mode"] = entry.mode
    return item


def _decode(item: Any, turn: int) -> _Entry:
    where = f"checkpoints: turn {turn}"
    if not isinstance(item, dict) or not isinstance(item.get("path"), str):
        raise CheckpointError(f"{where}: each entry needs a string `path`")
    kind = item.get("kind")
    if kind not in ("file", "dir", "absent", "too_large", "unreadable"):
        raise CheckpointError(f"{where}: unknown entry kind {kind!r} for {item['path']}")
    path = Path(item["path"])
    if kind != "file":
        return _Entry(path, kind)
    mode = item.get("mode")
    if mode is not None and (isinstance(mode, bool) or not isinstance(mode, int)):
        raise CheckpointError(f"{where}: `mode` of {path} must be an integer")
    if isinstance(item.get("text"), str):
        content = item["text"].encode("utf-8")
    elif isinstance(item.get("base64"), str):
        try:
            content = base64.b64decode(item["base64"], validate=True)
        except ValueError:
            raise CheckpointError(f"{where}: `base64` of {path} is not valid base64") from None
    else:
        raise CheckpointError(f"{where}: file entry {path} needs `text` or `base64`")
    return _Entry(path, "file", content, mode)
