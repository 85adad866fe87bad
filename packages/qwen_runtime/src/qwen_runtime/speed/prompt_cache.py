"""Saved model states keyed by the token prefix they hold: a few checkpoints in memory, more on disk.

Evaluating a prompt is the slow part of a new session on a CPU (thousands of tokens of system prompt
and tools), and a hybrid model (Qwen 3.5: recurrent layers) cannot cut its live state back to a
shorter prefix, so any change in the re-rendered history would mean evaluating everything again. A
backend saves its sequence state at chosen points of a prompt and, before the next prompt, restores
the longest saved state whose tokens are a prefix of it.

Memory tier: the last `checkpoints` states (least recently used dropped first), for models whose
state cannot be cut back; a backend may keep partial states there (what the live cache cannot give
back). Disk tier (`DiskPromptCache`): content-addressed files in a directory,
one folder per scope (the model file's identity and the context settings a state depends on), one
file per prefix (named by its length and the hash of its tokens); writes go to a temporary file that
is renamed into place, so processes sharing the directory see whole files or none; a damaged or
truncated file is removed and counts as a miss; least recently used files go first past the size cap;
a full or read-only disk means no caching, never a failed turn. `PromptCache` hands its disk writes to
a thread (`state_writer`), so a save point costs the model the state's copy, not the write.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import mmap
import os
import secrets
import shutil
import struct
import time
import zlib
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..home import expand_home
from .state_writer import StateWriter

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 4 * 1024**3
"""The disk tier's size cap unless told otherwise (4 GiB)."""

DEFAULT_CHECKPOINTS = 4
"""States kept in memory for models that cannot cut their state back."""

STATE_SUFFIX = ".state"
SCOPE_FILE = "scope.json"
_MAGIC = b"SGPC"
_VERSION = 1
_HEADER = struct.Struct("<4sIIQI")  # magic, version, token count, state bytes, CRC-32 of the state
_SPARE_BYTES = 256 * 1024**2  # leave this much free on the disk
_STALE_TEMP_SECONDS = 3600.0
_IDENTITY_BYTES = 1024**2

StateBuffer = ctypes.Array[ctypes.c_uint8]


def new_buffer(size: int) -> StateBuffer:
    """`size` bytes for a state, on pages of their own: ctypes zeroes a buffer it allocates, with the
    GIL held (a 17 MB state: 9 ms before a warm start's first token), where an anonymous mapping's
    pages are zero until written and are first touched by the read or llama.cpp's copy that fills them,
    with the GIL released. The array keeps the mapping; both go when it does."""
    if size <= 0:
        return (ctypes.c_uint8 * 0)()
    private = getattr(mmap, "MAP_PRIVATE", None)  # not shared with a child a tool forks (absent on Windows)
    pages = mmap.mmap(-1, size) if private is None else mmap.mmap(-1, size, flags=private | mmap.MAP_ANONYMOUS)
    return (ctypes.c_uint8 * size).from_buffer(pages)


def token_bytes(tokens: Sequence[int]) -> bytes:
    return array("i", tokens).tobytes()


def prefix_digest(tokens: Sequence[int]) -> str:
    return hashlib.sha256(token_bytes(tokens)).hexdigest()[:40]


def is_prefix(short: Sequence[int], long: Sequence[int]) -> bool:
    return len(short) <= len(long) and list(long[: len(short)]) == list(short)


def model_identity(path: Path) -> dict[str, Any]:
    """What tells one model file from another without reading all of it: its size, modification time
    and a hash of its first and last MiB (a re-downloaded or rebuilt file gets new cache entries)."""
    stat = path.stat()
    digest = hashlib.sha256()
    with path.open("rb") as f:
        digest.update(f.read(_IDENTITY_BYTES))
        if stat.st_size > 2 * _IDENTITY_BYTES:
            f.seek(-_IDENTITY_BYTES, os.SEEK_END)
            digest.update(f.read(_IDENTITY_BYTES))
    return {"file": path.name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest.hexdigest()}


