"""The models we know by name: where their GGUF lives on the Hugging Face hub and what they can do.

Sizes are the Q4_K_M files' sizes (exact for the Qwen 3 8B, the Qwen 3.5 0.8B to 9B and Qwen3-Coder,
approximate for the rest: `size_exact` says which); they let a UI warn before a multi-gigabyte
download and let `pull` check that a download is complete. `memory_needed` is what a model takes to
run (weights plus the runtime's room), and the default model is the best one that fits this
machine's memory (`default_model_for`): Qwen3.6-35B-A3B where it fits (a mixture of experts with 3B
parameters active per token decodes about as fast as a dense 3B), a Qwen 3.5 model below that.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelNotFoundError


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
    template: str = "qwen3"
    """The shipped chat template (`templates.TEMPLATE_NAMES`) its GGUF's own template matches."""
    size_exact: bool = True
    """False where `size_bytes` is an estimate (the file's size was not verified)."""
    mmproj: str | None = None
    """The vision projector in the same repo (None: the model cannot see); fetched only when asked for."""
    mmproj_size_bytes: int = 0
    """Its size (approximate: the F16 tower's parameters times two)."""

    @property
    def size_display(self) -> str:
        return human_size(self.size_bytes) if self.size_exact else "~" + human_size(self.size_bytes)

    @property
    def memory_needed(self) -> int:
        """Bytes of memory it needs to run: its weights plus `RUNTIME_ROOM_BYTES`."""
        return self.size_bytes + RUNTIME_ROOM_BYTES

    def fits(self, memory: int | None) -> bool | None:
        """Whether it runs in `memory` bytes (`fits_in_memory`; None: memory unknown)."""
        return fits_in_memory(self.size_bytes, memory)

    @property
    def can_see(self) -> bool:
        return self.mmproj is not None


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


#: Qwen 3.5's vision towers, F16 (unsloth's `mmproj-F16.gguf`): the 0.8B's is 12 layers of 768, the 2B's
#: and 4B's 24 of 1024, the larger models' 27 of 1152; the merger's output width is the text model's
QWEN35_MMPROJ = "mmproj-F16.gguf"
QWEN35_MMPROJ_BYTES = {
    "0.8B": 201_000_000,
    "2B": 662_000_000,
    "4B": 666_000_000,
    "9B": 912_000_000,
    "27B": 920_000_000,
    "35B-A3B": 892_000_000,
}
#: versions whose repositories carry that projector (Qwen 3.6 has Qwen 3.5's vision encoder; Qwen 3.8's
#: projector file is not known here)
VISION_VERSIONS = ("3.5", "3.6")


def _qwen35(size: str, size_bytes: int, *, version: str = "3.5", exact: bool = True) -> ModelEntry:
    """A Qwen 3.5-architecture model (3.5, 3.6, 3.8: same hybrid layout, 262k context, XML calls)."""
    sees = version in VISION_VERSIONS
    return ModelEntry(
        mmproj=QWEN35_MMPROJ if sees else None,
        mmproj_size_bytes=QWEN35_MMPROJ_BYTES.get(size, 0) if sees else 0,
        key=f"qwen{version}-{size.lower()}",
        name=f"Qwen {version} {size}",
        repo_id=f"unsloth/Qwen{version}-{size}-GGUF",
        filename=f"Qwen{version}-{size}-Q4_K_M.gguf",
        size_bytes=size_bytes,
        tool_capable=True,
        context_length=262144,
        params=size,
        template=f"qwen{version}",
        size_exact=exact,
    )


QWEN3_CODER_30B = ModelEntry(
    key="qwen3-coder-30b-a3b",
    name="Qwen3-Coder 30B-A3B",
    repo_id="unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF",
    filename="Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf",
    size_bytes=18_556_689_568,
    tool_capable=True,
    context_length=262144,
    params="30B-A3B",
    template="qwen3-coder",
)

