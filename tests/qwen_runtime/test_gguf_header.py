"""The GGUF header reader against gguf-py's own writer and reader: whatever metadata a converter writes
(any value type, arrays, either byte order), every key reads back as gguf-py reads it, long string
arrays are skipped by count, and a file cut anywhere in its header is a clear error, never a crash.
What a header said, saved for the next load, is believed only for the same file, intact."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import shutil
from pathlib import Path
from typing import Any

import gguf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qwen_runtime import read_gguf_info
from qwen_runtime.errors import ModelLoadError
from qwen_runtime.models import gguf_header, gguf_info
from qwen_runtime.models.gguf_header import GgufHeaderError, SkippedStrings, read_gguf_metadata

T = gguf.GGUFValueType
INTS = {T.UINT8: (0, 255), T.INT8: (-128, 127), T.UINT16: (0, 65535), T.INT16: (-32768, 32767),
        T.UINT32: (0, 2**32 - 1), T.INT32: (-(2**31), 2**31 - 1), T.UINT64: (0, 2**64 - 1),
        T.INT64: (-(2**63), 2**63 - 1)}
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@st.composite
def entry(draw: st.DrawFn) -> tuple[T, Any, T | None]:
    kind = draw(st.sampled_from([*INTS, T.FLOAT32, T.FLOAT64, T.BOOL, T.STRING, T.ARRAY]))
    if kind in INTS:
        return kind, draw(st.integers(*INTS[kind])), None
    if kind in (T.FLOAT32, T.FLOAT64):
        return kind, draw(st.floats(allow_nan=False, width=32)), None
    if kind == T.BOOL:
        return kind, draw(st.booleans()), None
    if kind == T.STRING:
        return kind, draw(TEXT), None
    sub = draw(st.sampled_from([T.INT32, T.UINT32, T.FLOAT32, T.BOOL, T.STRING]))
    items: st.SearchStrategy[Any] = {T.INT32: st.integers(*INTS[T.INT32]), T.UINT32: st.integers(*INTS[T.UINT32]),
                                     T.FLOAT32: st.floats(allow_nan=False, width=32), T.BOOL: st.booleans(),
                                     T.STRING: TEXT}[sub]
    return kind, draw(st.lists(items, min_size=1, max_size=8)), sub


METADATA = st.dictionaries(st.from_regex(r"[a-z][a-z0-9_.]{0,15}", fullmatch=True), entry(), max_size=8)


def write(path: Path, metadata: dict[str, tuple[T, Any, T | None]], big_endian: bool = False) -> Path:
    endian = gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE
    writer = gguf.GGUFWriter(str(path), arch="qwen35", endianess=endian)
    for key, (kind, value, sub) in metadata.items():
        if key != "general.architecture":
            writer.add_key_value(key, value, kind, sub_type=sub)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, float) or isinstance(theirs, float):
        return math.isclose(ours, theirs, rel_tol=1e-6) or ours == theirs
    if isinstance(ours, list):
        return isinstance(theirs, list) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    return bool(ours == theirs)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(metadata=METADATA, big_endian=st.booleans())
def test_every_key_reads_back_as_gguf_py_reads_it(tmp_path: Path, metadata: dict[str, Any], big_endian: bool) -> None:
    path = write(tmp_path / "m.gguf", metadata, big_endian)
    ours = read_gguf_metadata(path)
    theirs = {name: field.contents() for name, field in gguf.GGUFReader(str(path)).fields.items()
              if not name.startswith("GGUF.")}
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert same(ours[key], value), (key, ours[key], value)


def test_a_vocabulary_sized_string_array_is_stepped_over_and_the_keys_after_it_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gguf_header, "MAX_DECODED_STRINGS", 3)
    tokens = ["<|im_start|>", "a", "bé", "", "💡" * 40]
    path = write(tmp_path / "v.gguf", {"tokenizer.ggml.tokens": (T.ARRAY, tokens, T.STRING),
                                       "tokenizer.chat_template": (T.STRING, "{{ messages }}", None),
                                       "qwen35.block_count": (T.UINT32, 4, None)})
    fields = read_gguf_metadata(path)
    assert fields["tokenizer.ggml.tokens"] == SkippedStrings(5)
    assert fields["tokenizer.chat_template"] == "{{ messages }}" and fields["qwen35.block_count"] == 4


def test_the_tiny_models_read_as_before(tiny_hybrid_gguf: Path, tiny_gguf: Path) -> None:
    hybrid, dense = read_gguf_info(tiny_hybrid_gguf), read_gguf_info(tiny_gguf)
    assert hybrid.architecture == "qwen35" and hybrid.hybrid and hybrid.attention_layers
    assert dense.architecture == "qwen3" and not dense.hybrid and dense.chat_template
    assert "<|im_start|>" in (dense.chat_template or "")


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cut=st.floats(0, 1, exclude_max=True))
def test_a_file_cut_anywhere_in_its_header_is_a_clear_error(tiny_hybrid_gguf: Path, tmp_path: Path,
                                                            cut: float) -> None:
    whole = tiny_hybrid_gguf.read_bytes()
    header = _header_length(tiny_hybrid_gguf)
    short = tmp_path / "short.gguf"
    short.write_bytes(whole[: int(cut * header)])
    with pytest.raises(GgufHeaderError):
        read_gguf_metadata(short)
    with pytest.raises(ModelLoadError, match="is not a readable GGUF file"):
        read_gguf_info(short)


@functools.cache
def _header_length(path: Path) -> int:
    """Bytes up to the end of the key-value section (gguf-py's reader knows where the tensors start)."""
    reader = gguf.GGUFReader(str(path))
    last = max(reader.fields.values(), key=lambda f: f.offset)
    return int(last.offset + sum(part.nbytes for part in last.parts))


def test_not_a_gguf_says_so(tmp_path: Path) -> None:
    text = tmp_path / "model.gguf"
    text.write_text("version https://git-lfs.github.com/spec/v1\n")
    with pytest.raises(ModelLoadError, match="no GGUF magic"):
        read_gguf_info(text)
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(ModelLoadError, match="empty"):
        read_gguf_info(empty)


def test_a_header_read_once_is_kept_for_the_next_load_until_the_file_changes(
    tiny_gguf: Path, tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm start does not step over the vocabulary again (30-40 ms of a 262k-token header); a model
    file rebuilt at the same path is read anew, whoever wrote the saved facts."""
    model, cache = tmp_path / "model.gguf", tmp_path / "cache"
    shutil.copy(tiny_gguf, model)
    first = read_gguf_info(model, cache)
    assert first == read_gguf_info(model)

    def unread(path: object) -> dict[str, Any]:
        raise AssertionError("the header was read again")

    monkeypatch.setattr(gguf_info, "read_gguf_metadata", unread)
    assert read_gguf_info(model, cache) == first
    link = tmp_path / "link.gguf"
    link.symlink_to(model)
    assert read_gguf_info(link, cache) == dataclasses.replace(first, path=link)
    monkeypatch.undo()

    shutil.copy(tiny_hybrid_gguf, model)  # another model written over it: new size and time
    again = read_gguf_info(model, cache)
    assert again.architecture == "qwen35" and again.hybrid and again == read_gguf_info(model)


@pytest.mark.parametrize("saved", [b"{not json", b"[]", b'{"architecture": "qwen3"}',
                                   b"\x00" * 40])
def test_damaged_saved_facts_are_read_from_the_header_again_and_replaced(
    tiny_gguf: Path, tmp_path: Path, saved: bytes
) -> None:
    cache = tmp_path / "cache"
    truth = read_gguf_info(tiny_gguf, cache)
    (entry,) = cache.glob("*.header.json")
    entry.write_bytes(saved)
    assert read_gguf_info(tiny_gguf, cache) == truth
    assert read_gguf_info(tiny_gguf, cache) == truth and entry.read_bytes() != saved


def test_saved_facts_of_the_wrong_type_are_not_believed(tiny_gguf: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    truth = read_gguf_info(tiny_gguf, cache)
    (entry,) = cache.glob("*.header.json")
    for field, bad in [("block_count", "4"), ("head_count_kv", [1, "x"]), ("chat_template", 3),
                       ("context_length", True), ("architecture", None)]:
        data = json.loads(entry.read_text())
        data[field] = bad
        entry.write_text(json.dumps(data))
        assert read_gguf_info(tiny_gguf, cache) == truth, field


def test_a_cache_folder_that_cannot_be_written_costs_only_the_saving(tiny_gguf: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert read_gguf_info(tiny_gguf, blocked / "vocab") == read_gguf_info(tiny_gguf)
    with pytest.raises(ModelLoadError, match="is not a readable GGUF file"):
        read_gguf_info(tmp_path / "missing.gguf", tmp_path / "cache")


def test_a_cache_write_that_fails_leaves_neither_half_a_file_nor_a_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qwen_runtime import atomic_file

    target = tmp_path / "cache" / "entry.json"
    atomic_file.write_atomic(target, b"old")

    def refuse(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic_file.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        atomic_file.write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and [p.name for p in target.parent.iterdir()] == ["entry.json"]
