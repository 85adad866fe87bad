"""What a GGUF file says about its model, read from its header without loading it.

The context window is sized from it before llama.cpp allocates anything (`context_window`), and
`qwen-runtime inspect` shows it. The layer layout follows the vendored llama.cpp's loaders
(`src/models/qwen35*.cpp`, `qwen3next.cpp`, `qwen4exp.cpp`): on a hybrid model a layer is recurrent
(Gated DeltaNet) unless `(i + 1) % full_attention_interval == 0` (default 4) or the file lists the
recurrent layers itself; the last `nextn_predict_layers` blocks are MTP heads, not trunk layers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic_file import write_atomic
from ..errors import ModelLoadError
from ..home import expand_home
from .gguf_header import GgufHeaderError, SkippedStrings, read_gguf_metadata

log = logging.getLogger(__name__)

#: architectures llama.cpp runs as hybrids: full attention every few layers, a recurrent state elsewhere
HYBRID_ARCHS = frozenset({"qwen35", "qwen35moe", "qwen3next", "qwen4exp"})
#: architectures whose models are natively multimodal: images need a projector (an `mmproj` GGUF)
VISION_ARCHS = frozenset({"qwen35", "qwen35moe", "qwen3vl", "qwen3vlmoe", "qwen4exp"})
F16_BYTES = 2
"""Bytes per KV cache element: llama.cpp's default cache type is f16."""
F32_BYTES = 4


@dataclass(frozen=True)
class GgufInfo:
    """The keys of one GGUF that decide how it runs."""

    path: Path
    file_size: int
    architecture: str
    name: str
    context_length: int
    """Tokens it was trained for (`{arch}.context_length`); 0 when the file does not say."""
    block_count: int
    nextn_layers: int
    """Multi-token-prediction heads (`{arch}.nextn_predict_layers`), at the end of the blocks."""
    attention_layers: tuple[int, ...]
    """Trunk layers with a KV cache (all of them on a dense model)."""
    recurrent_layers: tuple[int, ...]
    head_count_kv: tuple[int, ...]
    """KV heads per block (one value per block)."""
    key_length: int
    value_length: int
    recurrent_state_bytes: int
    """One sequence's recurrent state (conv and SSM, f32) over all recurrent layers."""
    chat_template: str | None
    expert_count: int = 0

    @property
    def hybrid(self) -> bool:
        return bool(self.recurrent_layers)

    @property
    def projector_needed(self) -> bool:
        """Images need a separate projector file (the model is natively multimodal)."""
        return self.architecture in VISION_ARCHS

    def kv_bytes_per_token(self, bytes_per_element: int = F16_BYTES) -> int:
        """KV cache bytes one token of context takes: K and V on every attention layer."""
        per_layer = (self.key_length + self.value_length) * bytes_per_element
        return sum(self.head_count_kv[i] * per_layer for i in self.attention_layers)

    def kv_bytes(self, n_ctx: int) -> int:
        return n_ctx * self.kv_bytes_per_token()


def read_gguf_info(path: str | Path, cache_dir: str | Path | None = None) -> GgufInfo:
    """The header of the GGUF at `path`; ModelLoadError when it is not a readable GGUF.

    `cache_dir`: keep what was read there, for the next process to load the same file. Stepping over
    a 262k-token vocabulary in the header is 30-40 ms of Python (GIL held) before llama.cpp can start;
    the saved facts are a few hundred bytes, found by the file's path, size, modification time and
    inode, so a file replaced or rebuilt is read again."""
    file = expand_home(path)
    if cache_dir is None:
        return _read_header(file)
    try:
        entry = Path(cache_dir) / f"{_file_key(file)}.header.json"
    except OSError:  # no such file: reading it says so in the usual words
        return _read_header(file)
    info = _load_saved(entry, file)
    if info is None:
        info = _read_header(file)
        _save(entry, info)
    return info


_SAVED_FORMAT = 1