QWEN3_CODER_NEXT = ModelEntry(
    key="qwen3-coder-next",
    name="Qwen3-Coder-Next 80B-A3B",
    repo_id="unsloth/Qwen3-Coder-Next-GGUF",
    filename="Qwen3-Coder-Next-Q4_K_M.gguf",
    size_bytes=48_400_000_000,  # as Qwen3-Next-80B-A3B's Q4_K_M (48.4 GB): same architecture and size
    tool_capable=True,
    context_length=262144,
    params="80B-A3B",
    template="qwen3-coder",
    size_exact=False,
)

REGISTRY: tuple[ModelEntry, ...] = (
    _qwen3("8B", 5_131_567_104),
    _qwen3("14B", 9_001_753_000),
    _qwen3("4B", 2_497_280_000),
    _qwen3("1.7B", 1_282_439_000),
    _coder("3B", 1_929_903_000),
    _coder("1.5B", 986_048_000),
    _qwen35("0.8B", 532_517_120),
    _qwen35("2B", 1_280_835_840),
    _qwen35("4B", 2_740_937_888),
    _qwen35("9B", 5_680_522_464),
    _qwen35("27B", 16_740_000_000, exact=False),
    _qwen35("35B-A3B", 22_000_000_000, exact=False),
    _qwen35("35B-A3B", 22_000_000_000, version="3.6", exact=False),
    _qwen35("27B", 16_740_000_000, version="3.6", exact=False),
    _qwen35("27B", 16_740_000_000, version="3.8", exact=False),
    QWEN3_CODER_30B,
    QWEN3_CODER_NEXT,
)

#: models a machine may default to, best first. The dense 27Bs are left out: on a CPU they are several
#: times slower than the 35B-A3B mixture of experts (3B parameters active per token); Qwen 3.6's
#: 35B-A3B replaces Qwen 3.5's (same size, better at agentic coding).
DEFAULT_CANDIDATES = ("qwen3.6-35b-a3b", "qwen3.5-9b", "qwen3.5-4b", "qwen3.5-2b", "qwen3.5-0.8b")
#: room beside the weights: the KV cache (small on Qwen 3.5, where one layer in four keeps one) at a
#: long context, llama.cpp's compute buffers
RUNTIME_ROOM_BYTES = 3 * 1024**3 // 2
#: the share of memory a model may take; the rest is for the system, the editor, the tests it runs
USABLE_SHARE = 0.75


def fits_in_memory(size_bytes: int, memory: int | None) -> bool | None:
    """Whether a GGUF of `size_bytes` runs in `memory` bytes: its weights plus `RUNTIME_ROOM_BYTES`
    within `USABLE_SHARE` of the memory; None when the memory is unknown. The one answer to "does it
    fit" (`qwen-runtime models`, `sigit doctor`, the app's model pickers); `memory_bytes()` is the
    memory they all ask about."""
    return None if memory is None else size_bytes + RUNTIME_ROOM_BYTES <= memory * USABLE_SHARE


def default_model_for(memory_bytes: int | None) -> str:
    """The best default candidate whose weights and runtime room fit in `memory_bytes` (the smallest
    when none does; the 9B when the memory is unknown)."""
    if memory_bytes is None:
        return "qwen3.5-9b"
    for key in DEFAULT_CANDIDATES:
        if get_model(key).fits(memory_bytes):
            return key
    return DEFAULT_CANDIDATES[-1]


def memory_bytes() -> int | None:
    """This machine's memory, capped by a cgroup memory limit (a container); None when unknown."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None
    for limit_file in (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")):
        try:
            text = limit_file.read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
        break
    return total if total > 0 else None


def get_model(key: str) -> ModelEntry:
    """The entry for `key` (case-insensitive); unknown keys name every known one."""
    wanted = key.strip().lower()
    for entry in REGISTRY:
        if entry.key == wanted:
            return entry
    known = ", ".join(entry.key for entry in REGISTRY)
    raise ModelNotFoundError(f"unknown model {key!r}; known models: {known}")


DEFAULT_MODEL: str = default_model_for(memory_bytes())
"""The registry key of this machine's default model (the best default candidate that fits its memory)."""
