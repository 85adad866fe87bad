"""The tiny Qwen 3.5-shaped (hybrid) test model: its shape, weights, tokens and the GGUF mapping.

Qwen 3.5 interleaves Gated DeltaNet layers (linear attention with a recurrent state) with full
attention, every fourth layer full. A recurrent state cannot be cut back to a shorter prefix, which
is what the runtime's prompt cache has to handle; this model lets tests meet that offline. The
weights are drawn in Hugging Face's names and layout (the one source), and converted for llama.cpp
the way its `convert_hf_to_gguf.py` converts Qwen 3.5 (`-exp(A_log)`, RMS norm weights `1 + w`,
the conv kernel squeezed), so the GGUF and the transformers folder are the same model.

Shapes and keys follow the llama.cpp vendored in llama-cpp-python 0.3.36 (`src/models/qwen35.cpp`):
linear layers take `attn_qkv` (q, k, v in-projection), `attn_gate` (z), `ssm_conv1d`, `ssm_dt.bias`,
`ssm_a`, `ssm_beta`, `ssm_alpha`, `ssm_norm`, `ssm_out`; full layers a doubled `attn_q` (query and
output gate per head), `attn_k`, `attn_v`, `attn_output` and q/k norms; every layer `attn_norm`,
`post_attention_norm` and a SwiGLU FFN.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import gguf

ARCH = "qwen35"
MODEL_NAME = "siGit tiny Qwen3.5 test model"
DEFAULT_SEED = 1
"""The weights' default seed. Random weights decide whether a reply ends after a tool call: seed 0's
almost never emit `<|im_end|>` after one (2 of 8 required calls ended, the rest ran to max_tokens
with a cut-off last call), seed 1's end as the dense model's do (8 of 8), which is what a caller of
a real model expects and what the backend contract suite checks."""

#: Qwen 3.5's pre-tokenizer split pattern (its tokenizer.json; letters include marks, \p{M}),
#: llama.cpp's `qwen35` pre-tokenizer
QWEN35_SPLIT_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

#: Qwen 3.5's added tokens in its id order (248044 to 248069 in the real vocabulary, the same layout
#: as Qwen 3's 151643 to 151668), each with whether it is a control token (CONTROL in GGUF) or an
#: ordinary added token the model writes as text (USER_DEFINED)
ADDED_TOKENS: tuple[tuple[str, bool], ...] = (
    ("<|endoftext|>", True),
    ("<|im_start|>", True),
    ("<|im_end|>", True),
    ("<|object_ref_start|>", True),
    ("<|object_ref_end|>", True),
    ("<|box_start|>", True),
    ("<|box_end|>", True),
    ("<|quad_start|>", True),
    ("<|quad_end|>", True),
    ("<|vision_start|>", True),
    ("<|vision_end|>", True),
    ("<|vision_pad|>", True),
    ("<|image_pad|>", True),
    ("<|video_pad|>", True),
    ("<tool_call>", False),
    ("</tool_call>", False),
    ("<|fim_prefix|>", False),
    ("<|fim_middle|>", False),
    ("<|fim_suffix|>", False),
    ("<|fim_pad|>", False),
    ("<|repo_name|>", False),
    ("<|file_sep|>", False),
    ("<tool_response>", False),
    ("</tool_response>", False),
    ("<think>", False),
    ("</think>", False),
)


@dataclass(frozen=True)
class HybridShape:
    """Three Gated DeltaNet layers and one full-attention layer, all 64 wide."""

    n_embd: int = 64
    n_layer: int = 4
    full_attention_interval: int = 4
    n_head: int = 4
    n_head_kv: int = 2
    head_dim: int = 16
    partial_rotary_factor: float = 0.5
    mrope_section: tuple[int, int, int] = (2, 1, 1)
    """Sums to the rotary dimension / 2, as Qwen 3.5's (11, 11, 10) does for 64 of 256."""
    n_ff: int = 128
    linear_conv_kernel: int = 4
    linear_key_head_dim: int = 16
    linear_value_head_dim: int = 16
    linear_num_key_heads: int = 2
    linear_num_value_heads: int = 2
    """Equal to the key heads (as in Qwen 3.5 0.8B and 2B), so no V-head reordering is needed."""
    rms_eps: float = 1e-6
    rope_base: float = 10_000_000.0

    @property
    def rope_dim(self) -> int:
        return int(self.head_dim * self.partial_rotary_factor)

    @property
    def key_dim(self) -> int:
        return self.linear_key_head_dim * self.linear_num_key_heads

    @property
    def value_dim(self) -> int:
        return self.linear_value_head_dim * self.linear_num_value_heads

    def is_linear(self, layer: int) -> bool:
        return (layer + 1) % self.full_attention_interval != 0

    def layer_types(self) -> list[str]:
        return ["linear_attention" if self.is_linear(i) else "full_attention" for i in range(self.n_layer)]


SHAPE = HybridShape()

Array = np.ndarray[Any, np.dtype[np.float32]]


def weights(n_vocab: int, seed: int) -> dict[str, Array]:
    """Hugging Face-named f32 weights of `Qwen3_5ForCausalLM`, (out, in) like torch's Linear.

    RMS norm weights are Qwen 3.5's offsets from 1 (its norm computes `x * (1 + w)`), except the
    gated norm inside the DeltaNet, which multiplies by `w` itself.
    """
    rng = np.random.default_rng(seed)
    s = SHAPE

    def normal(*shape: int, std: float = 0.15) -> Array:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    def offset(n: int) -> Array:
        return (rng.standard_normal(n) * 0.05).astype(np.float32)

    def uniform(n: int, low: float, high: float) -> Array:
        return rng.uniform(low, high, n).astype(np.float32)

    out = {"model.embed_tokens.weight": normal(n_vocab, s.n_embd, std=0.5)}
    for i in range(s.n_layer):
        p = f"model.layers.{i}."
        out[p + "input_layernorm.weight"] = offset(s.n_embd)
        if s.is_linear(i):
            conv_dim = 2 * s.key_dim + s.value_dim
            n_v = s.linear_num_value_heads
            out[p + "linear_attn.in_proj_qkv.weight"] = normal(conv_dim, s.n_embd)
            out[p + "linear_attn.in_proj_z.weight"] = normal(s.value_dim, s.n_embd)
            out[p + "linear_attn.in_proj_b.weight"] = normal(n_v, s.n_embd)
            out[p + "linear_attn.in_proj_a.weight"] = normal(n_v, s.n_embd)
            out[p + "linear_attn.conv1d.weight"] = normal(conv_dim, 1, s.linear_conv_kernel, std=0.3)
            out[p + "linear_attn.dt_bias"] = uniform(n_v, 0.5, 1.5)
            out[p + "linear_attn.A_log"] = np.log(uniform(n_v, 0.5, 8.0)).astype(np.float32)
            out[p + "linear_attn.norm.weight"] = (1.0 + offset(s.linear_value_head_dim)).astype(np.float32)
            out[p + "linear_attn.out_proj.weight"] = normal(s.n_embd, s.value_dim)
        else:
            out[p + "self_attn.q_proj.weight"] = normal(2 * s.n_head * s.head_dim, s.n_embd)
            out[p + "self_attn.k_proj.weight"] = normal(s.n_head_kv * s.head_dim, s.n_embd)
            out[p + "self_attn.v_proj.weight"] = normal(s.n_head_kv * s.head_dim, s.n_embd)
            out[p + "self_attn.o_proj.weight"] = normal(s.n_embd, s.n_head * s.head_dim)
            out[p + "self_attn.q_norm.weight"] = offset(s.head_dim)
            out[p + "self_attn.k_norm.weight"] = offset(s.head_dim)
        out[p + "post_attention_layernorm.weight"] = offset(s.n_embd)
        out[p + "mlp.gate_proj.weight"] = normal(s.n_ff, s.n_embd)
        out[p + "mlp.up_proj.weight"] = normal(s.n_ff, s.n_embd)
        out[p + "mlp.down_proj.weight"] = normal(s.n_embd, s.n_ff)
    out["model.norm.weight"] = offset(s.n_embd)
    return out


_GGUF_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "post_attention_layernorm.weight": "post_attention_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "self_attn.q_norm.weight": "attn_q_norm.weight",
    "self_attn.k_norm.weight": "attn_k_norm.weight",
    "linear_attn.in_proj_qkv.weight": "attn_qkv.weight",
    "linear_attn.in_proj_z.weight": "attn_gate.weight",
    "linear_attn.in_proj_b.weight": "ssm_beta.weight",
    "linear_attn.in_proj_a.weight": "ssm_alpha.weight",
    "linear_attn.conv1d.weight": "ssm_conv1d.weight",
    "linear_attn.dt_bias": "ssm_dt.bias",
    "linear_attn.A_log": "ssm_a",
    "linear_attn.norm.weight": "ssm_norm.weight",
    "linear_attn.out_proj.weight": "ssm_out.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}

#: Qwen 3.5's `(1 + w)` RMS norms; llama.cpp's norm multiplies by the weight itself
_OFFSET_NORMS = (
    "input_layernorm.weight",
    "post_attention_layernorm.weight",
    "self_attn.q_norm.weight",
    "self_attn.k_norm.weight",
)


def gguf_tensors(hf: dict[str, Array]) -> Iterator[tuple[str, Array]]:
    """The weights under llama.cpp's names, converted as its converter converts Qwen 3.5's."""
    for name, array in hf.items():
        if name == "model.embed_tokens.weight":
            yield "token_embd.weight", array
            continue
        if name == "model.norm.weight":
            yield "output_norm.weight", (array + np.float32(1.0)).astype(np.float32)
            continue
        layer, rest = name.removeprefix("model.layers.").split(".", 1)
        if rest in _OFFSET_NORMS:
            array = (array + np.float32(1.0)).astype(np.float32)
        elif rest == "linear_attn.A_log":
            array = (-np.exp(array)).astype(np.float32)
        elif rest == "linear_attn.conv1d.weight":
            array = np.ascontiguousarray(array.squeeze(1))
        yield f"blk.{layer}.{_GGUF_NAMES[rest]}", array


def mtp_tensors(n_vocab: int, seed: int, s: HybridShape = SHAPE) -> Iterator[tuple[str, Array]]:
    """Qwen 3.5's multi-token-prediction block under llama.cpp's names (`blk.{n_layer}`, after the
    model's layers): a full-attention decoder block plus `nextn.eh_proj`, which mixes the embedding of
    the token just sampled with the model's last hidden state, and its norms. It shares the model's
    embeddings and output. Random like the rest, drawn from its own seed so the trunk is unchanged."""
    rng = np.random.default_rng(seed + 1_000)
    p = f"blk.{s.n_layer}."

    def normal(*shape: int, std: float = 0.15) -> Array:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    def norm(n: int) -> Array:
        return (1.0 + rng.standard_normal(n) * 0.05).astype(np.float32)

    yield p + "attn_norm.weight", norm(s.n_embd)
    yield p + "post_attention_norm.weight", norm(s.n_embd)
    yield p + "attn_q.weight", normal(2 * s.n_head * s.head_dim, s.n_embd)
    yield p + "attn_k.weight", normal(s.n_head_kv * s.head_dim, s.n_embd)
    yield p + "attn_v.weight", normal(s.n_head_kv * s.head_dim, s.n_embd)
    yield p + "attn_output.weight", normal(s.n_embd, s.n_head * s.head_dim)
    yield p + "attn_q_norm.weight", norm(s.head_dim)
    yield p + "attn_k_norm.weight", norm(s.head_dim)
    yield p + "ffn_gate.weight", normal(s.n_ff, s.n_embd)
    yield p + "ffn_up.weight", normal(s.n_ff, s.n_embd)
    yield p + "ffn_down.weight", normal(s.n_embd, s.n_ff)
    yield p + "nextn.eh_proj.weight", normal(s.n_embd, 2 * s.n_embd)
    yield p + "nextn.enorm.weight", norm(s.n_embd)
    yield p + "nextn.hnorm.weight", norm(s.n_embd)
    yield p + "nextn.shared_head_norm.weight", norm(s.n_embd)


AGREEING_MIX = 0.01
"""How much of each layer's output the agreeing model's trunk keeps (`agreeing_trunk`): small, so the
model's next token is almost always the one its MTP head computes from the token alone, and now and then
not (a rejected draft, what rollback must get right)."""

_RESIDUAL_BRANCHES = ("self_attn.o_proj.weight", "linear_attn.out_proj.weight", "mlp.down_proj.weight")


def agreeing_trunk(hf: dict[str, Array], mix: float = AGREEING_MIX) -> dict[str, Array]:
    """The weights with what each layer adds to the residual stream scaled by `mix`: the last hidden
    state is then the current token's embedding plus a little of the context, so the model's next token
    is mostly a function of the current one, which an MTP block can compute exactly (`agreeing_mtp_tensors`)."""
    return {name: (array * np.float32(mix)).astype(np.float32) if name.endswith(_RESIDUAL_BRANCHES) else array
            for name, array in hf.items()}


def agreeing_output(n_vocab: int, seed: int, never: Iterable[int] = (), s: HybridShape = SHAPE) -> Array:
    """An untied output matrix for the agreeing model: with the embeddings tied, a token's own row would
    always win and the model would repeat one token forever. The rows of `never` (the `<|...|>` tokens)
    are zero: a logit of 0 never beats the best of hundreds of random ones, so a greedy reply runs to its
    `max_tokens` (a model whose next token follows the current one would otherwise end every reply alike)."""
    rng = np.random.default_rng(seed + 2_000)
    out = (rng.standard_normal((n_vocab, s.n_embd)) * 0.5).astype(np.float32)
    out[list(never)] = 0.0
    return out


def agreeing_mtp_tensors(output_norm: Array, s: HybridShape = SHAPE) -> Iterator[tuple[str, Array]]:
    """An MTP block that predicts what the model predicts, by construction (llama.cpp's qwen35 MTP graph):
    `eh_proj` passes the normed embedding of the token just sampled and drops the hidden state, the
    block's attention and FFN add nothing (zero output projections), and its head norm is the model's
    `output_norm` (GGUF values). Its hidden state is then `output_norm(rmsnorm(embedding))`, the model's
    own last hidden state for a trunk that added nothing, read by the same output matrix: its draft is the
    model's greedy next token whenever the trunk's small context term (`AGREEING_MIX`) does not change it,
    and again for each further draft position (the head's own hidden state is dropped the same way)."""
    rng = np.random.default_rng(3_000)

    def normal(*shape: int, std: float = 0.15) -> Array:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    ones = np.ones(s.n_embd, dtype=np.float32)
    p = f"blk.{s.n_layer}."
    yield p + "attn_norm.weight", ones
    yield p + "post_attention_norm.weight", ones
    yield p + "attn_q.weight", normal(2 * s.n_head * s.head_dim, s.n_embd)
    yield p + "attn_k.weight", normal(s.n_head_kv * s.head_dim, s.n_embd)
    yield p + "attn_v.weight", normal(s.n_head_kv * s.head_dim, s.n_embd)
    yield p + "attn_output.weight", np.zeros((s.n_embd, s.n_head * s.head_dim), dtype=np.float32)
    yield p + "attn_q_norm.weight", np.ones(s.head_dim, dtype=np.float32)
    yield p + "attn_k_norm.weight", np.ones(s.head_dim, dtype=np.float32)
    yield p + "ffn_gate.weight", normal(s.n_ff, s.n_embd)
    yield p + "ffn_up.weight", normal(s.n_ff, s.n_embd)
    yield p + "ffn_down.weight", np.zeros((s.n_embd, s.n_ff), dtype=np.float32)
    # (out, in) with the input [enorm(embedding); hnorm(hidden)]: identity on the first half, zero on the second
    eh_proj = np.zeros((s.n_embd, 2 * s.n_embd), dtype=np.float32)
    eh_proj[:, : s.n_embd] = np.eye(s.n_embd, dtype=np.float32)
    yield p + "nextn.eh_proj.weight", eh_proj
    yield p + "nextn.enorm.weight", ones
    yield p + "nextn.hnorm.weight", ones
    yield p + "nextn.shared_head_norm.weight", output_norm.astype(np.float32)


