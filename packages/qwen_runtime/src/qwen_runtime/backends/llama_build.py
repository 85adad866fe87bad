"""What the installed llama.cpp can do, and its C log lines routed into Python logging.

llama-cpp-python prints llama.cpp's log lines (`llama_context: n_ctx_seq ...`) straight to stderr,
where they land on the user's terminal between the app's own output. `forward_llama_logs()` puts a
callback in their place that hands each line to the `qwen_runtime.llama_cpp` logger, so the
application decides where they go (siGit: a log file). Nothing is printed when no one configured
logging: the logger has a NullHandler, so Python's last-resort stderr handler never fires.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import threading
from dataclasses import dataclass
from typing import Any

from ..errors import BackendUnavailable

LOGGER_NAME = "qwen_runtime.llama_cpp"
llama_log = logging.getLogger(LOGGER_NAME)
llama_log.addHandler(logging.NullHandler())

# ggml.h's ggml_log_level: NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5 (continues the line).
# llama-cpp-python 0.3.36's own callback still uses an older order (ERROR 3), so it prints
# llama.cpp's warnings as errors, past `verbose=False`: the lines users saw on their terminal.
_LEVELS = {0: logging.INFO, 1: logging.DEBUG, 2: logging.INFO, 3: logging.WARNING, 4: logging.ERROR}
_CONT = 5


@dataclass(frozen=True)
class LlamaBuild:
    """The llama.cpp that llama-cpp-python was built with."""

    version: str
    """llama-cpp-python's version."""
    system_info: str
    """`llama_print_system_info()`: the backends and CPU features compiled in and found."""
    gpu_offload: bool
    """`llama_supports_gpu_offload()`: built with a GPU backend (CUDA, Metal, Vulkan...)."""

    @property
    def cpu_features(self) -> tuple[str, ...]:
        """The features the system info marks on (`AVX2`, `AVX512`, `AMX_INT8`...)."""
        features: list[str] = []
        for part in self.system_info.replace("|", "\n").splitlines():
            name, sep, value = part.rpartition("=")
            if sep and value.strip() == "1":
                features.append(name.split(":")[-1].strip())
        return tuple(features)

    @property
    def default_gpu_layers(self) -> int:
        """-1 (every layer on the GPU) when a GPU backend is built in, else 0."""
        return -1 if self.gpu_offload else 0


@functools.cache
def llama_build() -> LlamaBuild:
    """This process's llama.cpp build (loads the library once); BackendUnavailable if it cannot load."""
    try:
        import llama_cpp
    except (ImportError, OSError) as exc:
        raise BackendUnavailable(f"llama-cpp-python cannot be imported: {exc}") from exc
    forward_llama_logs()
    info = llama_cpp.llama_print_system_info()
    text = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
    return LlamaBuild(
        version=str(getattr(llama_cpp, "__version__", "unknown")),
        system_info=text.strip(),
        gpu_offload=bool(llama_cpp.llama_supports_gpu_offload()),
    )


def default_gpu_layers() -> int:
    """What `n_gpu_layers` means by default: all layers when llama.cpp has a GPU backend, else none."""
    return llama_build().default_gpu_layers


class _LineForwarder:
    """Joins llama.cpp's pieces (a line may arrive in several calls) and logs whole lines."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending = ""
        self._level = logging.INFO

    def __call__(self, level: int, text: bytes | None, _user_data: Any) -> None:
        try:
            piece = (text or b"").decode("utf-8", "replace")
            with self._lock:
                if level != _CONT:
                    if self._pending:  # a new message ends an unterminated one
                        self._emit(self._pending)
                        self._pending = ""
                    self._level = _LEVELS.get(level, logging.INFO)
                self._pending += piece
                *lines, self._pending = self._pending.split("\n")
                for line in lines:
                    self._emit(line)
        except Exception:  # an exception must never cross back into C
            pass

    def _emit(self, line: str) -> None:
        if line.strip():
            llama_log.log(self._level, "%s", line.rstrip())


_forwarder = _LineForwarder()
_callback: Any = None
"""The ctypes callback handed to llama.cpp: kept here so it is never collected while C holds it."""


def forward_llama_logs() -> None:
    """Send llama.cpp's log lines to the `qwen_runtime.llama_cpp` logger instead of stderr.

    Call after `import llama_cpp` (which installs llama-cpp-python's printing callback); calling it
    again is harmless.
    """
    global _callback
    import llama_cpp

    if _callback is None:
        _callback = llama_cpp.llama_log_callback(_forwarder)
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
