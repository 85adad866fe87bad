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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ...errors import BackendUnavailable

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
        from .lib import llama_cpp
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
            for prefix, seen in _watchers:
                if prefix in line:
                    seen.append(line.strip())
            llama_log.log(self._level, "%s", line.rstrip())


_watchers: list[tuple[str, list[str]]] = []
"""Open `watch_llama_lines` blocks: (what a line must contain, the lines seen); read under the forwarder's lock."""


@contextmanager
def watch_llama_lines(containing: str) -> Iterator[list[str]]:
    """llama.cpp's lines containing `containing` while the block runs, whatever the log level (what it
    resolved at load, e.g. flash attention's auto, is said only in an INFO line). Lines dropped in C by
    `quiet_llama_logs` are not seen."""
    seen: list[str] = []
    entry = (containing, seen)
    with _forwarder._lock:
        _watchers.append(entry)
    try:
        yield seen
    finally:
        with _forwarder._lock:
            _watchers.remove(entry)


_forwarder = _LineForwarder()
_quiet_lock = threading.Lock()
_quiet_depth = 0
"""Open `quiet_llama_logs` blocks: while any is open, llama.cpp's lines are dropped in C."""
_callback: Any = None
"""The ctypes callback handed to llama.cpp: kept here so it is never collected while C holds it."""


def forward_llama_logs() -> None:
    """Send llama.cpp's log lines to the `qwen_runtime.llama_cpp` logger instead of stderr.

    Call after `import llama_cpp` (which installs llama-cpp-python's printing callback); calling it
    again is harmless. llama-cpp-python's silencing of the whole process goes too (`keep_std_streams`).
    """
    keep_std_streams()
    with _quiet_lock:
        if _quiet_depth == 0:  # inside `quiet_llama_logs` the block's end forwards again
            _forward()


class _KeepStreams:
    """Stands in for llama-cpp-python's `suppress_stdout_stderr` (`keep_std_streams`): nothing redirected."""

    def __init__(self, disable: bool = True) -> None:
        self.disable = disable

    def __enter__(self) -> _KeepStreams:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None


def keep_std_streams() -> None:
    """Stop llama-cpp-python from pointing the process's stdout and stderr at /dev/null.

    With `verbose=False` it does that around a model's load (file descriptors 1 and 2 through dup2, and
    `sys.stdout` / `sys.stderr` swapped): process-wide, so whatever any other thread wrote meanwhile was
    lost, and a stream object taken in that window kept writing into /dev/null (`sigit -p`, whose model
    loads beside its start, printed no answer; an editor's ACP messages during a model switch). It hid
    llama.cpp's lines, which `forward_llama_logs` sends to logging already. Idempotent."""
    from .lib import _internals, llama, llama_chat_format

    for module in (_internals, llama, llama_chat_format):
        if hasattr(module, "suppress_stdout_stderr"):
            module.suppress_stdout_stderr = _KeepStreams  # type: ignore[attr-defined]


def _forward() -> None:
    global _callback
    from .lib import llama_cpp

    if _callback is None:
        _callback = llama_cpp.llama_log_callback(_forwarder)
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


_silent: Any = None
"""A C log callback that drops every line without entering Python (`_c_no_op`), once made."""


def _c_no_op() -> Any | None:
    """A native function llama.cpp can call as its log callback that does nothing and needs no GIL.

    Any ctypes callback takes the GIL for each of a load's ~600 lines; while another thread holds it
    for a second (llguidance's vocabulary view, a Rust call), every line waits for that thread and
    the load stalls behind it. The C library's `getpid` takes no arguments and has no effect: called
    as `void (int, const char *, void *)` it returns a value nobody reads, which every C calling
    convention CPython runs on (arguments in registers or cleaned up by the caller) allows. None
    where there is no such C library (the forwarding callback stays)."""
    global _silent
    if _silent is None:
        from .lib import llama_cpp

        try:
            getpid = ctypes.CDLL(None).getpid
        except (OSError, AttributeError, TypeError):  # pragma: no cover - Windows: no dlopen(NULL)
            return None
        address = ctypes.cast(getpid, ctypes.c_void_p).value
        if address is None:  # pragma: no cover - a C library without getpid
            return None
        _silent = llama_cpp.llama_log_callback(address)
    return _silent


@contextmanager
def quiet_llama_logs(enabled: bool = True) -> Iterator[bool]:
    """llama.cpp's log lines dropped in C while the block runs (a model load beside a thread holding
    the GIL: see `_c_no_op`), then forwarded again; yields whether they were dropped. Not when
    `enabled` is false, nor when the `qwen_runtime.llama_cpp` logger wants DEBUG lines (someone asked
    to read all of them), nor where no C no-op exists. Nested and concurrent blocks forward again
    when the last one ends."""
    global _quiet_depth
    from .lib import llama_cpp

    silent = _c_no_op() if enabled and not llama_log.isEnabledFor(logging.DEBUG) else None
    if silent is None:
        yield False
        return
    with _quiet_lock:
        _quiet_depth += 1
        llama_cpp.llama_log_set(silent, ctypes.c_void_p(0))
    try:
        yield True
    finally:
        with _quiet_lock:
            _quiet_depth -= 1
            if _quiet_depth == 0:
                _forward()