def add_transformer_hparams(writer: gguf.GGUFWriter, s: Any, n_ctx: int, extra_blocks: int = 0) -> None:
    """The keys every tiny Qwen model writes, dense or hybrid, from its shape (`s`: a shape dataclass);
    `extra_blocks`: multi-token-prediction blocks after the model's own (llama.cpp counts them in)."""
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(s.n_embd)
    writer.add_block_count(s.n_layer + extra_blocks)
    writer.add_feed_forward_length(s.n_ff)
    writer.add_head_count(s.n_head)
    writer.add_head_count_kv(s.n_head_kv)
    writer.add_key_length(s.head_dim)
    writer.add_value_length(s.head_dim)
    writer.add_layer_norm_rms_eps(s.rms_eps)
    writer.add_rope_freq_base(s.rope_base)


def add_hparams(writer: gguf.GGUFWriter, n_ctx: int, s: HybridShape = SHAPE, *, nextn: int = 0) -> None:
    """The `qwen35.*` keys llama.cpp's qwen35 loader reads (rope sections and ssm sizes required) for
    shape `s`; `nextn`: how many multi-token-prediction blocks follow the model's layers."""
    add_transformer_hparams(writer, s, n_ctx, extra_blocks=nextn)
    if nextn:
        writer.add_nextn_predict_layers(nextn)
    writer.add_rope_dimension_count(s.rope_dim)
    writer.add_rope_dimension_sections([*s.mrope_section, 0])
    writer.add_ssm_conv_kernel(s.linear_conv_kernel)
    writer.add_ssm_state_size(s.linear_key_head_dim)
    writer.add_ssm_group_count(s.linear_num_key_heads)
    writer.add_ssm_time_step_rank(s.linear_num_value_heads)
    writer.add_ssm_inner_size(s.value_dim)
    writer.add_full_attention_interval(s.full_attention_interval)


def hf_config_kwargs(n_vocab: int, max_positions: int) -> dict[str, Any]:
    """Keyword arguments for transformers' `Qwen3_5TextConfig` describing the same model."""
    s = SHAPE
    return {
        "vocab_size": n_vocab,
        "hidden_size": s.n_embd,
        "intermediate_size": s.n_ff,
        "num_hidden_layers": s.n_layer,
        "num_attention_heads": s.n_head,
        "num_key_value_heads": s.n_head_kv,
        "head_dim": s.head_dim,
        "layer_types": s.layer_types(),
        "linear_conv_kernel_dim": s.linear_conv_kernel,
        "linear_key_head_dim": s.linear_key_head_dim,
        "linear_value_head_dim": s.linear_value_head_dim,
        "linear_num_key_heads": s.linear_num_key_heads,
        "linear_num_value_heads": s.linear_num_value_heads,
        "max_position_embeddings": max_positions,
        "rms_norm_eps": s.rms_eps,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": s.rope_base,
            "partial_rotary_factor": s.partial_rotary_factor,
            "mrope_section": list(s.mrope_section),
            "mrope_interleaved": True,
        },
        "tie_word_embeddings": True,
    }
