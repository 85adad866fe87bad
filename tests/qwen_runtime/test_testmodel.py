"""The tiny test model: a real GGUF and a real transformers folder that behave like Qwen 3's format."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llama_cpp import Llama
from qwen_runtime.models.chat_format import render_prompt
from qwen_runtime.models.qwen3_template import QWEN3_CHAT_TEMPLATE
from qwen_runtime.testing.testmodel import MODEL_NAME, build_test_tokenizer, write_test_gguf
from qwen_runtime.types import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
    message_to_dict,
)

SAMPLES = [
    "Hello, world!",
    "def main(argv: list[str]) -> int:\n    return 0\n",
    '{"name": "read_file", "arguments": {"path": "src/main.py"}}',
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    "<tool_call>\n{}\n</tool_call><tool_response>ok</tool_response>",
    "café 日本語 🙂  two  spaces\r\n\ttab",
    "",
]

CONVERSATION: list[Message] = [
    SystemMessage("You are terse."),
    UserMessage("Read a"),
    AssistantMessage(
        content="Reading.", reasoning="Need a.", tool_calls=(ToolCall("1", "read_file", {"path": "日本"}),)
    ),
    ToolMessage(tool_call_id="1", content="A"),
    ToolMessage(tool_call_id="2", content="B"),
    AssistantMessage(content="Done.", reasoning="All read."),
    UserMessage("Thanks"),
    AssistantMessage(content="", reasoning="Short.", tool_calls=(ToolCall("3", "read_file", {"path": "b"}),)),
    ToolMessage(tool_call_id="3", content="C"),
]
TOOLS = (
    ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}),
)


@pytest.fixture(scope="module")
def llm(tiny_gguf: Path) -> Iterator[Llama]:
    model = Llama(str(tiny_gguf), n_ctx=1024, verbose=False, seed=0)
    yield model
    model.close()


def tokenize(llm: Llama, text: str) -> list[int]:
    return list(llm.tokenize(text.encode(), add_bos=False, special=True))


# ---------------------------------------------------------------- GGUF


def test_gguf_loads_with_qwen3_metadata_and_template(llm: Llama, tiny_gguf: Path) -> None:
    assert tiny_gguf.stat().st_size < 1_000_000
    assert llm.metadata["general.architecture"] == "qwen3"
    assert llm.metadata["general.name"] == MODEL_NAME
    assert llm.metadata["tokenizer.chat_template"] == QWEN3_CHAT_TEMPLATE
    assert llm.n_ctx() == 1024
    assert llm.detokenize([llm.token_eos()], special=True) == b"<|im_end|>"


@pytest.mark.parametrize(
    "token", ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>", "<think>"]
)
def test_chat_markers_are_single_tokens(llm: Llama, token: str) -> None:
    assert len(tokenize(llm, token)) == 1


def test_control_tokens_are_plain_text_unless_special_is_requested(llm: Llama) -> None:
    assert len(llm.tokenize(b"<|im_start|>", add_bos=False, special=False)) > 1


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40))
def test_any_unicode_text_round_trips(llm: Llama, text: str) -> None:
    ids = llm.tokenize(text.encode(), add_bos=False, special=False)
    assert llm.detokenize(ids).decode() == text


def test_generation_produces_tokens(llm: Llama) -> None:
    prompt = render_prompt(QWEN3_CHAT_TEMPLATE, [UserMessage("Hi")], enable_thinking=False)
    out: Any = llm.create_completion(tokenize(llm, prompt), max_tokens=8, temperature=0.0)
    assert out["usage"]["completion_tokens"] > 0


def test_same_seed_gives_identical_files_and_another_seed_does_not(tmp_path: Path, tiny_gguf: Path) -> None:
    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    assert digest(write_test_gguf(tmp_path / "again.gguf")) == digest(tiny_gguf)
    assert digest(write_test_gguf(tmp_path / "other.gguf", seed=1)) != digest(tiny_gguf)


def test_gguf_context_length_follows_n_ctx(tmp_path: Path) -> None:
    path = write_test_gguf(tmp_path / "ctx.gguf", n_ctx=2048)
    model = Llama(str(path), n_ctx=0, verbose=False)
    try:
        assert model.n_ctx() == 2048
    finally:
        model.close()


def test_tokenizer_holds_every_byte_and_the_nine_added_tokens() -> None:
    tokenizer = build_test_tokenizer()
    assert 600 <= tokenizer.get_vocab_size() <= 1000
    added = {t.content: t.special for t in tokenizer.get_added_tokens_decoder().values()}
    assert added == {
        "<|endoftext|>": True,
        "<|im_start|>": True,
        "<|im_end|>": True,
        "<tool_call>": False,
        "</tool_call>": False,
        "<tool_response>": False,
        "</tool_response>": False,
        "<think>": False,
        "</think>": False,
    }


# ---------------------------------------------------------------- Hugging Face


@pytest.fixture(scope="module")
def hf(tiny_hf_dir: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_hf_dir), AutoModelForCausalLM.from_pretrained(tiny_hf_dir)


@pytest.mark.slow  # imports torch and transformers (several seconds)
def test_hf_tokenizer_agrees_with_the_gguf(hf: tuple[Any, Any], llm: Llama) -> None:
    tokenizer, _ = hf
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    for text in SAMPLES:
        assert tokenizer(text, add_special_tokens=False)["input_ids"] == tokenize(llm, text), text


@pytest.mark.slow  # imports torch and transformers (several seconds)
def test_hf_chat_template_renders_like_render_prompt(hf: tuple[Any, Any]) -> None:
    tokenizer, _ = hf
    for thinking in (True, False):
        expected = render_prompt(QWEN3_CHAT_TEMPLATE, CONVERSATION, TOOLS, enable_thinking=thinking)
        rendered = tokenizer.apply_chat_template(
            [message_to_dict(m) for m in CONVERSATION],
            tools=[t.to_openai() for t in TOOLS],
            add_generation_prompt=True,
            enable_thinking=thinking,
            tokenize=False,
        )
        assert rendered == expected


@pytest.mark.slow  # imports torch and transformers (several seconds)
def test_hf_model_generates_the_same_greedy_tokens_as_the_gguf(hf: tuple[Any, Any], llm: Llama) -> None:
    tokenizer, model = hf
    prompt = render_prompt(QWEN3_CHAT_TEMPLATE, [UserMessage("Hello!")])
    ids = tokenize(llm, prompt)
    assert tokenizer(prompt, add_special_tokens=False)["input_ids"] == ids

    import torch

    out = model.generate(torch.tensor([ids]), max_new_tokens=6, do_sample=False)
    hf_new = out[0, len(ids) :].tolist()
    llama_new = list(islice(llm.generate(ids, temp=0.0, reset=True), 6))
    assert len(hf_new) > 0
    assert hf_new == llama_new[: len(hf_new)]


def test_importing_the_builders_does_not_import_torch() -> None:
    code = (
        "import sys, qwen_runtime.testing.testmodel, qwen_runtime.models.chat_format; "
        "sys.exit(1 if {'torch', 'transformers'} & set(sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# ---------------------------------------------------------------- other Qwen templates


@pytest.mark.parametrize("template", ["qwen3-coder", "qwen3.5"])
def test_make_test_model_with_another_template_embeds_it(template: str, tmp_path: Path) -> None:
    from qwen_runtime.cli import main
    from qwen_runtime.models.templates import load_template

    out = tmp_path / "tiny.gguf"
    assert main(["make-test-model", "--template", template, str(out)]) == 0
    llm = Llama(model_path=str(out), n_ctx=256, verbose=False)
    try:
        assert llm.metadata["tokenizer.chat_template"] == load_template(template)
        assert llm.metadata["general.architecture"] == "qwen3"
    finally:
        llm.close()


@pytest.mark.slow  # imports transformers
@pytest.mark.parametrize("template", ["qwen3-coder", "qwen3.5"])
def test_xml_templates_render_like_transformers_apply_chat_template(template: str) -> None:
    from qwen_runtime.models.templates import load_template
    from transformers import PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(tokenizer_object=build_test_tokenizer(), eos_token="<|im_end|>")
    fast.chat_template = load_template(template)
    for thinking in (True, False):
        expected = render_prompt(load_template(template), CONVERSATION, TOOLS, enable_thinking=thinking)
        rendered = fast.apply_chat_template(
            [message_to_dict(m) for m in CONVERSATION],
            tools=[t.to_openai() for t in TOOLS],
            add_generation_prompt=True,
            enable_thinking=thinking,
            tokenize=False,
        )
        assert rendered == expected
