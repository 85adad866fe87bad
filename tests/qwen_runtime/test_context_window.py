"""The context window a local GGUF gets: sized from its header to the memory, pinned by `n_ctx`."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.models.context_window import MARGIN_BYTES, choose_context
from qwen_runtime.models.gguf_info import GgufInfo, read_gguf_info
from qwen_runtime.models.registry import USABLE_SHARE
from qwen_runtime.testing.testmodel import write_test_gguf

MIB = 1024**2
LONG = 262_144  # Qwen 3.5's trained length: no step is capped by it


@pytest.fixture(scope="module")
def infos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GgufInfo]:
    folder = tmp_path_factory.mktemp("ctx")
    return {
        "dense": read_gguf_info(write_test_gguf(folder / "dense.gguf", n_ctx=LONG)),
        "hybrid": read_gguf_info(write_test_gguf(folder / "hybrid.gguf", arch="qwen35", n_ctx=LONG)),
        "moe": read_gguf_info(write_test_gguf(folder / "moe.gguf", arch="qwen35moe", n_ctx=LONG)),
        "short": read_gguf_info(write_test_gguf(folder / "short.gguf", n_ctx=40_960)),
    }


def memory_with_free(kv_room: int) -> int:
    """A machine whose usable share leaves `kv_room` bytes beside ~2 MiB of tiny weights and the margin."""
    return int((MARGIN_BYTES + 2 * MIB + kv_room) / USABLE_SHARE)


def test_the_kv_cache_is_counted_on_attention_layers_only(infos: dict[str, GgufInfo]) -> None:
    dense, hybrid, moe = infos["dense"], infos["hybrid"], infos["moe"]
    assert (dense.attention_layers, dense.recurrent_layers, dense.hybrid) == ((0, 1), (), False)
    assert dense.kv_bytes_per_token() == 2 * 2 * (16 + 16) * 2  # layers x KV heads x (K + V dims) x f16
    assert (hybrid.attention_layers, hybrid.recurrent_layers) == ((3,), (0, 1, 2))
    assert hybrid.kv_bytes_per_token() == dense.kv_bytes_per_token() // 2
    assert hybrid.recurrent_state_bytes > 0 and moe.hybrid and moe.expert_count == 4


def test_a_hybrid_gets_a_larger_window_than_a_dense_model_in_the_same_memory(infos: dict[str, GgufInfo]) -> None:
    memory = memory_with_free(12 * MIB)  # dense: 32k needs 8 MiB, 64k 16; hybrid: 64k needs 8 MiB, 128k 16
    dense = choose_context(infos["dense"], memory)
    hybrid = choose_context(infos["hybrid"], memory)
    assert (dense.n_ctx, hybrid.n_ctx) == (32_768, 65_536)
    assert "every layer keeps a KV cache" in dense.reason and "1 of 4 layers keep a KV cache" in hybrid.reason


@pytest.mark.parametrize(("free_mib", "expected"), [(1, 16_384), (5, 16_384), (9, 32_768), (17, 65_536),
                                                     (33, 131_072), (4096, 131_072)])
def test_the_largest_step_whose_kv_cache_fits_is_chosen(
    infos: dict[str, GgufInfo], free_mib: int, expected: int
) -> None:
    choice = choose_context(infos["dense"], memory_with_free(free_mib * MIB))
    assert choice.n_ctx == expected
    if free_mib == 1:
        assert "does not fit" in choice.reason


def test_the_window_never_passes_the_trained_length_and_n_ctx_pins_it(infos: dict[str, GgufInfo]) -> None:
    huge = 1024**4
    assert choose_context(infos["short"], huge).n_ctx == 32_768  # trained for 40,960
    assert "trained for 40,960" in choose_context(infos["short"], huge).reason
    assert choose_context(infos["dense"], None).n_ctx == 16_384  # memory unknown: the smallest step
    pinned = choose_context(infos["dense"], huge, pinned=5000)
    assert (pinned.n_ctx, pinned.reason) == (5000, "set by n_ctx")
    assert choose_context(infos["dense"], huge, pinned=0).n_ctx == LONG  # 0: the model's own length


def test_the_runtime_loads_with_the_chosen_window_and_says_why(infos: dict[str, GgufInfo], tiny_gguf: Path) -> None:
    rt = LlamaCppRuntime(str(tiny_gguf), draft="none")
    try:
        details = dict(rt.model_details())
        assert rt.context_size == 32_768  # the tiny model's trained length; this machine has room for it
        assert details["context window"].startswith("32,768 tokens (KV cache 8.0 MiB of ")
    finally:
        rt.close()
    pinned = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, draft="none")
    try:
        assert pinned.context_size == 2048
        assert dict(pinned.model_details())["context window"] == "2,048 tokens (set by n_ctx)"
    finally:
        pinned.close()
