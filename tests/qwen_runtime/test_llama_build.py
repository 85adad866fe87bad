"""The llama.cpp build as diagnostics see it, its log lines routed into logging, and a closed model."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from qwen_runtime.backends.llama_build import LOGGER_NAME, LlamaBuild, _LineForwarder, llama_build
from qwen_runtime.backends.llamacpp import LlamaCppRuntime
from qwen_runtime.errors import QwenRuntimeError
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
