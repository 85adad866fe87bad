"""Runtime names: one syntax for the command line, config files and the agent."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from qwen_runtime.errors import ModelNotFoundError
from qwen_runtime.models import naming
from qwen_runtime.models.naming import RuntimeKind, RuntimeSpec, load_runtime, parse_runtime_name, resolve_gguf
from qwen_runtime.models.registry import REGISTRY
from qwen_runtime.runtime import CancelToken, Runtime
from qwen_runtime.types import ChatRequest, Event, Finished, Sampling, UserMessage

# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("qwen3-8b", RuntimeSpec(kind="registry", key="qwen3-8b")),
        ("Qwen2.5-Coder-3B", RuntimeSpec(kind="registry", key="qwen2.5-coder-3b")),
        ("./models/tiny.gguf", RuntimeSpec(kind="gguf", path="./models/tiny.gguf")),
        ("/abs/Model.GGUF", RuntimeSpec(kind="gguf", path="/abs/Model.GGUF")),
        ("C:\\models\\q.gguf", RuntimeSpec(kind="gguf", path="C:\\models\\q.gguf")),
        (
            "hf:bartowski/Qwen_Qwen3-8B-GGUF/Qwen_Qwen3-8B-Q4_K_M.gguf",
            RuntimeSpec(
                kind="hf", repo_id="bartowski/Qwen_Qwen3-8B-GGUF", filename="Qwen_Qwen3-8B-Q4_K_M.gguf"
            ),
        ),
        ("hf:o/r/sub/dir/m.gguf", RuntimeSpec(kind="hf", repo_id="o/r", filename="sub/dir/m.gguf")),
        ("transformers:/tmp/tiny-hf", RuntimeSpec(kind="transformers", path="/tmp/tiny-hf")),
        (
            "openai:http://localhost:8080/v1#qwen3",
            RuntimeSpec(kind="openai", base_url="http://localhost:8080/v1", model="qwen3"),
        ),
        (
            "openai:https://api.example.com/v1/",
            RuntimeSpec(kind="openai", base_url="https://api.example.com/v1"),
        ),
        ("openai:http://h:1/v1#", RuntimeSpec(kind="openai", base_url="http://h:1/v1")),
        ("scripted:scenario.json", RuntimeSpec(kind="scripted", path="scenario.json")),
        ("  scripted: a b.json ", RuntimeSpec(kind="scripted", path="a b.json")),
    ],
)
def test_parses_every_form(name: str, spec: RuntimeSpec) -> None:
    assert parse_runtime_name(name) == spec


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("qwen3-32b", "not a known model"),
        ("model.bin", "not a known model"),
        ("ollama:qwen3", "unknown kind 'ollama'"),
        ("hf:", "nothing after 'hf:'"),
        ("hf:owner/file.gguf", "OWNER/REPO/FILE"),
        ("hf:owner//file.gguf", "no empty part"),
        ("hf:o/r/model.safetensors", "does not end in .gguf"),
        ("openai:localhost:8080", "http(s) base URL"),
        ("openai:#qwen3", "http(s) base URL"),
        ("openai:http://#m", "http(s) base URL"),
        ("transformers:", "nothing after"),
        ("scripted:  ", "nothing after"),
    ],
)
def test_bad_names_say_why_and_list_the_accepted_forms(name: str, why: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_runtime_name(name)
    message = str(info.value)
    assert why in message
    for form in (
        "qwen3-8b",
        ".gguf",
        "hf:OWNER/REPO/FILE.gguf",
        "transformers:PATH",
        "openai:BASE_URL#MODEL",
        "scripted:FILE",
    ):
        assert form in message


_segment = st.text(st.sampled_from("abcXYZ019-_."), min_size=1, max_size=12).filter(
    lambda s: s not in (".", "..")
)


@st.composite
def specs(draw: st.DrawFn) -> RuntimeSpec:
    kind: RuntimeKind = draw(st.sampled_from(list(get_args(RuntimeKind))))
    if kind == "registry":
        return RuntimeSpec(kind="registry", key=draw(st.sampled_from([e.key for e in REGISTRY])))
    if kind == "gguf":
        parts = draw(st.lists(_segment, min_size=1, max_size=3))
        return RuntimeSpec(kind="gguf", path="/".join(parts) + ".gguf")
    if kind == "hf":
        sub = draw(st.lists(_segment, max_size=2))
        filename = "/".join([*sub, draw(_segment) + ".gguf"])
        return RuntimeSpec(kind="hf", repo_id=f"{draw(_segment)}/{draw(_segment)}", filename=filename)
    if kind == "openai":
        host = draw(st.sampled_from(["localhost", "127.0.0.1", "api.example.com"]))
        port = draw(st.one_of(st.none(), st.integers(1, 65535)))
        path = draw(st.sampled_from(["", "/v1", "/api/v1"]))
        base = f"{draw(st.sampled_from(['http', 'https']))}://{host}" + (f":{port}" if port else "") + path
        model = draw(st.one_of(st.none(), _segment))
        return RuntimeSpec(kind="openai", base_url=base, model=model)
    path = "/".join(draw(st.lists(_segment, min_size=1, max_size=3)))
    return RuntimeSpec(kind=kind, path=path)


@given(specs())
def test_canonical_names_round_trip(spec: RuntimeSpec) -> None:
    assert parse_runtime_name(spec.name) == spec


@given(st.text(max_size=60))
def test_any_text_parses_or_gets_a_value_error_listing_the_forms(text: str) -> None:
    try:
        spec = parse_runtime_name(text)
    except ValueError as exc:
        assert "A runtime name is one of" in str(exc)
    else:
        assert spec.kind in ("registry", "gguf", "hf", "transformers", "openai", "scripted")


# ---------------------------------------------------------------- loading


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"turns": [{"text": "hello there", "reasoning": "say hi"}]}))
    return path


def test_load_scripted_runtime_streams_the_scenario(tmp_path: Path) -> None:
    runtime = load_runtime(f"scripted:{_scenario(tmp_path)}")
    completion = runtime.complete(ChatRequest(messages=(UserMessage("hi"),)))
    assert (completion.text, completion.reasoning) == ("hello there", "say hi")


def test_options_a_backend_does_not_take_are_dropped(tmp_path: Path) -> None:
    runtime = load_runtime(
        f"scripted:{_scenario(tmp_path)}", n_ctx=4096, n_gpu_layers=99, device="cpu", context_size=1234
    )
    assert runtime.context_size == 1234
    assert runtime.complete(ChatRequest(messages=(UserMessage("hi"),))).text == "hello there"


def test_missing_local_files_are_model_not_found(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="scenario file not found"):
        load_runtime(f"scripted:{tmp_path / 'none.json'}")
    with pytest.raises(ModelNotFoundError, match="GGUF file not found"):
        load_runtime(str(tmp_path / "none.gguf"))
    with pytest.raises(ModelNotFoundError, match="transformers model folder not found"):
        load_runtime(f"transformers:{tmp_path / 'none'}")


class FakeServerRuntime(Runtime):
    """Stands in for the OpenAI-compatible backend to see exactly what load_runtime passes."""

    def __init__(
        self, base_url: str, model: str | None = None, *, api_key: str | None = None, **opts: Any
    ) -> None:
        self.args = (base_url, model, api_key, opts)

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        yield Finished("stop")


def test_openai_gets_url_model_and_only_its_own_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(naming._BACKENDS, "openai", f"{__name__}:FakeServerRuntime")
    runtime = load_runtime("openai:http://localhost:8080/v1#qwen3", api_key="k", n_ctx=8192, device="cpu")
    assert isinstance(runtime, FakeServerRuntime)
    assert runtime.args == ("http://localhost:8080/v1", "qwen3", "k", {})


def test_registry_model_offline_and_not_cached_is_a_clear_error(
    hub_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError, match=r"Qwen_Qwen3-8B-Q4_K_M\.gguf"):
        load_runtime("qwen3-8b")


def test_hf_names_download_through_the_hub(fake_hub: Any, hub_cache: Path) -> None:
    fake_hub.add("someone/Tiny-GGUF", "tiny.gguf", b"GGUF-bytes")
    path = resolve_gguf(parse_runtime_name("hf:someone/Tiny-GGUF/tiny.gguf"), progress=False)
    assert Path(path).read_bytes() == b"GGUF-bytes" and Path(path).is_relative_to(hub_cache)


def test_naming_does_not_import_heavy_backends() -> None:
    code = (
        "import sys, qwen_runtime.models.naming, qwen_runtime.models.registry\n"
        "heavy = [m for m in ('torch', 'transformers', 'llama_cpp', 'huggingface_hub') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_hf_name_downloads_a_real_gguf_and_loads_it_with_llama_cpp(fake_hub: Any, tmp_path: Path) -> None:
    from qwen_runtime.testing.testmodel import write_test_gguf

    gguf = write_test_gguf(tmp_path / "tiny.gguf", seed=1)
    fake_hub.add("someone/Tiny-GGUF", "tiny.gguf", gguf.read_bytes())
    runtime = load_runtime("hf:someone/Tiny-GGUF/tiny.gguf", n_ctx=512, progress=False, device="cpu")
    try:
        sampling = Sampling(max_tokens=4, seed=1)
        completion = runtime.complete(
            ChatRequest(messages=(UserMessage("hi"),), sampling=sampling, enable_thinking=False)
        )
        assert completion.finish_reason in ("stop", "length")
        assert runtime.context_size == 512
    finally:
        runtime.close()
    assert any(method == "GET" for method, _ in fake_hub.requests)


@pytest.mark.parametrize(("key", "tools"), [("qwen2.5-coder-1.5b", False), ("qwen3-1.7b", True)])
def test_registry_models_carry_whether_they_can_call_tools(
    key: str, tools: bool, fake_hub: Any, tmp_path: Path
) -> None:
    """A registry model that cannot call tools is never offered any (sigit and onde read this)."""
    from qwen_runtime.models.registry import get_model
    from qwen_runtime.testing.testmodel import write_test_gguf

    entry = get_model(key)
    fake_hub.add(entry.repo_id, entry.filename, write_test_gguf(tmp_path / "m.gguf").read_bytes())
    runtime = load_runtime(key, n_ctx=256, progress=False)
    try:
        assert runtime.supports_tools is tools
    finally:
        runtime.close()