def scope_key(description: Mapping[str, Any]) -> str:
    """The folder name for states that are interchangeable: a hash of everything they depend on."""
    text = json.dumps({"format": _VERSION, **description}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass
class Checkpoint:
    tokens: tuple[int, ...]
    data: StateBuffer
    used: float


@dataclass(frozen=True)
class PromptCacheEntry:
    """One file of the disk tier, for listing."""

    path: Path
    scope: str
    model: str
    """The model file's name as recorded when the scope was created ("?" if unknown)."""
    n_tokens: int
    size_bytes: int
    last_used: float


class DiskPromptCache:
    """The disk tier: a directory shared by processes, bounded by `max_bytes`."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = expand_home(root)
        self.max_bytes = max_bytes

    # ------------------------------------------------------------------ reading

    def lengths(self, scope: str) -> dict[int, set[str]]:
        """Token counts of the saved prefixes of `scope`, each with the digests saved at that length."""
        found: dict[int, set[str]] = {}
        for name in self._names(self.root / scope):
            n, _, digest = name.removesuffix(STATE_SUFFIX).partition("-")
            if n.isdigit() and digest:
                found.setdefault(int(n), set()).add(digest)
        return found

    def longest(self, scope: str, tokens: Sequence[int], limit: int, at_least: int = 0) -> int:
        """The length of the longest saved prefix of `tokens` no longer than `limit` (0: none)."""
        saved = {n: d for n, d in self.lengths(scope).items() if at_least < n <= limit}
        if not saved:
            return 0
        data = token_bytes(tokens[: max(saved)])
        digest = hashlib.sha256()
        done, best = 0, 0
        for n in sorted(saved):
            digest.update(data[done * 4 : n * 4])
            done = n
            if digest.hexdigest()[:40] in saved[n]:
                best = n
        return best

    def load(self, scope: str, tokens: Sequence[int]) -> StateBuffer | None:
        """The state saved for exactly `tokens`, or None (a damaged file is removed)."""
        path = self._path(scope, tokens)
        try:
            with path.open("rb") as f:
                data = self._read(f, tokens, os.fstat(f.fileno()).st_size)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.debug("prompt cache: ignoring and removing %s: %s", path, exc)
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # least recently used goes first
        return data

    @staticmethod
    def _read(f: Any, tokens: Sequence[int], size: int) -> StateBuffer:
        n_bytes, crc = DiskPromptCache._check_header(f.read(_HEADER.size), tokens, size)
        if f.read(4 * len(tokens)) != token_bytes(tokens):
            raise ValueError("the tokens differ from the ones its name stands for")
        data = new_buffer(n_bytes)
        if f.readinto(data) != n_bytes:
            raise ValueError("truncated state")
        if zlib.crc32(data) != crc:
            raise ValueError("checksum mismatch")
        return data

    @staticmethod
    def _check_header(header: bytes, tokens: Sequence[int], size: int) -> tuple[int, int]:
        """(state bytes, CRC-32) from a file's header; ValueError unless it fits `tokens` and the file's size."""
        if len(header) < _HEADER.size:
            raise ValueError("truncated header")
        magic, version, n_tokens, n_bytes, crc = _HEADER.unpack(header)
        if magic != _MAGIC or version != _VERSION:
            raise ValueError("not a prompt cache file of this version")
        if n_tokens != len(tokens) or size != _HEADER.size + 4 * n_tokens + n_bytes:
            raise ValueError(f"{size} bytes where the header promises {_HEADER.size + 4 * n_tokens + n_bytes}")
        return n_bytes, crc

    # ------------------------------------------------------------------ writing

    def has(self, scope: str, tokens: Sequence[int]) -> bool:
        """Whether a whole file is saved for `tokens` (its header and size agree; a damaged one is
        removed): a backend skips saving what is there, so a truncated file must not count, or it
        would stay when a turn evaluated past it without trying it (a longer state was tried first)."""
        path = self._path(scope, tokens)
        try:
            with path.open("rb") as f:
                self._check_header(f.read(_HEADER.size), tokens, os.fstat(f.fileno()).st_size)
        except FileNotFoundError:
            return False
        except (OSError, ValueError) as exc:
            log.debug("prompt cache: ignoring and removing %s: %s", path, exc)
            with contextlib.suppress(OSError):
                path.unlink()
            return False
        with contextlib.suppress(OSError):
            os.utime(path)
        return True

    def save(self, scope: str, tokens: Sequence[int], data: StateBuffer, describe: Mapping[str, Any]) -> bool:
        """Write the state for `tokens` (atomically); False when it was not written (too big, no room)."""
        size = _HEADER.size + 4 * len(tokens) + len(data)
        if size > self.max_bytes:
            log.debug("prompt cache: a %d-byte state is over the %d-byte cap; not saved", size, self.max_bytes)
            return False
        folder = self.root / scope
        path = self._path(scope, tokens)
        tmp = folder / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self._describe(folder, describe)
            if shutil.disk_usage(folder).free < size + _SPARE_BYTES:
                log.debug("prompt cache: not enough free disk for %d bytes; not saved", size)
                return False
            with tmp.open("wb") as f:
                f.write(_HEADER.pack(_MAGIC, _VERSION, len(tokens), len(data), zlib.crc32(data)))
                f.write(token_bytes(tokens))
                f.write(memoryview(data))
            os.replace(tmp, path)
        except OSError as exc:
            log.debug("prompt cache: cannot write %s: %s", path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
            return False
        self.evict(keep=path)
        return True

    @staticmethod
    def _describe(folder: Path, describe: Mapping[str, Any]) -> None:
        target = folder / SCOPE_FILE
        if target.exists():
            return
        tmp = folder / f".{SCOPE_FILE}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        tmp.write_text(json.dumps(dict(describe), sort_keys=True, default=str))
        os.replace(tmp, target)

    def evict(self, keep: Path | None = None) -> None:
        """Remove least recently used files until the cache fits its cap (and stale temporary files)."""
        files: list[tuple[float, int, Path]] = []
        now = time.time()
        for folder in self._scopes():
            for entry in self._scan(folder):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                if entry.name.endswith(".tmp"):
                    if now - st.st_mtime > _STALE_TEMP_SECONDS:
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)
                elif entry.name.endswith(STATE_SUFFIX):
                    files.append((st.st_mtime, st.st_size, Path(entry.path)))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                break
            if path == keep:
                continue
            with contextlib.suppress(OSError):
                path.unlink()
                log.debug("prompt cache: evicted %s", path)
            total -= size

    # ------------------------------------------------------------------ listing

    def entries(self) -> list[PromptCacheEntry]:
        """Every saved state, most recently used first."""
        out: list[PromptCacheEntry] = []
        for folder in self._scopes():
            try:
                model = str(json.loads((folder / SCOPE_FILE).read_text()).get("model", {}).get("file", "?"))
            except (OSError, ValueError, AttributeError):
                model = "?"
            for entry in self._scan(folder):
                if not entry.name.endswith(STATE_SUFFIX) or entry.name.startswith("."):
                    continue
                n = entry.name.partition("-")[0]
                try:
                    st = entry.stat()
                except OSError:
                    continue
                out.append(PromptCacheEntry(Path(entry.path), folder.name, model, int(n) if n.isdigit() else 0,
                                      st.st_size, st.st_mtime))
        return sorted(out, key=lambda e: e.last_used, reverse=True)

    def size_bytes(self) -> int:
        return sum(e.size_bytes for e in self.entries())

    def clear(self) -> int:
        """Remove every saved state (and the scope folders); returns the number of states removed."""
        removed = 0
        for folder in self._scopes():
            for entry in self._scan(folder):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed += entry.name.endswith(STATE_SUFFIX) and not entry.name.startswith(".")
            with contextlib.suppress(OSError):
                folder.rmdir()
        return removed

    # ------------------------------------------------------------------ paths

    def _path(self, scope: str, tokens: Sequence[int]) -> Path:
        return self.root / scope / f"{len(tokens):07d}-{prefix_digest(tokens)}{STATE_SUFFIX}"

    def _scopes(self) -> list[Path]:
        return [Path(e.path) for e in self._scan(self.root) if e.is_dir(follow_symlinks=False)]

    @staticmethod
    def _scan(folder: Path) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(folder) as it:
                return list(it)
        except OSError:
            return []

    def _names(self, folder: Path) -> Iterator[str]:
        for entry in self._scan(folder):
            if entry.name.endswith(STATE_SUFFIX) and not entry.name.startswith("."):
                yield entry.name


class PromptCache:
    """Both tiers for one loaded model: what a backend asks before and after evaluating a prompt."""

    def __init__(
        self,
        scope: str,
        describe: Mapping[str, Any],
        *,
        checkpoints: int = DEFAULT_CHECKPOINTS,
        disk: DiskPromptCache | None = None,
    ) -> None:
        self.scope = scope
        self.describe = dict(describe)
        self.max_checkpoints = max(0, checkpoints)
        self.disk = disk
        self._checkpoints: list[Checkpoint] = []
        self._writer = StateWriter(disk) if disk is not None else None

    @property
    def checkpoints(self) -> list[tuple[int, ...]]:
        """The token prefixes held in memory, oldest use first."""
        return [c.tokens for c in sorted(self._checkpoints, key=lambda c: c.used)]

    def longest(
        self, tokens: Sequence[int], limit: int, at_least: int = 0, memory_limit: int | None = None
    ) -> tuple[int, str]:
        """The longest saved prefix of `tokens` (at most `limit` long, memory checkpoints at most
        `memory_limit`, longer than `at_least`) and its tier ("memory" or "disk"); (0, "") if none."""
        best, tier = 0, ""
        in_memory = limit if memory_limit is None else min(limit, memory_limit)
        for c in self._checkpoints:
            if at_least < len(c.tokens) <= in_memory and len(c.tokens) > best and is_prefix(c.tokens, tokens):
                best, tier = len(c.tokens), "memory"
        if self.disk is not None:
            self.flush()
            n = self.disk.longest(self.scope, tokens, limit, max(best, at_least))
            if n > best:
                best, tier = n, "disk"
        return best, tier

    def load(self, tokens: Sequence[int], tier: str) -> StateBuffer | None:
        if tier == "memory":
            key = tuple(tokens)
            for c in self._checkpoints:
                if c.tokens == key:
                    c.used = time.monotonic()
                    return c.data
            return None
        if self.disk is None:
            return None
        self.flush()
        return self.disk.load(self.scope, tokens)

    def keep(self, tokens: Sequence[int], data: StateBuffer) -> None:
        """Hold `data` as the memory checkpoint for `tokens`, dropping the least recently used past the limit."""
        if self.max_checkpoints == 0:
            return
        key = tuple(tokens)
        self._checkpoints = [c for c in self._checkpoints if c.tokens != key]
        self._checkpoints.append(Checkpoint(key, data, time.monotonic()))
        while len(self._checkpoints) > self.max_checkpoints:
            self._checkpoints.remove(min(self._checkpoints, key=lambda c: c.used))

    def on_disk(self, tokens: Sequence[int]) -> bool:
        """On disk, or handed to the writer to be."""
        if self.disk is None:
            return False
        return (self._writer is not None and self._writer.pending(self.scope, tokens)) or self.disk.has(
            self.scope, tokens)

    def save(self, tokens: Sequence[int], data: StateBuffer) -> bool:
        """Hand `data` (a buffer nothing changes afterwards) to the disk tier's writer; False without one."""
        if self.disk is None or self._writer is None:
            return False
        self._writer.submit(self.scope, tokens, data, self.describe)
        return True

    def flush(self) -> None:
        """Wait until the states handed to the disk tier are written."""
        if self._writer is not None:
            self._writer.flush()

    def forget(self) -> None:
        """Drop the memory checkpoints (the disk tier stays)."""
        self._checkpoints.clear()


__all__ = [
    "DEFAULT_CHECKPOINTS",
    "DEFAULT_MAX_BYTES",
    "DiskPromptCache",
    "PromptCache",
    "PromptCacheEntry",
    "model_identity",
    "scope_key",
]
