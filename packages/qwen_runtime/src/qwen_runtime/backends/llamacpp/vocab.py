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

import ctypes
import hashlib
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...atomic_file import write_atomic
from ...speed.prompt_cache import model_identity
from .lltokenizer import BuildRecord, DeferredTokenize, EarlyView, build_view, save_record

if TYPE_CHECKING:
    from .load import LlamaHandle

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


def remembered(key: str, n_vocab: int | None) -> VocabTables | None:
    """The tables this process already built or read for `key`, if it has them (of `n_vocab` tokens)."""
    with _LOCK:
        tables = _REMEMBERED.get(key)
        if tables is None or (n_vocab is not None and len(tables.pieces) != n_vocab):
            return None
        _REMEMBERED.move_to_end(key)
        return tables


def remember(key: str, tables: VocabTables) -> None:
    with _LOCK:
        _REMEMBERED[key] = tables
        _REMEMBERED.move_to_end(key)
        while len(_REMEMBERED) > _REMEMBER_AT_MOST:
            _REMEMBERED.popitem(last=False)


def load_tables(path: Path, n_vocab: int | None) -> VocabTables | None:
    """The tables saved at `path`, or None (missing, not of `n_vocab` tokens, or damaged: then they are
    rebuilt). `n_vocab` None: any size (read before the model is loaded; its size is checked after)."""
    try:
        raw = path.read_bytes()
        if not raw.startswith(_MAGIC):
            return None
        head_len = int.from_bytes(raw[8:12], "little")
        head = json.loads(raw[12 : 12 + head_len])
        if n_vocab is None:
            n_vocab = head["n_vocab"]
        if type(n_vocab) is not int or n_vocab < 0 or head["n_vocab"] != n_vocab:
            return None
        at = 12 + head_len
        ends = np.frombuffer(raw, dtype=np.int64, count=n_vocab + 1, offset=at)
        blob = raw[at + ends.nbytes :]
        if int(ends[0]) != 0 or int(ends[-1]) != len(blob) or bool((np.diff(ends) < 0).any()):
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
        write_atomic(path, _MAGIC + len(head).to_bytes(4, "little") + head + ends.tobytes()
                     + b"".join(tables.pieces), prefix=".vocab-")
    except OSError as exc:  # a cache that cannot be written costs time next start, nothing else
        log.debug("cannot save vocabulary tables to %s: %s", path, exc)


def table_path(folder: Path, key: str) -> Path:
    return folder / f"{key}.bin"


def record_path(folder: Path, key: str) -> Path:
    """llguidance's build record (`lltokenizer.BuildRecord`) beside the tables."""
    return folder / f"{key}.llguidance.json"


