"""Random-weight GGUFs with the real shape of Qwen 3.5 0.8B and 4B, for measuring costs offline.

Speed depends on the shape, not on the weights: layer count and layout (three Gated DeltaNet layers to
one full attention), hidden, head and DeltaNet sizes, the 248,320-token vocabulary (its output matmul
is a large share of a small model's decode step) and the quantization. These files have all of that
and nothing learned, so they measure what a step costs (prefill, decode, verifying a draft, state
sizes) and never whether a draft is right, except with `mtp_agrees`: an MTP head that agrees with the
model by construction (`benchmodel_agreeing`), for what drafting gains at real size. Sizes are from the
models' config.json (`text_config`).

The quantized blocks are drawn directly (`quantblocks`), so writing the 0.8B file takes seconds and
memory for one tensor at a time. Written once into the user cache (`bench_model_path`), by `make bench`,
never by the tests.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..home import expand_home
from . import benchmodel_agreeing, testmodel, testmodel_qwen35
from .quantblocks import QUANTS, Quant, random_blocks
from .testmodel_qwen35 import HybridShape

BenchShape = Literal["0.8b", "4b"]
# Qwen/Qwen3.5-0.8B: 24 layers (18 DeltaNet), hidden 1024, 8 query / 2 KV heads of 256,
# 16 key and 16 value heads of 128 in the DeltaNet, FFN 3584, rotary on a quarter of each head
_QWEN35_0_8B = HybridShape(
    n_embd=1024,
    n_layer=24,
    n_head=8,
    n_head_kv=2,
    head_dim=256,
    partial_rotary_factor=0.25,
    mrope_section=(11, 11, 10),
    n_ff=3584,
    linear_key_head_dim=128,
    linear_value_head_dim=128,
    linear_num_key_heads=16,
    linear_num_value_heads=16,
)
BENCH_SHAPES: dict[str, HybridShape] = {
    "0.8b": _QWEN35_0_8B,
    # Qwen/Qwen3.5-4B: the same heads and rotary, wider: 32 layers (24 DeltaNet), hidden 2560,
    # 16 query / 4 KV heads, 32 value heads in the DeltaNet, FFN 9216
    "4b": dataclasses.replace(_QWEN35_0_8B, n_embd=2560, n_layer=32, n_head=16, n_head_kv=4, n_ff=9216,
                              linear_num_value_heads=32),
}
BENCH_VOCAB = 248_320
"""Qwen 3.5's vocabulary size; its added tokens sit at 248,044 to 248,069 as in the real one."""
ADDED_AT = 248_044


