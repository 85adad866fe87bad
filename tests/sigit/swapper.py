"""A folder and a link to outside the workspace, swapped in a tight loop (issue 49 family 1's attacker).

Run as a script (`python swapper.py FOLDER LINK COUNT`, from a background command) or started as a
thread by a test. Linux: renameat2(RENAME_EXCHANGE), one atomic swap; elsewhere two renames.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchanger() -> object:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    return getattr(libc, "renameat2", None)


def swap_forever(folder: str, link: str, stop: threading.Event | None = None, count: int | None = None) -> int:
    """Swap `folder` and `link` until `stop` is set or `count` swaps are done; returns the swaps made."""
    exchange = _exchanger()
    done = 0
    while (stop is None or not stop.is_set()) and (count is None or done < count):
        if exchange is not None:
            exchange(_AT_FDCWD, os.fsencode(folder), _AT_FDCWD, os.fsencode(link), _RENAME_EXCHANGE)  # type: ignore[operator]
        else:
            spare = folder + ".swap"
            try:
                os.replace(folder, spare)
                os.replace(link, folder)
                os.replace(spare, link)
            except OSError:
                pass
        done += 1
    return done


if __name__ == "__main__":
    swap_forever(sys.argv[1], sys.argv[2], count=int(sys.argv[3]))
