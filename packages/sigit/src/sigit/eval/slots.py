"""Where attempts' copies lie: the same folders from run to run, so a local model's prompt cache holds.

The system prompt names the working directory before the tools' schemas, so a copy at a new path costs
a full prefill of both (minutes for a small model on a CPU). Each job slot is a folder under
`<temp>/sigit-eval-slots-<uid>/`, held with a lock for the run: the next run, or the next task, finds
the same path and its prompt served from the cache; a second eval running at the same time takes
other slots. Where that folder cannot be trusted (someone else's, a link) or locks do not exist, the
run's own temporary folder is used instead.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import IO

MAX_SLOTS = 64


class Slots(contextlib.AbstractContextManager["Slots"]):
    """`count` slot folders, locked until `close`."""

    def __init__(self, count: int, fallback: Path, base: Path | None = None) -> None:
        self.paths: list[Path] = []
        self._locks: list[IO[bytes]] = []
        root = _trusted_root(base)
        if root is not None:
            for index in range(MAX_SLOTS):
                if len(self.paths) == count:
                    break
                handle = _lock(root / f"{index}.lock")
                if handle is not None:
                    self._locks.append(handle)
                    self.paths.append(root / str(index))
        if len(self.paths) < count:  # no shared root, or every slot is taken: private folders
            self.close()
            self.paths = [fallback / "slots" / str(index) for index in range(count)]

    def close(self) -> None:
        for handle in self._locks:
            handle.close()  # closing releases the lock
        self._locks = []

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _trusted_root(base: Path | None) -> Path | None:
    """`<base or temp>/sigit-eval-slots-<uid>`, made private; None if it is not ours or not a folder."""
    if not hasattr(os, "getuid"):
        return None
    root = Path(base or tempfile.gettempdir()) / f"sigit-eval-slots-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        info = root.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return root


def _lock(path: Path) -> IO[bytes] | None:
    try:
        import fcntl
    except ImportError:  # Windows: no shared slots
        return None
    try:
        handle = path.open("ab")
    except OSError:
        return None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle
