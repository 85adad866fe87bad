"""Models by name: loading a runtime with onde's errors, telling GGUF models apart, the registry list."""

from __future__ import annotations

from pathlib import Path

import pytest
from onde import BadModelName, ChatEngine, ModelBuild, Runtime, is_gguf_model, list_models, load_runtime


def test_load_runtime_by_name(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text('{"turns": [{"text": "hi"}]}', encoding="utf-8")
    runtime = load_runtime(f"scripted:{scenario}", n_ctx=4096)  # options a backend does not take are dropped
    assert isinstance(runtime, Runtime) and runtime.name == "scripted"
    assert ChatEngine(runtime).send_message("hello").text == "hi"


def test_a_name_that_names_nothing_is_a_bad_model_name_and_a_value_error() -> None:
    with pytest.raises(BadModelName, match="bad runtime name 'no-such-model'") as caught:
        load_runtime("no-such-model")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, ModelBuild)
    assert "qwen3-8b" in str(caught.value)  # the accepted forms are listed
    with pytest.raises(BadModelName):
        is_gguf_model("")


def test_a_model_that_cannot_be_loaded_is_model_build_with_the_cause(tmp_path: Path) -> None:
    with pytest.raises(ModelBuild, match=r"missing\.json") as caught:
        load_runtime(f"scripted:{tmp_path / 'missing.json'}")
    assert not isinstance(caught.value, BadModelName) and caught.value.__cause__ is not None


def test_gguf_models_are_the_ones_whose_context_size_the_caller_picks() -> None:
    for name in ("qwen3-8b", "./models/any.gguf", "hf:owner/repo/file.gguf"):
        assert is_gguf_model(name), name
    for name in ("openai:http://127.0.0.1:8080/v1#qwen3", "scripted:s.json", "transformers:./folder"):
        assert not is_gguf_model(name), name


def test_list_models_gives_the_registry_with_its_capabilities(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    models = list_models()
    assert models[0].key == "qwen3-8b" and models[0].name == "Qwen 3 8B"
    assert models[0].size_display == "4.8 GiB" and models[0].tool_capable
    coder = next(m for m in models if m.key.startswith("qwen2.5-coder"))
    assert not coder.tool_capable
    assert not any(m.is_cached() for m in models)
    first = models[0]
    snapshot = tmp_path / f"models--{first.repo_id.replace('/', '--')}" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / first.filename).write_bytes(b"GGUF")
    assert first.is_cached() and not models[1].is_cached()