def spare_core() -> bool:
    """Whether a core is free for a second thread: what other processes run now leaves one of this
    process's CPUs beside the load.

    The early build only pays with one: measured on the 2-core machine at load average 10, it made a
    warm `sigit -p` slower (its GIL, held for the whole build, stalls the Python parts of the load, and
    there is no idle core to overlap on). What runs now (`/proc/stat`'s runnable count less this
    process's own running threads) rather than the one-minute load average, which still counts a
    process that ended seconds ago (the cold start before a warm one); the load average where there
    is no /proc."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this platform
        cpus = os.cpu_count() or 1
    others = _fewest_running()
    if others is None:
        try:
            return os.getloadavg()[0] + 1 <= cpus
        except (AttributeError, OSError):  # no load average on this platform: assume there is a core
            return True
    return others + 2 <= cpus


def _fewest_running(samples: int = 3, apart: float = 0.002) -> int | None:
    """`others_running` at its lowest over a few samples: a kernel thread caught running at one instant
    (1 sample in 20 on an idle machine here) is not a process using a core."""
    seen = []
    for i in range(samples):
        if i:
            time.sleep(apart)
        count = others_running()
        if count is None:
            return None
        seen.append(count)
    return min(seen)


def others_running(proc: Path = Path("/proc")) -> int | None:
    """Threads of other processes running or waiting for a CPU now (None without a readable /proc)."""
    try:
        stat = (proc / "stat").read_text()
        total = next(int(line.split()[1]) for line in stat.splitlines() if line.startswith("procs_running "))
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    own = 0
    try:
        for task in (proc / "self" / "task").iterdir():
            try:
                fields = (task / "stat").read_text().rpartition(")")[2].split()
            except OSError:  # the thread ended meanwhile
                continue
            own += fields[:1] == ["R"]
    except OSError:
        return None
    return max(0, total - own)


def start_early_view(model_path: Path, folder: Path | None) -> EarlyView | None:
    """llguidance's view of `model_path`'s vocabulary, built in a thread from the tables and the build
    record saved in `folder` while the model loads; None when there are none to build it from, or no
    core to build it on (`spare_core`)."""
    if folder is None or not spare_core():
        return None
    from .lib import llama_cpp

    key = vocab_key(model_path, getattr(llama_cpp, "__version__", "?"))
    tables, record = table_path(folder, key), record_path(folder, key)
    if not (tables.is_file() and record.is_file()):
        return None

    def read() -> VocabTables | None:
        return remembered(key, None) or load_tables(tables, None)

    return EarlyView(read, record)


class LlamaVocab:
    """A loaded model's vocabulary as the token loop reads it: each token's bytes (cached), the tokens
    that end a turn, and llguidance's tokenizer. The derived tables come from this process's memory, else
    from (or go to) `table_dir` on disk; with neither, the end tokens are scanned now and the pieces when
    llguidance first needs them. `early`: llguidance's view started before the model loaded
    (`start_early_view`), taken when it holds up against the loaded model."""

    def __init__(self, handle: LlamaHandle, model_path: Path, table_dir: Path | None,
                 early: EarlyView | None = None) -> None:
        from .lib import llama_cpp

        self._handle = handle
        self.vocab: Any = handle.vocab
        self.n_vocab = int(handle.llm.n_vocab())
        self.is_eog: Any = llama_cpp.llama_vocab_is_eog  # bound once: is_end runs for every token
        self._pieces: dict[int, bytes] = {}
        self._piece_buf = ctypes.create_string_buffer(256)
        self._lltokenizer: Any = None
        self._early = early
        self._tokenize: DeferredTokenize | None = None
        if early is not None:
            early.tokenize.bind(self.vocab)  # a build waiting for the model goes on
        self._key = vocab_key(model_path, getattr(llama_cpp, "__version__", "?"))
        self._record = record_path(table_dir, self._key) if table_dir is not None else None
        self.tables: VocabTables | None = None
        self.tables = self._read_tables(table_dir)
        self.end_tokens = self._end_tokens()

    def close(self) -> None:
        """The model is about to be freed: llguidance's tokenize calls fail from now on instead of
        reading its memory (a constraint may still hold the view)."""
        for tokenize in (self._tokenize, self._early.tokenize if self._early is not None else None):
            if tokenize is not None:
                tokenize.unbind()

    def piece(self, token: int) -> bytes:
        """The bytes of one token, special tokens as their text (`<tool_call>`): from the tables, else
        asked of llama.cpp once and cached."""
        tables = self.tables
        if tables is not None and 0 <= token < len(tables.pieces):
            return tables.pieces[token]
        cached = self._pieces.get(token)
        if cached is not None:
            return cached
        from .lib import llama_cpp

        n = llama_cpp.llama_token_to_piece(self.vocab, token, self._piece_buf, len(self._piece_buf), 0, True)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = llama_cpp.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, True)
            out = buf.raw[:n]
        else:
            out = self._piece_buf.raw[:n]
        self._pieces[token] = out
        return out

    def text(self, token: int) -> str:
        """A token's text ("" for an id outside the vocabulary, such as a missing BOS)."""
        if token < 0 or token >= self.n_vocab:
            return ""
        return self.piece(token).decode("utf-8", errors="replace")

    def is_end(self, token: int) -> bool:
        return token in self.end_tokens or bool(self.is_eog(self.vocab, token))

    def scan(self, pieces: bool = False) -> tuple[frozenset[int], frozenset[int]]:
        """One walk over the vocabulary: (tokens llguidance treats as special, tokens that end a turn);
        with `pieces`, every token's bytes land in the piece cache on the way."""
        from .lib import llama_cpp

        control, user = int(llama_cpp.LLAMA_TOKEN_ATTR_CONTROL), int(llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED)
        special: set[int] = set()
        ends: set[int] = set()
        for token in range(self.n_vocab):
            attr = int(llama_cpp.llama_vocab_get_attr(self.vocab, token))
            if attr & (control | user) and self.is_eog(self.vocab, token):
                ends.add(token)
            if pieces:
                piece = self.piece(token)
                if attr & control or (attr & user and piece.startswith(b"<") and piece.endswith(b">")):
                    special.add(token)
        return frozenset(special), frozenset(ends)

    def lltokenizer(self) -> Any:
        """llguidance's view of the vocabulary: the one built while the model loaded when it holds up,
        else built now (~1 s for 250k tokens)."""
        if self._lltokenizer is None:
            eos, early = int(self._handle.llm.token_eos()), self._early
            view = early.result(eos, self.n_vocab) if early is not None else None
            if view is not None and early is not None:
                tokenize, known = early.tokenize, early.record.calls if early.record is not None else {}
                log.info("llguidance's view of the vocabulary was built while the model loaded")
            else:
                started = time.perf_counter()
                if self.tables is None:  # another load of the same file may have built them meanwhile
                    self.tables = remembered(self._key, self.n_vocab) or self._build_tables()
                    remember(self._key, self.tables)
                tokenize, known = DeferredTokenize(), {}
                tokenize.bind(self.vocab)
                view = build_view(self.tables.pieces, self.tables.special, eos, tokenize)
                log.info("llguidance's view of the vocabulary built in %.2f s", time.perf_counter() - started)
            asked = tokenize.stop_recording()
            if self._record is not None and (asked != known or not self._record.is_file()):
                save_record(self._record, BuildRecord(eos, self.n_vocab, asked))
            self._tokenize, self._lltokenizer = tokenize, view
        return self._lltokenizer

    def _end_tokens(self) -> frozenset[int]:
        from .lib import llama_cpp

        llm = self._handle.llm
        ids = {llm.token_eos(), int(llama_cpp.llama_vocab_eot(self.vocab))}
        for text in ("<|im_end|>", "<|endoftext|>"):
            found = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            if len(found) == 1:
                ids.add(found[0])
        # every token llama.cpp ends generation on (for Qwen GGUFs it adds <|fim_pad|>, <|repo_name|>,
        # <|file_sep|>): the tool-call constraint bans these while a call is owed, so all must be known
        ids |= self.tables.end_tokens if self.tables is not None else self.scan()[1]
        return frozenset(i for i in ids if 0 <= i < self.n_vocab)

    def _read_tables(self, folder: Path | None) -> VocabTables | None:
        """The vocabulary's derived tables: from the early view's read (it read them from disk while the
        model loaded), else this process's memory, else from `folder` (built and saved there the first
        time); None when none has them (then the end tokens are scanned now and the pieces when first
        needed)."""
        early = self._early.tables() if self._early is not None else None
        tables = early if isinstance(early, VocabTables) and len(early.pieces) == self.n_vocab else None
        if tables is not None:
            remember(self._key, tables)
        else:
            tables = remembered(self._key, self.n_vocab)
        if folder is not None:
            path = table_path(folder, self._key)
            if tables is None:
                tables = load_tables(path, self.n_vocab)
                if tables is None:
                    tables = self._build_tables()
                    save_tables(path, tables)
                remember(self._key, tables)
            elif not path.is_file():
                save_tables(path, tables)
        return tables  # `piece` reads them by index (a dict of 262k pieces is 26 ms at every start)

    def _build_tables(self) -> VocabTables:
        special, ends = self.scan(pieces=True)
        return VocabTables([self.piece(t) for t in range(self.n_vocab)], special, ends)


__all__ = [
    "LlamaVocab", "VocabTables", "load_tables", "remember", "remembered", "save_tables", "start_early_view",
    "vocab_key",
]
