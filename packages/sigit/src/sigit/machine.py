"""This machine's memory and disk, and whether a model of a given size fits in it.

One rule for "fits" (the first-run picker and `sigit doctor` both show it): the GGUF file plus
`RAM_HEADROOM` (the KV cache of a 16k-token context, the runtime, the app) within the total RAM.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

GIB = 1024**3
RAM_HEADROOM = 2 * GIB


def total_ram() -> int | None:
    """Bytes of physical memory, or None when the platform does not say."""
    info = _meminfo()
    if "MemTotal" in info:
        return info["MemTotal"]
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def available_ram() -> int | None:
    """Bytes the kernel could hand out now without swapping (Linux's MemAvailable), or None."""
    return _meminfo().get("MemAvailable")


def _meminfo() -> dict[str, int]:
    try:
        text = Path("/proc/meminfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return {}
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key.strip()] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    return values


def fits_in_ram(size_bytes: int, ram: int | None) -> bool | None:
    """Whether a model of `size_bytes` runs in `ram` bytes (None: RAM unknown)."""
    if ram is None:
        return None
    return size_bytes + RAM_HEADROOM <= ram


def free_disk(path: Path) -> int | None:
    """Free bytes on the file system that holds `path` (or would: its nearest existing parent)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            try:
                return shutil.disk_usage(candidate).free
            except OSError:
                return None
    return None
