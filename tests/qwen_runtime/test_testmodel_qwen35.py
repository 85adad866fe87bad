"""The tiny Qwen 3.5-shaped model: a hybrid (Gated DeltaNet + attention) GGUF that llama.cpp runs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import llama_cpp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llama_cpp import Llama
from qwen_runtime.cli import main
from qwen_runtime.models.chat_format import render_prompt
from qwen_runtime.models.qwen3_template import QWEN3_CHAT_TEMPLATE
from qwen_runtime.testing.testmodel import TEST_ARCHS, build_test_tokenizer, default_chat_template, write_test_gguf
from qwen_runtime.testing.testmodel_qwen35 import ADDED_TOKENS, MODEL_NAME, SHAPE
from qwen_runtime.types import UserMessage

CONTROL = [t for t, special in ADDED_TOKENS if special]
TEXT_TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]


@pytest.fixture(scope="module")
def llm(tiny_hybrid_gguf: Path) -> Iterator[Llama]:
    model = Llama(str(tiny_hybrid_gguf), n_ctx=1024, verbose=False, seed=0)
    yield model
    model.close()


def tokenize(llm: Llama, text: str, *, special: bool = True) -> list[int]:
    return list(llm.tokenize(text.encode(), add_bos=False, special=special))


def prompt_tokens(llm: Llama, text: str = "Hello! What does this function return?") -> list[int]:
    return tokenize(llm, render_prompt(QWEN3_CHAT_TEMPLATE, [UserMessage(text)], enable_thinking=False))


def test_loads_as_qwen35_with_its_hybrid_layout(llm: Llama, tiny_hybrid_gguf: Path) -> None:
    meta = llm.metadata
    assert tiny_hybrid_gguf.stat().st_size < 1_500_000
    assert meta["general.architecture"] == "qwen35" and meta["general.name"] == MODEL_NAME
    assert meta["tokenizer.ggml.pre"] == "qwen35"
    assert int(meta["qwen35.block_count"]) == 4 and int(meta["qwen35.full_attention_interval"]) == 4
    assert llama_cpp.llama_model_is_hybrid(llm.model)  # recurrent layers beside attention layers
    assert llm.detokenize([llm.token_eos()], special=True) == b"<|im_end|>"


def test_the_dense_model_is_not_hybrid(tiny_gguf: Path) -> None:
    dense = Llama(str(tiny_gguf), n_ctx=256, verbose=False)
    try:
        assert not llama_cpp.llama_model_is_hybrid(dense.model)
    finally:
        dense.close()


def test_three_of_four_layers_are_linear_attention() -> None:
    assert SHAPE.layer_types() == ["linear_attention"] * 3 + ["full_attention"]


@pytest.mark.parametrize("token", [t for t, _ in ADDED_TOKENS])
def test_qwen35_added_tokens_are_single_tokens(llm: Llama, token: str) -> None:
    assert len(tokenize(llm, token)) == 1


@pytest.mark.parametrize("token", CONTROL)
def test_control_tokens_stay_text_unless_special_is_asked_for(llm: Llama, token: str) -> None:
    assert len(tokenize(llm, token, special=False)) > 1


@pytest.mark.parametrize("token", TEXT_TAGS)
def test_think_and_tool_tags_are_tokens_the_model_writes_as_text(llm: Llama, token: str) -> None:
    assert len(tokenize(llm, token, special=False)) == 1


def test_the_tokenizer_holds_qwen35s_added_tokens_in_qwen_order() -> None:
    tokenizer = build_test_tokenizer("qwen35")
    decoder = tokenizer.get_added_tokens_decoder()
    in_order = [(decoder[i].content, decoder[i].special) for i in sorted(decoder)]
    assert in_order == list(ADDED_TOKENS)
    assert in_order[:3] == [("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True)]
    assert in_order[-2:] == [("<think>", False), ("</think>", False)]


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40))
def test_any_unicode_text_round_trips(llm: Llama, text: str) -> None:
    ids = llm.tokenize(text.encode(), add_bos=False, special=False)
    assert llm.detokenize(ids).decode() == text


def test_generates_and_greedy_output_repeats(llm: Llama) -> None:
    ids = prompt_tokens(llm)
    first: Any = llm.create_completion(ids, max_tokens=12, temperature=0.0)
    llm.reset()
    again: Any = llm.create_completion(ids, max_tokens=12, temperature=0.0)
    assert first["usage"]["completion_tokens"] > 0
    assert first["choices"][0]["text"] == again["choices"][0]["text"]


def test_its_state_is_recurrent_a_partial_removal_fails(llm: Llama) -> None:
    """What the prompt cache relies on: the state cannot be cut back to a shorter prefix."""
    ids = prompt_tokens(llm)
    llm.reset()
    llm._ctx.kv_cache_clear()
    llm.eval(ids)
    memory = llama_cpp.llama_get_memory(llm.ctx)
    assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == len(ids) - 1
    assert not llama_cpp.llama_memory_seq_rm(memory, 0, len(ids) // 2, -1)
    assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == len(ids) - 1  # refused, not half-done
    assert llama_cpp.llama_memory_seq_rm(memory, 0, 0, -1)  # dropping the whole sequence works
    assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == -1
    llm.reset()


def test_the_dense_models_state_can_be_cut_back(tiny_gguf: Path) -> None:
    dense = Llama(str(tiny_gguf), n_ctx=256, verbose=False)
    try:
        ids = prompt_tokens(dense)
        dense.eval(ids)
        memory = llama_cpp.llama_get_memory(dense.ctx)
        assert llama_cpp.llama_memory_seq_rm(memory, 0, len(ids) // 2, -1)
        assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == len(ids) // 2 - 1
    finally:
        dense.close()


def test_same_seed_gives_identical_files_and_another_seed_does_not(tmp_path: Path, tiny_hybrid_gguf: Path) -> None:
    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    assert digest(write_test_gguf(tmp_path / "again.gguf", arch="qwen35")) == digest(tiny_hybrid_gguf)
    assert digest(write_test_gguf(tmp_path / "other.gguf", arch="qwen35", seed=0)) != digest(tiny_hybrid_gguf)


def test_the_chat_template_is_a_parameter(tmp_path: Path) -> None:
    template = "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endfor %}"
    path = write_test_gguf(tmp_path / "templated.gguf", arch="qwen35", chat_template=template)
    model = Llama(str(path), n_ctx=256, verbose=False)
    try:
        assert model.metadata["tokenizer.chat_template"] == template
    finally:
        model.close()
    assert all(default_chat_template(arch) for arch in TEST_ARCHS)


def test_cli_makes_the_hybrid_model_and_generates_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tiny_hybrid_gguf: Path
) -> None:
    out = tmp_path / "tiny-qwen35.gguf"
    assert main(["make-test-model", "--arch", "qwen35", str(out)]) == 0
    assert Path(capsys.readouterr().out.strip()) == out
    assert out.read_bytes() == tiny_hybrid_gguf.read_bytes()  # the model the test suite runs on
    argv = ["generate", "-m", str(out), "-p", "hi", "--no-think", "--max-tokens", "8", "--seed", "1",
            "--n-ctx", "512", "--json"]  # fmt: skip
    assert main(argv) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["finish_reason"] in ("stop", "length")
    assert 0 < reply["usage"]["completion_tokens"] <= 8


def test_cli_arch_choices_are_the_test_archs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["make-test-model", "--help"]) == 0
    shown = capsys.readouterr().out
    assert "{" + ",".join(TEST_ARCHS) + "}" in shown
    assert main(["make-test-model", "--arch", "llama", "x.gguf"]) == 2


# ---------------------------------------------------------------- Hugging Face (transformers' qwen3_5)

SAMPLES = [
    "Hello, world!",
    "def main(argv: list[str]) -> int:\n    return 0\n",
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    "<|vision_start|><|image_pad|><|vision_end|> <tool_call>\n{}\n</tool_call>",
    "café 日本語 🙂 naïve e\u0301 two  spaces\r\n\ttab",
]


@pytest.fixture(scope="module")
def hf(tiny_hybrid_hf_dir: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_hybrid_hf_dir), AutoModelForCausalLM.from_pretrained(tiny_hybrid_hf_dir)


@pytest.mark.slow  # imports torch and transformers (several seconds)
def test_hf_folder_is_a_qwen3_5_model_with_a_hybrid_layout(hf: tuple[Any, Any]) -> None:
    _, model = hf
    assert type(model).__name__ == "Qwen3_5ForCausalLM"
    assert model.config.layer_types == SHAPE.layer_types()


@pytest.mark.slow  # imports torch and transformers (several seconds)
def test_hf_tokenizer_agrees_with_the_gguf(hf: tuple[Any, Any], llm: Llama) -> None:
    tokenizer, _ = hf
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    for text in SAMPLES:
        assert tokenizer(text, add_special_tokens=False)["input_ids"] == tokenize(llm, text), text


@pytest.mark.slow  # imports torch and transformers (several seconds)
def test_hf_model_generates_the_same_greedy_tokens_as_the_gguf(hf: tuple[Any, Any], llm: Llama) -> None:
    import torch

    tokenizer, model = hf
    ids = prompt_tokens(llm)
    assert tokenizer(render_prompt(QWEN3_CHAT_TEMPLATE, [UserMessage("Hello! What does this function return?")],
                                   enable_thinking=False), add_special_tokens=False)["input_ids"] == ids
    out = model.generate(torch.tensor([ids]), max_new_tokens=6, do_sample=False)
    hf_new = out[0, len(ids) :].tolist()
    llama_new = list(islice(llm.generate(ids, temp=0.0, reset=True), 6))
    assert len(hf_new) > 0
    assert hf_new == llama_new[: len(hf_new)]


def test_cli_mtp_adds_the_multi_token_prediction_block_and_the_generated_text_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tiny_hybrid_gguf: Path
) -> None:
    """`--mtp` writes llama.cpp's qwen35 `nextn` block after the four layers; the trunk is the tiny
    hybrid's own, so what the model generates is unchanged and its MTP head loads."""
    import gguf

    out = tmp_path / "tiny-mtp.gguf"
    assert main(["make-test-model", "--arch", "qwen35", "--mtp", str(out)]) == 0
    assert Path(capsys.readouterr().out.strip()) == out
    reader = gguf.GGUFReader(str(out))
    fields = {name: reader.fields[name].contents() for name in ("qwen35.block_count", "qwen35.nextn_predict_layers")}
    assert fields == {"qwen35.block_count": SHAPE.n_layer + 1, "qwen35.nextn_predict_layers": 1}
    names = {t.name for t in reader.tensors}
    assert {f"blk.{SHAPE.n_layer}.nextn.{n}.weight" for n in ("eh_proj", "enorm", "hnorm")} <= names
    trunk = {t.name: bytes(t.data) for t in gguf.GGUFReader(str(tiny_hybrid_gguf)).tensors}
    assert all(bytes(t.data) == trunk[t.name] for t in reader.tensors if t.name in trunk)
    argv = ["generate", "-m", "{}", "-p", "hi", "--no-think", "--max-tokens", "8", "--n-ctx", "512", "--json",
            "--temperature", "0"]
    replies = []
    for path in (out, tiny_hybrid_gguf):
        assert main([a.format(path) for a in argv]) == 0
        replies.append(json.loads(capsys.readouterr().out)["text"])
    assert replies[0] == replies[1]


@pytest.mark.parametrize(
    "argv", [["--shape", "0.8b"], ["--mtp"], ["--arch", "qwen35", "--shape", "4b", "--format", "hf"]]
)
def test_cli_bench_shapes_and_mtp_are_qwen35_ggufs_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(["make-test-model", str(tmp_path / "x.gguf"), *argv]) == 1
    assert "--arch qwen35" in capsys.readouterr().err
    assert not (tmp_path / "x.gguf").exists()
