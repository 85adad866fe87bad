"""llguidance's view of a GGUF's vocabulary, built while llama.cpp loads the model.

`LLTokenizer.from_llamacpp` takes every token's bytes, the end-of-sequence token and a llama.cpp
tokenize function with the vocabulary it works on, then spends about a second with the GIL held
(Gemma's 262,144 tokens) on its token trie and slices. The bytes are in the vocabulary tables an
earlier process saved (`vocab`); only the tokenize function needs the loaded model, and
llguidance calls it while building just for what a fixed text tokenizes to (1.9: "a", to learn how the
tokenizer treats a prefix). So the build gets a tokenize function of ours (`DeferredTokenize`, a
ctypes callback): it answers what an earlier build asked from that build's record (`BuildRecord`,
plain JSON beside the tables), waits for the model for anything else, and hands every call to
llama.cpp once the model is there. Started in a thread before the load (llama.cpp's load releases the
GIL), the view is ready about when the model is.

Nothing told before the model was there is trusted: once it is loaded, each early answer and the
end-of-sequence token are checked against it, and a record that does not match (damaged, edited,
another llguidance) only costs the early build, which is then done again the ordinary way.
"""

from __future__ import annotations

import ctypes
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...atomic_file import write_atomic

log = logging.getLogger(__name__)

_RECORD_FORMAT = 1

Call = tuple[bytes, bool, bool]
"""One tokenize call as llguidance makes it: the text, add_special, parse_special."""

_TOKENIZE = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
    ctypes.c_int32, ctypes.c_bool, ctypes.c_bool,
)
"""`llama_tokenize`'s signature: vocab, text, text length, tokens out, room, add_special, parse_special."""

_ALIVE: list[DeferredTokenize] = []
"""Every callback made, for the life of the process: an `LLTokenizer` keeps the raw address of its
tokenize function and may outlive the runtime that made it (a constraint's grammar cache holds it);
a freed callback would crash the next call. Each is a few hundred bytes."""


def llguidance_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llguidance")
    except PackageNotFoundError:  # pragma: no cover - a declared dependency
        return "?"


