"""A path the user wrote, with `~` expanded: one way for every package.

`Path.expanduser` raises RuntimeError for `~name` when no user is called name (a typo, a path copied
from another machine, a file really named `~0`), which surfaced as a traceback instead of the clear
"no such file" the path deserves; `os.path.expanduser` leaves such a path as written.
"""

from __future__ import annotations

import os
from pathlib import Path


def expand_home(path: str | os.PathLike[str]) -> Path:
    """`path` with a leading `~` or `~user` expanded where it names a home; otherwise as written."""
    return Path(os.path.expanduser(os.fspath(path)))


__all__ = ["expand_home"]
