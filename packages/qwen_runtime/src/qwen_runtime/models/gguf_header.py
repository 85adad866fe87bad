"""A GGUF file's metadata keys, read straight from its header.

gguf-py's `GGUFReader` builds a numpy view for every element of every array in the file: on a Qwen 3.5
or Gemma 3 GGUF (a 248k- or 262k-token vocabulary, three arrays of that length) that is millions of
views and seconds of CPU before a model can start, on every start. Deciding how to run a model needs a
few dozen scalar keys, so this reader walks the key-value section once, decodes scalars, numeric arrays
and short string arrays, and steps over the long string arrays (the vocabulary) by their lengths alone.

Format: GGUF v2/v3 (`gguf-py/gguf/constants.py` GGUFValueType; little-endian, or big-endian files whose
version reads byte-swapped).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GGUF_MAGIC = b"GGUF"
MAX_DECODED_STRINGS = 4096
"""String arrays longer than this (vocabularies, merges) are skipped: their values come back as a
`SkippedStrings` with the count only."""

_SCALARS = {  # value type -> struct format
    0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d",
}
_NUMPY = {0: "u1", 1: "i1", 2: "u2", 3: "i2", 4: "u4", 5: "i4", 6: "f4", 7: "?", 10: "u8", 11: "i8", 12: "f8"}
_STRING, _ARRAY = 8, 9


class GgufHeaderError(ValueError):
    """The file is not a GGUF, or its header is cut short or inconsistent."""


@dataclass(frozen=True)
class SkippedStrings:
    """A long string array left unread (a vocabulary): how many strings it holds."""

    count: int


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """Every metadata key of the GGUF at `path` with its value: int, float, bool, str, a list of them,
    or `SkippedStrings` for a long string array. Raises GgufHeaderError (a ValueError) on a file that is
    not a GGUF or whose header is truncated, OSError when it cannot be read."""
    with open(path, "rb") as file:
        try:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError as exc:  # an empty file cannot be mapped
            raise GgufHeaderError("the file is empty") from exc
    with data:
        return _Cursor(data).metadata()


class _Cursor:
    """A read position in the mapped header; every read checks it stays inside the file."""

    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.at = 0
        self.order = "<"

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise GgufHeaderError(f"the header is cut short at byte {self.at}")
        (value,) = struct.unpack_from(self.order + fmt, self.data, self.at)
        self.at += size
        return value

    def string(self) -> str:
        n = self.take("Q")
        end = self.at + n
        if end > len(self.data):
            raise GgufHeaderError(f"a {n}-byte string at byte {self.at} runs past the end of the file")
        text = bytes(self.data[self.at : end]).decode("utf-8", errors="replace")
        self.at = end
        return text

    def skip_strings(self, count: int) -> None:
        data, at, fmt, size = self.data, self.at, self.order + "Q", len(self.data)
        unpack = struct.Struct(fmt).unpack_from
        for _ in range(count):
            if at + 8 > size:
                raise GgufHeaderError(f"a string array runs past the end of the file at byte {at}")
            at += 8 + unpack(data, at)[0]
        if at > size:
            raise GgufHeaderError("a string array runs past the end of the file")
        self.at = at

    def value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self.take(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            return self.array()
        raise GgufHeaderError(f"unknown value type {kind} at byte {self.at - 4}")

    def array(self) -> Any:
        kind, count = self.take("I"), self.take("Q")
        if kind == _STRING:
            if count > MAX_DECODED_STRINGS:
                self.skip_strings(count)
                return SkippedStrings(count)
            return [self.string() for _ in range(count)]
        if kind in _NUMPY:
            import numpy as np

            dtype = np.dtype(self.order + _NUMPY[kind])
            end = self.at + count * dtype.itemsize
            if end > len(self.data):
                raise GgufHeaderError(f"an array of {count} values runs past the end of the file")
            values = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at).tolist()
            self.at = end
            return values
        if kind == _ARRAY:
            return [self.array() for _ in range(count)]
        raise GgufHeaderError(f"unknown array element type {kind} at byte {self.at - 12}")

    def metadata(self) -> dict[str, Any]:
        if bytes(self.data[:4]) != GGUF_MAGIC:
            raise GgufHeaderError("no GGUF magic at the start (not a GGUF file)")
        self.at = 4
        version = self.take("I")
        if version & 0xFFFF == 0:  # written on a big-endian machine
            self.order = ">"
            version = struct.unpack(">I", struct.pack("<I", version))[0]
        if version not in (2, 3):
            raise GgufHeaderError(f"GGUF version {version} is not supported (2 and 3 are)")
        self.take("Q")  # tensor count
        n_kv = self.take("Q")
        fields: dict[str, Any] = {}
        for _ in range(n_kv):
            key = self.string()
            fields[key] = self.value(self.take("I"))
        return fields


__all__ = ["GgufHeaderError", "SkippedStrings", "read_gguf_metadata"]
