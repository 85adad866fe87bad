"""onde's `GgufModelConfig(draft=...)` takes every draft source qwen-runtime does, and the engine loads
the one it names (tiny Qwen 3.5 model with an MTP head, real llama.cpp)."""

from __future__ import annotations

from pathlib import Path

import pytest
from onde import ChatEngine, DraftSourceError, GgufModelConfig, ModelBuild
from qwen_runtime.testing.testmodel import write_test_gguf


@pytest.fixture(scope="module")
def mtp_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_gguf(tmp_path_factory.mktemp("onde-mtp") / "tiny-qwen35-mtp.gguf", arch="qwen35", mtp=True)


@pytest.mark.parametrize(
    ("draft", "source"),
    [("prompt-lookup", "PromptLookup"), ("ngram", "PromptLookup"), ("mtp", "MtpDraft"), ("none", "NoneType")],
)
def test_the_engine_loads_the_draft_source_the_config_names(mtp_gguf: Path, draft: str, source: str) -> None:
    engine = ChatEngine()
    engine.load_gguf_model(GgufModelConfig.from_path(mtp_gguf, n_ctx=256, draft=draft))
    try:
        assert type(engine._runtime.draft_source).__name__ == source  # type: ignore[union-attr]
    finally:
        engine.close()


def test_a_draft_model_path_in_the_config_is_loaded_or_refused_when_missing(mtp_gguf: Path, tmp_path: Path) -> None:
    config = GgufModelConfig.from_path(mtp_gguf, n_ctx=256, draft=str(tmp_path / "later.gguf"))  # not there yet
    with pytest.raises(ModelBuild, match="no such draft model file"):
        ChatEngine().load_gguf_model(config)


def test_a_misspelt_draft_source_is_refused_when_the_config_is_made(mtp_gguf: Path) -> None:
    with pytest.raises(DraftSourceError, match="'lookahead' is not a draft source; use prompt-lookup"):
        GgufModelConfig.from_path(mtp_gguf, draft="lookahead")
