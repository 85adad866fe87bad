"""The llama.cpp build as diagnostics see it, its log lines routed into logging, and a closed model."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.build import LOGGER_NAME, LlamaBuild, _LineForwarder, llama_build, quiet_llama_logs
from qwen_runtime.backends.llamacpp.load import Placement, open_llama
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.errors import ModelLoadError, QwenRuntimeError
from qwen_runtime.types import ChatRequest, UserMessage


def test_this_build_reports_its_cpu_features_and_gpu_offload() -> None:
    build = llama_build()
    assert build.system_info and build.cpu_features  # every x86-64 or arm64 build has some
    assert build.default_gpu_layers == (-1 if build.gpu_offload else 0)


def test_cpu_features_are_the_ones_marked_on() -> None:
    build = LlamaBuild("0.3.36", "CPU : SSE3 = 1 | AVX = 1 | AVX512 = 0 | AMX_INT8 = 1 | ", gpu_offload=True)
    assert build.cpu_features == ("SSE3", "AVX", "AMX_INT8")
    assert build.default_gpu_layers == -1


def test_pieces_join_into_lines_at_ggml_levels(caplog: pytest.LogCaptureFixture) -> None:
    forward = _LineForwarder()
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        forward(3, b"llama_context: n_ctx_seq (16384) > n_ctx_train (4096)", None)  # WARN, no newline yet
        forward(5, b" -- possible training context overflow\n", None)  # CONT: the same line
        forward(2, b"llama_model_loader: loaded meta data\n", None)  # INFO
        forward(4, b"first error\nsecond error\n", None)  # ERROR, two lines in one call
        forward(1, b"a debug line\n", None)
    got = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER_NAME]
    assert got == [
        (logging.WARNING,
         "llama_context: n_ctx_seq (16384) > n_ctx_train (4096) -- possible training context overflow"),
        (logging.INFO, "llama_model_loader: loaded meta data"),
        (logging.ERROR, "first error"),
        (logging.ERROR, "second error"),
        (logging.DEBUG, "a debug line"),
    ]


def test_a_closed_model_raises_instead_of_touching_freed_memory(tiny_gguf: Path) -> None:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=512, n_gpu_layers=0)
    runtime.close()
    with pytest.raises(QwenRuntimeError, match="is closed"):
        runtime.prefill(ChatRequest(messages=(UserMessage("hello"),)))


def test_gpu_layers_default_to_all_when_llama_cpp_has_a_gpu_backend(tiny_gguf: Path) -> None:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=512)
    try:
        assert runtime.n_gpu_layers == (-1 if llama_build().gpu_offload else 0)
    finally:
        runtime.close()
    chosen = LlamaCppRuntime(str(tiny_gguf), n_ctx=512, n_gpu_layers=0)
    try:
        assert chosen.n_gpu_layers == 0
    finally:
        chosen.close()


class CountingForwarder:
    """Counts llama.cpp's calls into Python: each one needs the GIL."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = _LineForwarder.__call__

        def counted(forwarder: _LineForwarder, level: int, text: bytes | None, user_data: object) -> None:
            self.calls += 1
            original(forwarder, level, text, user_data)

        monkeypatch.setattr(_LineForwarder, "__call__", counted)


def load(path: Path, *, quiet: bool, kv_cache_type: str = "f16", counter: CountingForwarder | None = None) -> int:
    """Load and close `path`; how many calls into Python the load made (before the close)."""
    placement = Placement(n_threads=1, n_threads_batch=1, n_gpu_layers=0, extra_buffers=False)
    handle = open_llama(path, 512, placement, snapshots=0, verbose=False, kv_cache_type=kv_cache_type, quiet=quiet)
    calls = counter.calls if counter is not None else 0
    handle.llm.close()
    return calls


def test_a_quiet_load_never_calls_into_python_and_the_next_load_logs_again(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # a load beside llguidance's view build (a Rust call holding the GIL for a second) must not wait
    # for the GIL at each of its log lines: quiet, llama.cpp logs into a C function, not into Python
    counter = CountingForwarder(monkeypatch)
    with caplog.at_level(logging.INFO):
        assert load(tiny_gguf, quiet=True, counter=counter) == 0
        assert not [r for r in caplog.records if r.name == LOGGER_NAME]
        assert "load lines not logged" in caplog.text  # the log says why they are missing
        assert load(tiny_gguf, quiet=False, counter=counter) > 10
    assert any("llama_context" in r.getMessage() for r in caplog.records if r.name == LOGGER_NAME)


def test_debug_logging_keeps_llama_cpps_lines_in_a_quiet_load(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    counter = CountingForwarder(monkeypatch)
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME), quiet_llama_logs() as dropped:
        calls = load(tiny_gguf, quiet=True, counter=counter)
    assert not dropped and calls > 10


def test_a_quiet_load_that_fails_still_says_llama_cpps_reason(tiny_gguf: Path) -> None:
    # the tiny model's 16-wide heads cannot take a q8_0 KV cache: llama.cpp says why in a log line
    with pytest.raises(ModelLoadError, match="does not divide n_embd_head_k=16"):
        load(tiny_gguf, quiet=True, kv_cache_type="q8_0")


def test_after_a_failed_quiet_load_llama_cpp_logs_again(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(ModelLoadError):
        load(tiny_gguf, quiet=True, kv_cache_type="q8_0")
    counter = CountingForwarder(monkeypatch)
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        assert load(tiny_gguf, quiet=False, counter=counter) > 10