def _file_key(file: Path) -> str:
    stat = file.stat()
    text = json.dumps([_SAVED_FORMAT, str(file.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino,
                       stat.st_dev])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _load_saved(entry: Path, file: Path) -> GgufInfo | None:
    """The facts saved at `entry`, or None (none saved, or damaged: the header is read again)."""
    try:
        saved = json.loads(entry.read_bytes())
        fields = {f.name: str(f.type) for f in dataclasses.fields(GgufInfo) if f.name != "path"}
        if not isinstance(saved, dict) or saved.keys() != fields.keys():
            raise ValueError("not the fields of this version")
        values: dict[str, Any] = {}
        for name, value in saved.items():
            kind = fields[name]  # the annotation's text: "int", "str", "str | None", "tuple[int, ...]"
            if kind.startswith("tuple") and isinstance(value, list) and all(type(v) is int for v in value):
                value = tuple(value)
            elif not ((kind == "int" and type(value) is int) or (kind.startswith("str") and isinstance(value, str))
                      or (kind == "str | None" and value is None)):
                raise ValueError(f"{name}: {value!r} is not {kind}")
            values[name] = value
        return GgufInfo(path=file, **values)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        log.debug("saved header facts at %s unreadable (%s); reading the header", entry, exc)
        return None


def _save(entry: Path, info: GgufInfo) -> None:
    data = {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(info).items() if k != "path"}
    try:
        write_atomic(entry, json.dumps(data).encode(), prefix=".header-")
    except OSError as exc:  # a cache that cannot be written costs the next start 40 ms, nothing else
        log.debug("cannot save header facts to %s: %s", entry, exc)


def _read_header(file: Path) -> GgufInfo:
    try:
        fields = read_gguf_metadata(file)
    except (OSError, GgufHeaderError) as exc:
        raise ModelLoadError(f"{file} is not a readable GGUF file: {exc}") from exc

    def value(key: str, default: Any = None) -> Any:
        got = fields.get(key, default)
        return default if isinstance(got, SkippedStrings) else got

    arch = str(value("general.architecture", ""))
    if not arch:
        raise ModelLoadError(f"{file} has no general.architecture key: not a model GGUF")

    def arch_int(key: str, default: int = 0) -> int:
        got = value(f"{arch}.{key}", default)
        return int(got[0] if isinstance(got, list) and got else got or default)

    blocks = arch_int("block_count")
    nextn = arch_int("nextn_predict_layers")
    trunk = max(0, blocks - nextn)
    heads_kv = value(f"{arch}.attention.head_count_kv", 0)
    heads = value(f"{arch}.attention.head_count", 0)
    per_block = _per_block(heads_kv if heads_kv else heads, blocks)
    embd = arch_int("embedding_length")
    head_count = _per_block(heads, blocks)
    default_dim = embd // head_count[0] if head_count and head_count[0] else 0
    key_length = arch_int("attention.key_length", default_dim)
    value_length = arch_int("attention.value_length", key_length)
    recurrent = _recurrent_layers(arch, value(f"{arch}.attention.recurrent_layers"),
                                  arch_int("full_attention_interval", 4), trunk)
    attention = tuple(i for i in range(trunk) if i not in set(recurrent))
    template = value("tokenizer.chat_template")
    return GgufInfo(
        path=file,
        file_size=file.stat().st_size,
        architecture=arch,
        name=str(value("general.name", file.stem)),
        context_length=arch_int("context_length"),
        block_count=blocks,
        nextn_layers=nextn,
        attention_layers=attention,
        recurrent_layers=recurrent,
        head_count_kv=per_block,
        key_length=key_length,
        value_length=value_length,
        recurrent_state_bytes=len(recurrent) * _recurrent_bytes_per_layer(arch_int),
        chat_template=str(template) if isinstance(template, str) and template else None,
        expert_count=arch_int("expert_count"),
    )


def _per_block(raw: Any, blocks: int) -> tuple[int, ...]:
    if isinstance(raw, list):
        values = [int(v) for v in raw] or [0]
        return tuple(values[i] if i < len(values) else values[-1] for i in range(blocks))
    return (int(raw or 0),) * blocks


def _recurrent_layers(arch: str, listed: Any, interval: int, trunk: int) -> tuple[int, ...]:
    if arch not in HYBRID_ARCHS:
        return ()
    if isinstance(listed, list) and listed:
        return tuple(i for i, flag in enumerate(listed) if i < trunk and flag)
    interval = interval or 4
    return tuple(i for i in range(trunk) if (i + 1) % interval != 0)


def _recurrent_bytes_per_layer(arch_int: Callable[[str], int]) -> int:
    """A Gated DeltaNet layer's state: the conv window over q, k, v and the d_state x d_inner matrix."""
    conv_kernel = arch_int("ssm.conv_kernel")
    inner = arch_int("ssm.inner_size")
    state = arch_int("ssm.state_size")
    groups = arch_int("ssm.group_count")
    conv = max(0, conv_kernel - 1) * (inner + 2 * groups * state)
    return (conv + state * inner) * F32_BYTES


__all__ = ["GgufInfo", "read_gguf_info"]
