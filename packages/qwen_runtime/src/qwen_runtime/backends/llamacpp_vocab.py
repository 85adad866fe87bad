"""What the runtime derives from a GGUF's vocabulary once per model file, kept on disk between processes.

Before its first token a new process walks the whole vocabulary twice through ctypes: every token's
bytes for llguidance's tokenizer (and the detokenizer), every token's attributes for the end-of-turn
set. On Qwen 3.5's 248,320 tokens that is most of the time to first token that is neither model
load nor prompt (measured in bench/results/hybrid.md's notes). Both results depend only on the model
file, so they are saved next to the prompt cache under a key of the file's identity
(`prompt_cache.model_identity`: size, mtime, a hash of its first and last MiB, where the vocabulary
lives) and llama-cpp-python's version, and read back in one file read. A process that loads the same
file again (`/model` back to a previous model, a draft model, a test suite) takes them from memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..prompt_cache import model_identity

log = logging.getLogger(__name__)

_FORMAT = 1
_MAGIC = b"QRVOCAB1"


@dataclass(frozen=True)
class VocabTables:
    """Each token's bytes (special tokens as their text), which tokens llguidance must treat as special,
    and the tokens that end a turn."""

    pieces: list[bytes]
    special: frozenset[int]
    end_tokens: frozenset[int]


def vocab_key(model_path: Path, llama_version: str) -> str:
    text = json.dumps({"format": _FORMAT, "model": model_identity(model_path), "llama_cpp": llama_version},
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


_REMEMBERED: OrderedDict[str, VocabTables] = OrderedDict()
_REMEMBER_AT_MOST = 4  # a 248k vocabulary's tables take ~15 MB of Python objects
_LOCK = threading.Lock()


def remembered(key: str, n_vocab: int) -> VocabTables | None:
    """The tables this process already built or read for `key`, if it has them."""
    with _LOCK:
        tables = _REMEMBERED.get(key)
        if tables is None or len(tables.pieces) != n_vocab:
            return None
        _REMEMBERED.move_to_end(key)
        return tables


def remember(key: str, tables: VocabTables) -> None:
    with _LOCK:
        _REMEMBERED[key] = tables
        _REMEMBERED.move_to_end(key)
        while len(_REMEMBERED) > _REMEMBER_AT_MOST:
            _REMEMBERED.popitem(last=False)


def load_tables(path: Path, n_vocab: int) -> VocabTables | None:
    """The tables saved at `path`, or None (missing, another size, or damaged: then they are rebuilt)."""
    try:
        raw = path.read_bytes()
        if not raw.startswith(_MAGIC):
            return None
        head_len = int.from_bytes(raw[8:12], "little")
        head = json.loads(raw[12 : 12 + head_len])
        if head["n_vocab"] != n_vocab:
            return None
        at = 12 + head_len
        ends = np.frombuffer(raw, dtype=np.int64, count=n_vocab + 1, offset=at)
        blob = raw[at + ends.nbytes :]
        if int(ends[-1]) != len(blob):
            return None
        bounds = ends.tolist()
        pieces = [blob[bounds[i] : bounds[i + 1]] for i in range(n_vocab)]
        return VocabTables(pieces, frozenset(head["special"]), frozenset(head["end_tokens"]))
    except (OSError, ValueError, KeyError, TypeError):
        log.debug("vocabulary tables at %s unreadable; rebuilding", path, exc_info=True)
        return None


def save_tables(path: Path, tables: VocabTables) -> None:
    """Write atomically (a temporary file renamed): another process never reads half of one."""
    head = json.dumps({"n_vocab": len(tables.pieces), "special": sorted(tables.special),
                       "end_tokens": sorted(tables.end_tokens)}).encode()
    ends = np.zeros(len(tables.pieces) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in tables.pieces], out=ends[1:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".vocab-")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + len(head).to_bytes(4, "little") + head + ends.tobytes() + b"".join(tables.pieces))
        os.replace(tmp, path)
    except OSError as exc:  # a cache that cannot be written costs time next start, nothing else
        log.debug("cannot save vocabulary tables to %s: %s", path, exc)


__all__ = ["VocabTables", "load_tables", "remember", "remembered", "save_tables", "vocab_key"]
