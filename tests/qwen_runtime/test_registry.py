"""The model registry: the names users type and the files they resolve to."""

from __future__ import annotations

import pytest
from qwen_runtime.errors import ModelNotFoundError
from qwen_runtime.models.registry import (
    DEFAULT_MODEL,
    REGISTRY,
    default_model_for,
    get_model,
    human_size,
    memory_bytes,
)

GIB = 1024**3


def test_qwen3_8b_keeps_its_known_file() -> None:
    entry = get_model("qwen3-8b")
    assert entry.repo_id == "bartowski/Qwen_Qwen3-8B-GGUF"
    assert entry.filename == "Qwen_Qwen3-8B-Q4_K_M.gguf"
    assert entry.size_bytes == 5_131_567_104
    assert entry.tool_capable


def test_default_model_is_the_candidate_for_this_machines_memory() -> None:
    assert default_model_for(memory_bytes()) == DEFAULT_MODEL
    entry = get_model(DEFAULT_MODEL)
    assert entry.key.startswith(("qwen3.5-", "qwen3.6-")) and entry.tool_capable


@pytest.mark.parametrize(
    ("memory", "expected"),
    [
        (2 * GIB, "qwen3.5-0.8b"),  # nothing fits: the smallest
        (4 * GIB, "qwen3.5-2b"),
        (8 * GIB, "qwen3.5-4b"),
        (16 * GIB, "qwen3.5-9b"),
        (28 * GIB, "qwen3.5-9b"),  # 22 GB of weights + room is more than 75% of 28 GiB
        (32 * GIB, "qwen3.6-35b-a3b"),  # an MoE with 3B active: about as fast as a dense 3B
        (128 * GIB, "qwen3.6-35b-a3b"),  # the dense 27Bs are never the default: slow on a CPU
        (None, "qwen3.5-9b"),
    ],
)
def test_default_model_fits_the_memory_with_room_for_the_kv_cache(memory: int | None, expected: str) -> None:
    assert default_model_for(memory) == expected
    if memory is not None and expected != "qwen3.5-0.8b":
        assert get_model(expected).size_bytes < memory * 0.75


def test_qwen35_family_and_qwen3_coder_from_unsloth() -> None:
    for size in ("0.8B", "2B", "4B", "9B", "27B", "35B-A3B"):
        entry = get_model(f"qwen3.5-{size}")
        assert (entry.repo_id, entry.filename) == (f"unsloth/Qwen3.5-{size}-GGUF", f"Qwen3.5-{size}-Q4_K_M.gguf")
        assert entry.context_length == 262144 and entry.tool_capable and entry.params == size
    coder = get_model("qwen3-coder-30b-a3b")
    assert coder.repo_id == "unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF"
    assert coder.filename == "Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf"
    assert coder.size_bytes == 18_556_689_568
    sizes = [get_model(f"qwen3.5-{s}").size_bytes for s in ("0.8b", "2b", "4b", "9b", "27b", "35b-a3b")]
    assert sizes == sorted(sizes)


@pytest.mark.parametrize(
    ("key", "repo_id", "filename"),
    [
        ("qwen3-14b", "bartowski/Qwen_Qwen3-14B-GGUF", "Qwen_Qwen3-14B-Q4_K_M.gguf"),
        ("qwen3-4b", "bartowski/Qwen_Qwen3-4B-GGUF", "Qwen_Qwen3-4B-Q4_K_M.gguf"),
        ("qwen3-1.7b", "bartowski/Qwen_Qwen3-1.7B-GGUF", "Qwen_Qwen3-1.7B-Q4_K_M.gguf"),
        (
            "qwen2.5-coder-3b",
            "bartowski/Qwen2.5-Coder-3B-Instruct-GGUF",
            "Qwen2.5-Coder-3B-Instruct-Q4_K_M.gguf",
        ),
        (
            "qwen2.5-coder-1.5b",
            "bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF",
            "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
        ),
    ],
)
def test_every_model_resolves_to_its_bartowski_file(key: str, repo_id: str, filename: str) -> None:
    entry = get_model(key)
    assert (entry.repo_id, entry.filename) == (repo_id, filename)


def test_only_qwen3_models_are_tool_capable() -> None:
    capable = {e.key for e in REGISTRY if e.tool_capable}
    assert capable == {e.key for e in REGISTRY if e.key.startswith("qwen3")}
    assert len(REGISTRY) == 17 and len({e.key for e in REGISTRY}) == 17


def test_sizes_grow_with_parameter_count() -> None:
    sizes = [get_model(k).size_bytes for k in ("qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b")]
    assert sizes == sorted(sizes) and sizes[0] > 10**9
    assert get_model("qwen2.5-coder-1.5b").size_bytes < get_model("qwen2.5-coder-3b").size_bytes


def test_lookup_ignores_case_and_spaces() -> None:
    assert get_model("  Qwen3-8B ") is get_model("qwen3-8b")


def test_unknown_key_lists_the_known_ones() -> None:
    with pytest.raises(ModelNotFoundError) as info:
        get_model("qwen3-32b")
    message = str(info.value)
    assert "qwen3-32b" in message
    assert all(e.key in message for e in REGISTRY)


def test_human_size() -> None:
    assert human_size(5_131_567_104) == "4.8 GiB"
    assert human_size(512) == "512 B"
    assert human_size(3 * 1024 * 1024) == "3.0 MiB"


@pytest.mark.parametrize(
    ("key", "repo_id", "filename", "template", "params"),
    [
        ("qwen3.6-35b-a3b", "unsloth/Qwen3.6-35B-A3B-GGUF", "Qwen3.6-35B-A3B-Q4_K_M.gguf", "qwen3.6", "35B-A3B"),
        ("qwen3.6-27b", "unsloth/Qwen3.6-27B-GGUF", "Qwen3.6-27B-Q4_K_M.gguf", "qwen3.6", "27B"),
        ("qwen3.8-27b", "unsloth/Qwen3.8-27B-GGUF", "Qwen3.8-27B-Q4_K_M.gguf", "qwen3.8", "27B"),
        ("qwen3-coder-next", "unsloth/Qwen3-Coder-Next-GGUF", "Qwen3-Coder-Next-Q4_K_M.gguf", "qwen3-coder",
         "80B-A3B"),
    ],
)
def test_the_2026_models_with_their_files_templates_and_memory(
    key: str, repo_id: str, filename: str, template: str, params: str
) -> None:
    entry = get_model(key)
    assert (entry.repo_id, entry.filename, entry.template, entry.params) == (repo_id, filename, template, params)
    assert entry.tool_capable and entry.context_length == 262144
    assert not entry.size_exact and entry.size_display.startswith("~")  # estimates: README says so
    assert entry.memory_needed > entry.size_bytes
    assert entry.fits(None) is None and entry.fits(entry.memory_needed * 2) and not entry.fits(entry.size_bytes)
