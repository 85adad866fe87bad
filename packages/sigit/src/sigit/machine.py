"""This machine's memory and disk, as `sigit doctor` shows them.

Whether a model fits is not decided here: `onde.model_fits` (the runtime's one rule, which
`qwen-runtime models` and the app's pickers show too) over `onde.machine_memory()`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

GIB = 1024**3


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


def free_disk(path: Path) -> int | None:
    """Free bytes on the file system that holds `path` (or would: its nearest existing parent)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            try:
                return shutil.disk_usage(candidate).free
            except OSError:
                return None
    return None
