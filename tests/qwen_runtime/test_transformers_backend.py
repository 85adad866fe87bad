"""TransformersRuntime on the tiny random-weight Qwen 3 folder, through real torch and transformers.

What it shares with the llama.cpp backend (streaming, cancel, KV reuse, prefill, constrained tool
calls, the thinking budget) is tested on both in test_backend_contract.py.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.transformers_backend import TorchSampler, TransformersRuntime, Utf8Detokenizer
from qwen_runtime.errors import BackendUnavailable, ModelLoadError, ModelNotFoundError
from qwen_runtime.types import ChatRequest, Sampling, UserMessage


@pytest.fixture(scope="module")
def rt(tiny_hf_dir: Path) -> Iterator[TransformersRuntime]:
    import torch

    threads = torch.get_num_threads()
    runtime = TransformersRuntime(str(tiny_hf_dir), n_threads=1)  # tiny ops: threads only contend
    yield runtime
    runtime.close()
    torch.set_num_threads(threads)  # process-wide: leave other modules as they were


def ask(text: str = "What is the weather in Paris?", **kwargs: Any) -> ChatRequest:
    sampling = kwargs.pop("sampling", Sampling(max_tokens=24, seed=1))
    return ChatRequest(messages=(UserMessage(text),), sampling=sampling, **kwargs)


# ---------------------------------------------------------------- loading and prompts


def test_missing_folder_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="no-such-model"):
        TransformersRuntime(str(tmp_path / "no-such-model"))


def test_a_folder_without_a_model_is_a_load_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty-model"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="empty-model"):
        TransformersRuntime(str(empty))


def test_without_torch_the_backend_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # what `import torch` sees when it is not installed
    with pytest.raises(BackendUnavailable, match=re.escape("qwen-runtime[torch]")):
        TransformersRuntime(str(tmp_path))


def test_unknown_dtype_is_refused_before_loading(tiny_hf_dir: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"float8.*float32"):
        TransformersRuntime(str(tiny_hf_dir), dtype="float8")


# ---------------------------------------------------------------- generation


def test_greedy_matches_transformers_own_generate(rt: TransformersRuntime) -> None:
    """Our token loop and KV cache (fresh and reused) reproduce `model.generate` exactly."""
    import torch

    request = ask(
        "Please read the file", enable_thinking=False, sampling=Sampling(max_tokens=20, temperature=0)
    )
    ids = rt.tokenize(rt.prompt_text(request))
    with torch.inference_mode():
        out = rt._model.generate(torch.tensor([ids]), max_new_tokens=20, do_sample=False, eos_token_id=None)
    expected = b"".join(rt.piece(int(t)) for t in out[0, len(ids) :]).decode("utf-8", errors="replace")
    rt.clear_cache()
    assert rt.complete(request).text == expected
    again = rt.complete(request)
    assert again.usage.cached_prompt_tokens == len(ids) - 1
    assert again.text == expected


def test_multibyte_characters_split_over_tokens_come_out_whole(rt: TransformersRuntime) -> None:
    text = "日本語 🙂 café"
    tokens = rt.tokenize(text)
    assert len(tokens) > len(text.split())  # some characters really are split over tokens
    detok = Utf8Detokenizer(rt.piece)
    pieces = [detok.push(t) for t in tokens] + [detok.flush()]
    assert "".join(pieces) == text
    assert not any("\ufffd" in p for p in pieces)


# ---------------------------------------------------------------- sampling


def test_sampler_keeps_to_top_k_and_respects_masked_tokens() -> None:
    import torch

    logits = torch.tensor([5.0, 4.9, 4.8, float("-inf"), 0.0, -1.0])
    sampler = TorchSampler(Sampling(temperature=1.0, top_k=2, seed=0))
    picked = {sampler.sample(logits.clone()) for _ in range(200)}
    assert picked == {0, 1}
    greedy = TorchSampler(Sampling(temperature=0.0, presence_penalty=10.0))
    assert greedy.sample(logits.clone()) == 0
    assert greedy.sample(logits.clone()) == 1  # token 0 now carries the presence penalty