@dataclass(frozen=True)
class BuildRecord:
    """What a build of the view asked and was told, and the end-of-sequence token it was given."""

    eos_token: int
    n_vocab: int
    calls: Mapping[Call, tuple[int, ...]]

    def to_json(self) -> str:
        return json.dumps({
            "format": _RECORD_FORMAT, "llguidance": llguidance_version(), "eos_token": self.eos_token,
            "n_vocab": self.n_vocab,
            "calls": [{"text": text.hex(), "add_special": add, "parse_special": special, "tokens": list(tokens)}
                      for (text, add, special), tokens in self.calls.items()],
        }, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> BuildRecord | None:
        """The record `text` holds, or None when it is not one of this format and llguidance version."""
        try:
            raw = json.loads(text)
            if raw.get("format") != _RECORD_FORMAT or raw.get("llguidance") != llguidance_version():
                return None
            eos, n_vocab = raw["eos_token"], raw["n_vocab"]
            calls: dict[Call, tuple[int, ...]] = {}
            for call in raw["calls"]:
                add, special, tokens = call["add_special"], call["parse_special"], call["tokens"]
                if not (isinstance(add, bool) and isinstance(special, bool) and isinstance(tokens, list)
                        and all(type(t) is int and 0 <= t < n_vocab for t in tokens)):
                    return None
                calls[(bytes.fromhex(call["text"]), add, special)] = tuple(tokens)
            if type(eos) is not int or type(n_vocab) is not int or not 0 <= eos < n_vocab:
                return None
            return cls(eos, n_vocab, calls)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def load_record(path: Path) -> BuildRecord | None:
    try:
        return BuildRecord.from_json(path.read_text())
    except (OSError, UnicodeDecodeError):
        return None


def save_record(path: Path, record: BuildRecord) -> None:
    """Written atomically (a temporary file renamed); a cache that cannot be written costs time, nothing else."""
    try:
        write_atomic(path, record.to_json().encode(), prefix=".llg-")
    except OSError as exc:
        log.debug("cannot save llguidance's build record to %s: %s", path, exc)


class DeferredTokenize:
    """A tokenize function for llguidance that needs no model until it is asked something new.

    Before `bind`: calls the record knows are answered from it (and kept, to be checked), others wait
    for the model. After: every call goes to llama.cpp. After `unbind` (the model closed): every call
    fails (0 tokens), which llguidance reports as an error instead of reading freed memory."""

    def __init__(self, known: Mapping[Call, tuple[int, ...]] | None = None) -> None:
        from .lib import llama_cpp

        self._llama_tokenize: Any = llama_cpp.llama_tokenize
        self._known = dict(known or {})
        self._vocab: Any = None
        self._bound = threading.Event()
        self.told: dict[Call, tuple[int, ...]] = {}
        """What the record answered before the model was there."""
        self.asked: dict[Call, tuple[int, ...]] | None = {}
        """Every call and its answer while recording (None once `stop_recording`)."""
        self._anchor = ctypes.c_int64(0)
        self.callback = _TOKENIZE(self._call)
        self.address: int = ctypes.cast(self.callback, ctypes.c_void_p).value or 0
        self.vocab_ptr: int = ctypes.addressof(self._anchor)
        """A non-null vocabulary pointer for llguidance to pass back; the real one is bound later."""
        _ALIVE.append(self)

    def know(self, calls: Mapping[Call, tuple[int, ...]]) -> None:
        """Answers to give before the model is there (a record's)."""
        self._known.update(calls)

    def bind(self, vocab: Any) -> None:
        """The loaded model's vocabulary (None: the load failed; waiting calls then fail)."""
        self._vocab = vocab
        self._bound.set()

    def unbind(self) -> None:
        self._vocab = None
        self._bound.set()

    def stop_recording(self) -> dict[Call, tuple[int, ...]]:
        asked, self.asked = self.asked or {}, None
        return asked

    def tokenize(self, call: Call) -> tuple[int, ...] | None:
        """What llama.cpp makes of `call` (None before `bind`, after `unbind`, or when it fails)."""
        text, add, special = call
        room = len(text) + 8
        for _ in range(2):
            if self._vocab is None:
                return None
            out = (ctypes.c_int32 * room)()
            n = int(self._llama_tokenize(self._vocab, text, len(text), out, room, add, special))
            if n >= 0:
                return tuple(out[:n])
            room = -n
        return None

    def told_the_truth(self) -> bool:
        """Whether every early answer is what the loaded model says."""
        return all(self.tokenize(call) == tokens for call, tokens in self.told.items())

    def _call(self, _vocab: Any, text: Any, n_text: int, out: Any, room: int, add: bool, special: bool) -> int:
        try:
            call = (ctypes.string_at(text, n_text), bool(add), bool(special))
            known = self._known.get(call) if not self._bound.is_set() else None
            if known is not None:
                self.told[call] = known
                tokens: tuple[int, ...] = known
            else:
                self._bound.wait()  # releases the GIL: the loader goes on
                if self._vocab is None:
                    return 0
                n = int(self._llama_tokenize(self._vocab, ctypes.cast(text, ctypes.c_char_p), n_text, out, room,
                                             add, special))
                if self.asked is not None and n >= 0:
                    self.asked[call] = tuple(out[:n])
                return n
            if self.asked is not None:
                self.asked[call] = tokens
            if len(tokens) > room:
                return -len(tokens)
            for i, token in enumerate(tokens):
                out[i] = token
            return len(tokens)
        except Exception:  # an exception cannot cross into llguidance; no tokens is an error it reports
            log.debug("tokenize callback failed", exc_info=True)
            return 0


def build_view(pieces: list[bytes], special: frozenset[int], eos_token: int, tokenize: DeferredTokenize) -> Any:
    """`LLTokenizer.from_llamacpp` on saved tables, as llguidance.llamacpp.lltokenizer_from_vocab builds
    it from a live vocabulary (special tokens marked with a 0xff byte), tokenizing through `tokenize`.

    Without llguidance's "slices" (`VIEW_SLICES`): precomputed token sets for JSON-string-like text
    that make a mask inside a long string value cheaper. On Gemma's 262,144 tokens they are 0.35-0.45 s
    of a 0.75-0.9 s build, GIL held, at every start, and save 0.01-0.3 ms per masked token (a JSON
    string value: 0.29 ms without, 0.014 ms with; an XML parameter value 0.034 / 0.006 ms) against the
    5-30 ms llama.cpp spends on the token itself: a warm start pays the build, a reply does not notice
    the masks (bench/results/ttft.md)."""
    from llguidance import LLTokenizer

    tokens = list(pieces)  # then mark the few special ones: a pass testing all 262k is 10 ms, GIL held
    for i in special:
        if 0 <= i < len(tokens):
            tokens[i] = b"\xff" + tokens[i]
    return LLTokenizer.from_llamacpp(  # type: ignore[attr-defined]
        tokens=tokens, vocab_ptr=tokenize.vocab_ptr, tokenize_fptr=tokenize.address, eos_token=eos_token,
        slices=list(VIEW_SLICES))


VIEW_SLICES: tuple[str, ...] = ()
"""The slices llguidance precomputes for the view: none (`build_view` says why)."""


class _Tables(Protocol):
    @property
    def pieces(self) -> list[bytes]: ...

    @property
    def special(self) -> frozenset[int]: ...


class EarlyView:
    """llguidance's view, built in a thread while the model loads: `read` gives the saved vocabulary
    tables (None: there are none), the record at `record_path` what the last build asked."""

    def __init__(self, read: Callable[[], _Tables | None], record_path: Path) -> None:
        self.tokenize = DeferredTokenize()
        self.record: BuildRecord | None = None
        self._read = read
        self._record_path = record_path
        self._tables: _Tables | None = None
        self._tables_read = threading.Event()
        self._view: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._build, name="llguidance view", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        try:
            try:
                self._tables = tables = self._read()
            finally:
                self._tables_read.set()
            record = load_record(self._record_path) if tables is not None else None
            if tables is None or record is None or record.n_vocab != len(tables.pieces):
                return
            self.record = record
            self.tokenize.know(record.calls)
            self._view = build_view(tables.pieces, tables.special, record.eos_token, self.tokenize)
        except BaseException as exc:  # kept for `result`: the view is then built again the ordinary way
            self._error = exc

    def tables(self) -> _Tables | None:
        """The saved tables the thread read (it reads them first), or None."""
        self._tables_read.wait()
        return self._tables

    def abandon(self) -> None:
        """The model did not load (or closed): let the build finish; a call waiting for the model fails."""
        self.tokenize.unbind()

    def result(self, eos_token: int, n_vocab: int) -> Any | None:
        """The view, once the model is bound; None when there is none or it cannot be trusted (then it is
        built again the ordinary way)."""
        self._thread.join()
        record = self.record
        if self._error is not None:
            log.debug("early llguidance view failed: %s", self._error)
            return None
        if record is None or self._view is None:
            return None
        if eos_token != record.eos_token or n_vocab != record.n_vocab or not self.tokenize.told_the_truth():
            log.info("llguidance's build record does not match the model; building its view again")
            return None
        return self._view


__all__ = ["BuildRecord", "DeferredTokenize", "EarlyView", "build_view", "load_record", "save_record"]
