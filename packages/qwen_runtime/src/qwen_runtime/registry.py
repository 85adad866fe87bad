"""The models we know by name: where their GGUF lives on the Hugging Face hub and what they can do.

Sizes are the Q4_K_M files' sizes (exact for the 8B, approximate for the rest); they let a UI warn
before a multi-gigabyte download and let `pull` check that a download is complete.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ModelNotFoundError


@dataclass(frozen=True)
class ModelEntry:
    key: str
    """The short name used on the command line and in config (`qwen3-8b`)."""
    name: str
    repo_id: str
    filename: str
    size_bytes: int
    tool_capable: bool
    context_length: int
    params: str
    """Parameter count as people say it ("8B")."""

    @property
    def size_display(self) -> str:
        return human_size(self.size_bytes)


def human_size(size_bytes: int) -> str:
    """`5131567104` -> "4.8 GiB"; the binary units `du -h` and file managers show."""
    size = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _qwen3(size: str, size_bytes: int) -> ModelEntry:
    return ModelEntry(
        key=f"qwen3-{size.lower()}",
        name=f"Qwen 3 {size}",
        repo_id=f"bartowski/Qwen_Qwen3-{size}-GGUF",
        filename=f"Qwen_Qwen3-{size}-Q4_K_M.gguf",
        size_bytes=size_bytes,
        tool_capable=True,
        context_length=40960,
        params=size,
    )


def _coder(size: str, size_bytes: int) -> ModelEntry:
    return ModelEntry(
        key=f"qwen2.5-coder-{size.lower()}",
        name=f"Qwen 2.5 Coder {size}",
        repo_id=f"bartowski/Qwen2.5-Coder-{size}-Instruct-GGUF",
        filename=f"Qwen2.5-Coder-{size}-Instruct-Q4_K_M.gguf",
        size_bytes=size_bytes,
        tool_capable=False,
        context_length=32768,
        params=size,
    )


DEFAULT_MODEL = "qwen3-8b"

REGISTRY: tuple[ModelEntry, ...] = (
    _qwen3("8B", 5_131_567_104),
    _qwen3("14B", 9_001_753_000),
    _qwen3("4B", 2_497_280_000),
    _qwen3("1.7B", 1_282_439_000),
    _coder("3B", 1_929_903_000),
    _coder("1.5B", 986_048_000),
)


def get_model(key: str) -> ModelEntry:
    """The entry for `key` (case-insensitive); unknown keys name every known one."""
    wanted = key.strip().lower()
    for entry in REGISTRY:
        if entry.key == wanted:
            return entry
    known = ", ".join(entry.key for entry in REGISTRY)
    raise ModelNotFoundError(f"unknown model {key!r}; known models: {known}")
