"""A tiny, random-weight model shaped like Qwen 3 (or Qwen 3.5), built offline in well under a second.

Tests and demos need a real model file (the real thing is gigabytes and needs the network). This one
has Qwen 3's architecture, special tokens and chat template, a byte-level BPE vocabulary of a few
hundred tokens that can still encode any text, and weights drawn from a seeded generator, so the same
seed always gives a byte-identical GGUF file. Its output is gibberish; its format is exact. With
`arch="qwen35"` it is Qwen 3.5's hybrid architecture instead (`testmodel_qwen35`); with `arch="gemma3"`,
Gemma 3's layers (a sliding attention window, `SWA_WINDOW`) with Qwen's tokens.

`template` picks the chat template it carries by name (`templates.TEMPLATE_NAMES`): by default the
architecture's own (Qwen 3's, or Qwen 3.5's for the hybrid); `qwen3-coder` or `qwen3.5` on the dense
model let the XML tool-call path run on the fastest tiny model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from ..models.templates import load_template
from . import testmodel_qwen35 as qwen35
from . import testmodel_qwen35moe as qwen35moe

TestArch = Literal["qwen3", "qwen35", "qwen35moe", "gemma3"]
"""Which architecture the tiny model has: Qwen 3 (dense), Qwen 3.5 (hybrid Gated DeltaNet), the
hybrid with mixture-of-experts FFNs (Qwen3.6-35B-A3B's `qwen35moe`, GGUF only), or Gemma 3's layers
(`gemma3`, GGUF only): the dense model with a sliding attention window, Qwen's tokens and template."""
TEST_ARCHS: tuple[TestArch, ...] = ("qwen3", "qwen35", "qwen35moe", "gemma3")

SWA_WINDOW = 16
"""The `gemma3` test model's attention window (tokens), small so that short prompts outrun it: its first
layer attends to the last 16 positions only, the second to all of them (Gemma 3's pattern, 1:1)."""

MODEL_NAME = "siGit tiny Qwen3 test model"
TRAINED_CONTEXT = 32_768
"""The context length the tiny models declare: room for an agent's system prompt in their small
vocabulary (many tokens per word), so the runtime's context choice gives them 32k."""

#: Qwen 2's (and Qwen 3's) pre-tokenizer split pattern, as in its tokenizer.json
QWEN2_SPLIT_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

#: control tokens (CONTROL in GGUF, `special=True` in tokenizers), in Qwen's id order
SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
#: tags the model writes as ordinary text but that are single tokens (USER_DEFINED in GGUF)
TAG_TOKENS = (
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
EOS_TOKEN = "<|im_end|>"
PAD_TOKEN = "<|endoftext|>"

BPE_VOCAB_SIZE = 700
"""Byte alphabet (256) plus merges, before the nine added tokens."""

_CORPUS = """\
system: You are a helpful assistant.
user: Hello! What does this function return?
assistant: It returns the number of lines in the file.
You are a helpful coding assistant. Answer the question and explain your reasoning.
The quick brown fox jumps over the lazy dog while the user reads the file.
Please read the file, find the function, and fix the failing test before you commit.
I will search the repository for the definition and then edit the code.
The tests pass now; the change is small and the documentation is updated.
def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="run the tool")
    args = parser.parse_args(argv)
    return 0
class Model:
    def __init__(self, path: str, n_ctx: int = 4096) -> None:
        self.path = path
        self.tokens: list[int] = []
    def generate(self, prompt: str, max_tokens: int = 128) -> str:
        for index, token in enumerate(self.tokens):
            if token == self.eos:
                break
        return "".join(str(t) for t in self.tokens)
import json, os, sys
from pathlib import Path
with open(path, "r", encoding="utf-8") as handle:
    data = json.load(handle)
print(f"read {len(data)} items from {path}")
{"name": "read_file", "arguments": {"path": "src/main.py", "offset": 0, "limit": 200}}
{"name": "write_file", "arguments": {"path": "README.md", "content": "# Title\\n"}}
{"name": "run_command", "arguments": {"command": "pytest -q tests/", "timeout": 60}}
{"name": "search", "arguments": {"pattern": "def main", "glob": "*.py"}}
{"type": "function", "function": {"name": "edit_file", "description": "Replace text in a file",
"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}
{"ok": true, "count": 3, "items": [1, 2, 3], "value": null, "ratio": 0.5}
<tool_call>
{"name": "list_files", "arguments": {"path": "."}}
</tool_call>
<tool_response>
{"files": ["setup.py", "src/", "tests/"]}
</tool_response>
<think>
The user wants the tests to pass. First I should look at the failing test, then the code.
</think>
Let me look at the file first. The error says the variable is not defined.
Traceback (most recent call last):
  File "main.py", line 12, in <module>
ValueError: invalid literal for int() with base 10: 'abc'
$ git status && git diff --stat
On branch main; nothing to commit, working tree clean.
Numbers 0 1 2 3 4 5 6 7 8 9 10 42 100 2025 3.14 1e-6
Ünïcödé: café, naïve, 日本語, 中文, emoji 🙂, Ελληνικά, русский.
"""


def _training_lines() -> list[str]:
    return _CORPUS.splitlines(keepends=True)


def _hybrid(arch: str) -> bool:
    """Qwen 3.5's hybrid layers, tokens and template (qwen35, and qwen35moe with experts)."""
    return arch in ("qwen35", "qwen35moe")


def _added_tokens(arch: TestArch) -> tuple[tuple[str, bool], ...]:
    """(token, is a control token) in id order."""
    if _hybrid(arch):
        return qwen35.ADDED_TOKENS
    return tuple((t, True) for t in SPECIAL_TOKENS) + tuple((t, False) for t in TAG_TOKENS)


def build_test_tokenizer(arch: TestArch = "qwen3") -> Tokenizer:
    """Byte-level BPE with Qwen's pre-tokenizer and added tokens, trained deterministically.

    No NFC normalizer (Qwen's has one): llama.cpp does not normalize, and the GGUF and Hugging Face
    tokenizers must agree on every text.
    """
    split = qwen35.QWEN35_SPLIT_REGEX if _hybrid(arch) else QWEN2_SPLIT_REGEX
    tokenizer = Tokenizer(models.BPE(unk_token=None, fuse_unk=False, byte_fallback=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=BPE_VOCAB_SIZE,
        min_frequency=1,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tokenizer.train_from_iterator(_training_lines(), trainer=trainer)
    for text, special in _added_tokens(arch):  # one at a time: ids follow the table's order
        token = AddedToken(text, special=special, normalized=False, single_word=False)
        if special:
            tokenizer.add_special_tokens([token])
        else:
            tokenizer.add_tokens([token])
    return tokenizer


# ---------------------------------------------------------------- shapes and weights


@dataclass(frozen=True)
class TinyShape:
    n_embd: int = 64
    n_layer: int = 2
    n_head: int = 4
    n_head_kv: int = 2
    head_dim: int = 16
    n_ff: int = 128
    rms_eps: float = 1e-6
    rope_base: float = 1_000_000.0


SHAPE = TinyShape()


def _weights(n_vocab: int, seed: int) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
    """Hugging Face-named f32 weights, (out, in) like torch's Linear (GGUF's numpy layout too)."""
    rng = np.random.default_rng(seed)
    s = SHAPE

    def normal(*shape: int, std: float = 0.05) -> np.ndarray[Any, np.dtype[np.float32]]:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    def norm(n: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        return (1.0 + rng.standard_normal(n) * 0.05).astype(np.float32)

    out = {"model.embed_tokens.weight": normal(n_vocab, s.n_embd, std=0.5)}
    for i in range(s.n_layer):
        p = f"model.layers.{i}."
        out[p + "input_layernorm.weight"] = norm(s.n_embd)
        out[p + "self_attn.q_proj.weight"] = normal(s.n_head * s.head_dim, s.n_embd, std=0.15)
        out[p + "self_attn.k_proj.weight"] = normal(s.n_head_kv * s.head_dim, s.n_embd, std=0.15)
        out[p + "self_attn.v_proj.weight"] = normal(s.n_head_kv * s.head_dim, s.n_embd, std=0.15)
        out[p + "self_attn.o_proj.weight"] = normal(s.n_embd, s.n_head * s.head_dim, std=0.15)
        out[p + "self_attn.q_norm.weight"] = norm(s.head_dim)
        out[p + "self_attn.k_norm.weight"] = norm(s.head_dim)
        out[p + "post_attention_layernorm.weight"] = norm(s.n_embd)
        out[p + "mlp.gate_proj.weight"] = normal(s.n_ff, s.n_embd, std=0.15)
        out[p + "mlp.up_proj.weight"] = normal(s.n_ff, s.n_embd, std=0.15)
        out[p + "mlp.down_proj.weight"] = normal(s.n_embd, s.n_ff, std=0.15)
    out["model.norm.weight"] = norm(s.n_embd)
    return out


_GGUF_NAMES = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "self_attn.q_norm": "attn_q_norm",
    "self_attn.k_norm": "attn_k_norm",
    "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}


def _gemma3_norms(n_vocab: int, seed: int) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
    """The norms Gemma 3 has after attention and after the FFN (GGUF names), for every layer."""
    rng = np.random.default_rng(seed + 1)
    return {f"blk.{i}.{name}.weight": (1.0 + rng.standard_normal(SHAPE.n_embd) * 0.05).astype(np.float32)
            for i in range(SHAPE.n_layer) for name in ("post_attention_norm", "post_ffw_norm")}


def _gguf_name(hf_name: str) -> str:
    if hf_name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if hf_name == "model.norm.weight":
        return "output_norm.weight"
    layer, rest = hf_name.removeprefix("model.layers.").split(".", 1)
    return f"blk.{layer}.{_GGUF_NAMES[rest.removesuffix('.weight')]}.weight"


# ---------------------------------------------------------------- GGUF


def _vocab_tables(tokenizer: Tokenizer) -> tuple[list[str], list[str], list[int]]:
    """Tokens in id order, merges as "a b", and GGUF token types (1 normal, 3 control, 4 user-defined)."""
    import gguf

    data = json.loads(tokenizer.to_str())
    vocab: dict[str, int] = data["model"]["vocab"]
    n_vocab = tokenizer.get_vocab_size(with_added_tokens=True)
    tokens = [""] * n_vocab
    types = [int(gguf.TokenType.NORMAL)] * n_vocab
    for text, idx in vocab.items():
        tokens[idx] = text
    for added in data["added_tokens"]:
        tokens[added["id"]] = added["content"]
        types[added["id"]] = int(gguf.TokenType.CONTROL if added["special"] else gguf.TokenType.USER_DEFINED)
    if any(t == "" for t in tokens):
        raise RuntimeError("test tokenizer has gaps in its ids")
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    return tokens, merges, types


def default_chat_template(arch: TestArch) -> str:
    """The template a test model of `arch` carries unless told otherwise: its own generation's."""
    return load_template({"qwen35": "qwen3.5", "qwen35moe": "qwen3.6"}.get(arch, "qwen3"))


def _chosen_template(arch: TestArch, template: str | None, chat_template: str | None) -> str:
    if chat_template is not None:
        return chat_template
    return default_chat_template(arch) if template is None else load_template(template)


def _qwen3_hparams(writer: Any, n_ctx: int) -> None:
    qwen35.add_transformer_hparams(writer, SHAPE, n_ctx)  # dense Qwen 3 needs no more than those


def default_seed(arch: TestArch) -> int:
    """The weights' seed when none is given: 0, or `testmodel_qwen35.DEFAULT_SEED` for the hybrid."""
    return qwen35.DEFAULT_SEED if _hybrid(arch) else 0


def write_test_gguf(
    path: str | Path,
    *,
    seed: int | None = None,
    n_ctx: int = TRAINED_CONTEXT,
    arch: TestArch = "qwen3",
    chat_template: str | None = None,
    template: str | None = None,
    mtp: bool = False,
    mtp_agrees: bool = False,
) -> Path:
    """Write the tiny model as a llama.cpp GGUF (f32, tied output) and return its path.

    `mtp` (qwen35 only) adds Qwen 3.5's multi-token-prediction block (`testmodel_qwen35.mtp_tensors`);
    `mtp_agrees` (with `mtp`) makes it one that predicts what the model predicts, by construction (a trunk
    that adds little to each token's embedding, an untied output and the block of
    `testmodel_qwen35.agreeing_mtp_tensors`): drafting with it must accept most drafts.

    `arch` "qwen3" is dense Qwen 3; "qwen35" is Qwen 3.5's hybrid (three Gated DeltaNet layers, one
    full attention). `seed` defaults to `default_seed(arch)`, `chat_template` to
    `default_chat_template(arch)` (or the template named `template`).
    """
    import gguf

    if mtp and arch != "qwen35":
        raise ValueError("only the qwen35 test model has a multi-token-prediction block")
    if mtp_agrees and not mtp:
        raise ValueError("mtp_agrees shapes the multi-token-prediction block: pass mtp too")
    chosen = _chosen_template(arch, template, chat_template)
    seed = default_seed(arch) if seed is None else seed
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tokenizer = build_test_tokenizer(arch)
    tokens, merges, types = _vocab_tables(tokenizer)

    writer = gguf.GGUFWriter(str(path), arch=arch)
    if arch == "qwen35moe":
        writer.add_name(qwen35moe.MODEL_NAME)
        qwen35moe.add_hparams(writer, n_ctx)
    elif arch == "qwen35":
        writer.add_name(qwen35.MODEL_NAME)
        qwen35.add_hparams(writer, n_ctx, nextn=1 if mtp else 0)
    elif arch == "gemma3":
        writer.add_name(f"{MODEL_NAME} (Gemma 3 layers)")
        _qwen3_hparams(writer, n_ctx)
        writer.add_sliding_window(SWA_WINDOW)
        writer.add_sliding_window_pattern([i % 2 == 0 for i in range(SHAPE.n_layer)])
    else:
        writer.add_name(MODEL_NAME if template in (None, "qwen3") else f"{MODEL_NAME} ({template} template)")
        _qwen3_hparams(writer, n_ctx)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen35" if _hybrid(arch) else "qwen2")
    writer.add_token_list(tokens)
    writer.add_token_merges(merges)
    writer.add_token_types(types)
    writer.add_bos_token_id(tokens.index(PAD_TOKEN))
    writer.add_eos_token_id(tokens.index(EOS_TOKEN))
    writer.add_pad_token_id(tokens.index(PAD_TOKEN))
    writer.add_add_bos_token(False)
    if chosen:  # "" writes a GGUF with no template at all (the runtime then warns and falls back)
        writer.add_chat_template(chosen)

    if arch == "qwen35moe":
        for name, array in qwen35moe.gguf_tensors(len(tokens), seed):
            writer.add_tensor(name, array)
    elif arch == "qwen35" and mtp_agrees:
        trunk = dict(qwen35.gguf_tensors(qwen35.agreeing_trunk(qwen35.weights(len(tokens), seed))))
        # `<|...|>` tokens: llama.cpp makes those that look like control tokens end tokens (`<|fim_pad|>`)
        control = [i for i, text in enumerate(tokens) if text.startswith("<|") and text.endswith("|>")]
        trunk["output.weight"] = qwen35.agreeing_output(len(tokens), seed, never=control)
        trunk.update(qwen35.agreeing_mtp_tensors(trunk["output_norm.weight"]))
        for name, array in trunk.items():
            writer.add_tensor(name, array)
    elif arch == "qwen35":
        for name, array in qwen35.gguf_tensors(qwen35.weights(len(tokens), seed)):
            writer.add_tensor(name, array)
        for name, array in qwen35.mtp_tensors(len(tokens), seed) if mtp else ():
            writer.add_tensor(name, array)
    else:
        for name, array in _weights(len(tokens), seed).items():
            writer.add_tensor(_gguf_name(name), array)
        for name, array in _gemma3_norms(len(tokens), seed).items() if arch == "gemma3" else ():
            writer.add_tensor(name, array)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# ---------------------------------------------------------------- Hugging Face


def write_test_hf(
    out_dir: str | Path,
    *,
    seed: int | None = None,
    arch: TestArch = "qwen3",
    chat_template: str | None = None,
    template: str | None = None,
) -> Path:
    """Write the same tiny model (same weights) as a transformers folder with tokenizer and template.

    "qwen3" is a `Qwen3ForCausalLM`, "qwen35" a `Qwen3_5ForCausalLM` (transformers 5's `qwen3_5`).
    """
    if arch in ("qwen35moe", "gemma3"):
        raise ValueError(f"the tiny {arch} model is GGUF only (make it with --format gguf)")
    import torch

    seed = default_seed(arch) if seed is None else seed
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_test_tokenizer(arch)
    n_vocab = tokenizer.get_vocab_size(with_added_tokens=True)
    ids = {t: tokenizer.token_to_id(t) for t in (EOS_TOKEN, PAD_TOKEN)}
    special_ids: dict[str, Any] = {
        "bos_token_id": ids[PAD_TOKEN],
        "eos_token_id": ids[EOS_TOKEN],
        "pad_token_id": ids[PAD_TOKEN],
    }
    torch.manual_seed(seed)
    if arch == "qwen35":
        from transformers import Qwen3_5ForCausalLM, Qwen3_5TextConfig

        config: Any = Qwen3_5TextConfig(**qwen35.hf_config_kwargs(n_vocab, 4096), **special_ids, dtype="float32")
        model: Any = Qwen3_5ForCausalLM(config)
        arrays = qwen35.weights(n_vocab, seed)
    else:
        from transformers import Qwen3Config, Qwen3ForCausalLM

        s = SHAPE
        config = Qwen3Config(
            vocab_size=n_vocab,
            hidden_size=s.n_embd,
            intermediate_size=s.n_ff,
            num_hidden_layers=s.n_layer,
            num_attention_heads=s.n_head,
            num_key_value_heads=s.n_head_kv,
            head_dim=s.head_dim,
            max_position_embeddings=4096,
            rms_norm_eps=s.rms_eps,
            rope_parameters={"rope_type": "default", "rope_theta": s.rope_base},
            tie_word_embeddings=True,
            **special_ids,
            dtype="float32",
        )
        model = Qwen3ForCausalLM(config)
        arrays = _weights(n_vocab, seed)
    state = {name: torch.from_numpy(array) for name, array in arrays.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(name != "lm_head.weight" for name in missing):
        raise RuntimeError(f"tiny weights do not fit {type(model).__name__}: {missing=} {unexpected=}")
    model.tie_weights()
    model.generation_config.eos_token_id = ids[EOS_TOKEN]
    model.generation_config.pad_token_id = ids[PAD_TOKEN]
    model.save_pretrained(out, safe_serialization=True)

    from transformers import PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=EOS_TOKEN,
        pad_token=PAD_TOKEN,
        model_max_length=4096,
        clean_up_tokenization_spaces=False,
    )
    fast.chat_template = _chosen_template(arch, template, chat_template)
    fast.save_pretrained(out)
    return out
