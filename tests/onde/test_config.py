from __future__ import annotations

from pathlib import Path

import pytest
from onde import GgufModelConfig, SamplingConfig


def test_sampling_presets_have_the_originals_and_qwens_numbers() -> None:
    default = SamplingConfig.default()
    assert (default.temperature, default.top_p, default.max_tokens) == (0.7, 0.95, 512)
    assert SamplingConfig.deterministic().temperature == 0.0
    coding = SamplingConfig.coding()
    assert (coding.temperature, coding.top_p, coding.max_tokens) == (0.2, 0.95, 1024)
    assert (coding.frequency_penalty, coding.presence_penalty) == (1.15, 0.1)
    thinking = SamplingConfig.qwen3_thinking()
    assert (thinking.temperature, thinking.top_p, thinking.top_k, thinking.min_p) == (0.6, 0.95, 20, 0.0)
    assert thinking.enable_thinking is True
    plain = SamplingConfig.qwen3_non_thinking()
    assert (plain.temperature, plain.top_p, plain.top_k, plain.min_p) == (0.7, 0.8, 20, 0.0)
    assert plain.enable_thinking is False


def test_presets_take_overrides_and_map_to_the_runtime() -> None:
    sampling = SamplingConfig.coding(max_tokens=4096, seed=7)
    runtime = sampling.to_runtime()
    assert (runtime.max_tokens, runtime.seed, runtime.frequency_penalty) == (4096, 7, 1.15)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"temperature": -1}, "temperature"),
        ({"top_p": 0}, "top_p"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"thinking_budget": 0}, "thinking_budget"),
    ],
)
def test_bad_sampling_is_rejected(changes: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SamplingConfig(**changes)  # type: ignore[arg-type]


def test_model_constructors_name_bartowskis_files_and_tool_capability() -> None:
    eight = GgufModelConfig.qwen3_8b()
    assert (eight.repo_id, eight.filename) == ("bartowski/Qwen_Qwen3-8B-GGUF", "Qwen_Qwen3-8B-Q4_K_M.gguf")
    assert eight.size_bytes == 5_131_567_104 and eight.tool_capable
    assert eight.approx_memory_display == "4.8 GiB"
    for config in (GgufModelConfig.qwen3_14b(), GgufModelConfig.qwen3_4b(), GgufModelConfig.qwen3_1_7b()):
        assert config.tool_capable and config.filename and config.filename.endswith("-Q4_K_M.gguf")
    for config in (GgufModelConfig.qwen25_coder_3b(), GgufModelConfig.qwen25_coder_1_5b()):
        assert not config.tool_capable


def test_from_path_uses_the_file(tmp_path: Path) -> None:
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"x" * 1234)
    config = GgufModelConfig.from_path(model, n_ctx=2048)
    assert (config.name, config.resolve_path(), config.n_ctx) == ("mine", model, 2048)
    assert config.approx_memory_bytes == 1234


def test_config_needs_a_path_or_a_repo() -> None:
    with pytest.raises(ValueError, match="needs a local path or a repo_id"):
        GgufModelConfig(name="nothing")
