"""Files other processes may read while one is written: the runtime's caches on disk."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, prefix: str = ".tmp-") -> None:
    """`data` to `path` through a temporary file in the same folder (made if missing), renamed over it:
    another process never reads half of one, and a write that fails leaves no temporary behind. Raises
    OSError; the caches call it and log a debug line, since a cache that cannot be written costs time,
    nothing else."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = ["write_atomic"]