def bench_model_dir() -> Path:
    """Where `make bench` keeps the bench models: $XDG_CACHE_HOME/qwen-runtime/bench-models."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return expand_home(base) / "qwen-runtime" / "bench-models"


def bench_model_path(shape: BenchShape, quant: Quant = "q8_0", *, mtp: bool = False,
                     mtp_agrees: bool = False) -> Path:
    """The bench model of `shape`, written on first use (later calls return the file)."""
    name = f"qwen35-{shape}-{quant}{'-mtp' if mtp else ''}{'-agrees' if mtp_agrees else ''}.gguf"
    path = bench_model_dir() / name
    if not path.is_file():
        write_bench_gguf(path, shape, quant=quant, mtp=mtp, mtp_agrees=mtp_agrees)
    return path


def _vocab() -> tuple[list[str], list[str], list[int]]:
    """The tiny hybrid's tokenizer spread over Qwen 3.5's id space: its BPE tokens first, its added
    tokens at their real ids, placeholders (never produced by the merges) everywhere else."""
    import gguf

    tokens, merges, types = testmodel._vocab_tables(testmodel.build_test_tokenizer("qwen35"))
    n_added = len(testmodel_qwen35.ADDED_TOKENS)
    n_bpe = len(tokens) - n_added
    out = [f"<|bench_{i}|>" for i in range(BENCH_VOCAB)]
    kinds = [int(gguf.TokenType.NORMAL)] * BENCH_VOCAB
    out[:n_bpe] = tokens[:n_bpe]
    kinds[:n_bpe] = types[:n_bpe]
    out[ADDED_AT : ADDED_AT + n_added] = tokens[n_bpe:]
    kinds[ADDED_AT : ADDED_AT + n_added] = types[n_bpe:]
    return out, merges, kinds


def tensor_layout(s: HybridShape, n_vocab: int, mtp: bool, untied: bool = False
             ) -> Iterator[tuple[str, tuple[int, ...], bool]]:
    """(GGUF name, numpy shape (out, in), is a matrix to quantize) of every tensor, in file order;
    `untied`: an output matrix of its own (else the embeddings are read back, as the real 0.8B and 4B do)."""
    yield "token_embd.weight", (n_vocab, s.n_embd), True
    yield "output_norm.weight", (s.n_embd,), False
    if untied:
        yield benchmodel_agreeing.OUTPUT, (n_vocab, s.n_embd), True
    conv_dim = 2 * s.key_dim + s.value_dim
    n_v = s.linear_num_value_heads
    for i in range(s.n_layer + (1 if mtp else 0)):
        p = f"blk.{i}."
        yield p + "attn_norm.weight", (s.n_embd,), False
        yield p + "post_attention_norm.weight", (s.n_embd,), False
        if i < s.n_layer and s.is_linear(i):
            yield p + "attn_qkv.weight", (conv_dim, s.n_embd), True
            yield p + "attn_gate.weight", (s.value_dim, s.n_embd), True
            yield p + "ssm_conv1d.weight", (conv_dim, s.linear_conv_kernel), False
            yield p + "ssm_dt.bias", (n_v,), False
            yield p + "ssm_a", (n_v,), False
            yield p + "ssm_beta.weight", (n_v, s.n_embd), True
            yield p + "ssm_alpha.weight", (n_v, s.n_embd), True
            yield p + "ssm_norm.weight", (s.linear_value_head_dim,), False
            yield p + "ssm_out.weight", (s.n_embd, s.value_dim), True
        else:  # full attention (and the MTP block, shaped like one)
            yield p + "attn_q.weight", (2 * s.n_head * s.head_dim, s.n_embd), True
            yield p + "attn_k.weight", (s.n_head_kv * s.head_dim, s.n_embd), True
            yield p + "attn_v.weight", (s.n_head_kv * s.head_dim, s.n_embd), True
            yield p + "attn_output.weight", (s.n_embd, s.n_head * s.head_dim), True
            yield p + "attn_q_norm.weight", (s.head_dim,), False
            yield p + "attn_k_norm.weight", (s.head_dim,), False
        yield p + "ffn_gate.weight", (s.n_ff, s.n_embd), True
        yield p + "ffn_up.weight", (s.n_ff, s.n_embd), True
        yield p + "ffn_down.weight", (s.n_embd, s.n_ff), True
        if i == s.n_layer:  # the multi-token-prediction head (llama.cpp's qwen35 `nextn` tensors)
            yield p + "nextn.eh_proj.weight", (s.n_embd, 2 * s.n_embd), True
            yield p + "nextn.enorm.weight", (s.n_embd,), False
            yield p + "nextn.hnorm.weight", (s.n_embd,), False
            yield p + "nextn.shared_head_norm.weight", (s.n_embd,), False


def _f32(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    if name.endswith("ssm_a"):
        return (-rng.uniform(0.5, 8.0, shape)).astype(np.float32)
    if name.endswith("ssm_dt.bias"):
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    if name.endswith("ssm_conv1d.weight"):
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)
    return (1.0 + rng.standard_normal(shape) * 0.05).astype(np.float32)  # RMS norm weights


def write_bench_gguf(
    path: str | Path,
    shape: BenchShape,
    *,
    quant: Quant = "q8_0",
    mtp: bool = False,
    mtp_agrees: bool = False,
    seed: int = 0,
    n_ctx: int = 262_144,
) -> Path:
    """Write the `shape` bench model (`BENCH_SHAPES`) with random `quant` weights; `mtp` adds the
    multi-token-prediction block, `mtp_agrees` (with `mtp`) one that predicts what the model predicts by
    construction (`benchmodel_agreeing`). Written to a temporary name and renamed, so a half-written file
    never passes for one."""
    import gguf

    if shape not in BENCH_SHAPES:
        raise ValueError(f"no bench shape {shape!r}: one of {', '.join(BENCH_SHAPES)}")
    if mtp_agrees and not mtp:
        raise ValueError("mtp_agrees shapes the multi-token-prediction block: pass mtp too")
    s = BENCH_SHAPES[shape]
    qtype = {"q8_0": gguf.GGMLQuantizationType.Q8_0, "q4_k": gguf.GGMLQuantizationType.Q4_K}[quant]
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    tokens, merges, types = _vocab()

    writer = gguf.GGUFWriter(str(partial), arch=testmodel_qwen35.ARCH)
    agrees = ", MTP head agreeing by construction" if mtp_agrees else ""
    writer.add_name(f"siGit bench model, Qwen3.5-{shape.upper()} shape, random {quant} weights{agrees}")
    testmodel_qwen35.add_hparams(writer, n_ctx, s, nextn=1 if mtp else 0)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if quant == "q8_0" else gguf.LlamaFileType.MOSTLY_Q4_K_M)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen35")
    writer.add_token_list(tokens)
    writer.add_token_merges(merges)
    writer.add_token_types(types)
    writer.add_bos_token_id(tokens.index(testmodel.PAD_TOKEN))
    writer.add_eos_token_id(tokens.index(testmodel.EOS_TOKEN))
    writer.add_pad_token_id(tokens.index(testmodel.PAD_TOKEN))
    writer.add_add_bos_token(False)
    writer.add_chat_template(testmodel.default_chat_template("qwen35"))

    layout = list(tensor_layout(s, len(tokens), mtp, untied=mtp_agrees))
    for name, dims, quantized in layout:
        if quantized:
            nbytes = dims[0] * dims[1] // block * size
            writer.add_tensor_info(name, (dims[0], dims[1] // block * size), np.dtype(np.uint8), nbytes, qtype)
        else:
            writer.add_tensor_info(name, dims, np.dtype(np.float32), int(np.prod(dims)) * 4)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    rng = np.random.default_rng(seed)
    never = benchmodel_agreeing.never_tokens(tokens) if mtp_agrees else []
    output_norm: np.ndarray[Any, Any] | None = None
    for name, dims, quantized in layout:
        data = None
        if mtp_agrees:
            data = benchmodel_agreeing.agreeing_tensor(name, dims, quant, rng, n_layer=s.n_layer,
                                                       output_norm=output_norm, never=never)
        if data is None:
            data = random_blocks(quant, dims, rng) if quantized else _f32(name, dims, rng)
        if name == "output_norm.weight":
            output_norm = data
        writer.write_tensor_data(data)
    writer.close()
    partial.replace(path)
    return path


__all__ = ["BENCH_SHAPES", "BENCH_VOCAB", "QUANTS", "bench_model_dir", "bench_model_path",
           "tensor_layout", "write_bench_gguf"]
