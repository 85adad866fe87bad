"""`preserve_thinking` and `reasoning_effort` from onde's SamplingConfig reach the model's template
(Qwen 3.8's takes both) and are refused by name on a model whose template takes neither."""

from __future__ import annotations

from pathlib import Path

import pytest
from onde import ChatEngine, ChatMessage, GgufModelConfig, Inference, SamplingConfig
from qwen_runtime.testing.testmodel import write_test_gguf

pytestmark = pytest.mark.slow

LOW = SamplingConfig.qwen3_thinking(max_tokens=8, seed=0, reasoning_effort="low", preserve_thinking=False)


def test_a_bad_effort_is_refused_when_the_config_is_made() -> None:
    with pytest.raises(ValueError, match=r"reasoning_effort must be one of low, medium, xhigh, got 'high'"):
        SamplingConfig(reasoning_effort="high")


def test_the_options_reach_qwen38s_template(tmp_path: Path) -> None:
    """Qwen 3.8 puts an effort instruction in the system turn: xhigh's is longer than low's, and medium
    has none, so the prompt's length shows which effort the template got."""
    model = write_test_gguf(tmp_path / "q38.gguf", template="qwen3.8")
    engine = ChatEngine()
    engine.load_gguf_model(GgufModelConfig.from_path(model, n_ctx=2048), None, LOW)
    try:
        sizes = {}
        for effort in ("low", "medium", "xhigh"):
            result = engine.generate([ChatMessage.user("hello")], LOW.with_(reasoning_effort=effort))
            sizes[effort] = result.usage.prompt_tokens
    finally:
        engine.unload_model()
    assert sizes["medium"] < sizes["low"] < sizes["xhigh"], sizes


def test_a_template_without_the_options_refuses_them_by_name(tiny_hybrid_gguf: Path) -> None:
    engine = ChatEngine()
    engine.load_gguf_model(GgufModelConfig.from_path(tiny_hybrid_gguf, n_ctx=2048), None, LOW)
    try:
        with pytest.raises(Inference, match="chat template does not take"):
            engine.generate([ChatMessage.user("hello")], LOW)
    finally:
        engine.unload_model()
