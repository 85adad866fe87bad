"""The bench models (real Qwen 3.5 shapes) with an MTP head that agrees with the model by construction.

A random MTP head at real size costs what a real one costs and is never right, so it shows the price of
drafting and none of the gain. This is the tiny model's construction (`testmodel_qwen35.agreeing_trunk`,
`agreeing_output`, `agreeing_mtp_tensors`) on the bench models' quantized blocks: the embeddings are
drawn large against what the layers add to the residual stream (the trunk's context term), the output
matrix is untied (tied, a token's own row would win and the model would repeat it forever) with the rows
of the `<|...|>` tokens zero (Qwen 3.5's added tokens and the bench vocabulary's placeholders never win,
as in the tiny model), and the head passes the token's embedding through (`eh_proj` an identity on it,
zero output projections) and reads it with the model's `output_norm` and output matrix. Its draft is the
model's greedy next token unless the context term changes it. Every matrix keeps the bench model's size
and quantization, so a step and a draft cost what they cost on the real model (plus the untied output
matrix's memory: 248,320 rows the real 0.8B and 4B share with their embeddings).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .quantblocks import Quant, identity_blocks, random_blocks, zero_blocks, zero_rows

EMBED_SCALE = 4096.0
"""How much larger than the bench model's (std 1/sqrt(n_embd)) the embeddings are drawn, against layers
whose outputs are random at full size: large enough that the model's next token is almost always the one
the head computes from the token alone, small enough that now and then it is not (a rejected draft).
Measured, the head's one-token proposal was the model's next greedy token 90% of the time on the 0.8B
shape in Q4_K, 82% on the 4B shape in Q4_K and 100% on the 0.8B shape in Q8_0 (2048: 65% on the 0.8B in
Q4_K; 16384: 100%)."""

OUTPUT = "output.weight"
_ONES = ("attn_norm.weight", "post_attention_norm.weight", "attn_q_norm.weight", "attn_k_norm.weight",
         "nextn.enorm.weight", "nextn.hnorm.weight")
_ZEROS = ("attn_output.weight", "ffn_down.weight")


def never_tokens(tokens: Sequence[str]) -> list[int]:
    """The ids the agreeing output never picks: `<|...|>` tokens (llama.cpp makes some of those that look
    like control tokens end tokens, `<|fim_pad|>`; the rest are the bench vocabulary's placeholders)."""
    return [i for i, text in enumerate(tokens) if text.startswith("<|") and text.endswith("|>")]


def agreeing_tensor(
    name: str,
    dims: tuple[int, ...],
    quant: Quant,
    rng: np.random.Generator,
    *,
    n_layer: int,
    output_norm: np.ndarray[Any, Any] | None,
    never: Sequence[int],
) -> np.ndarray[Any, Any] | None:
    """The data of tensor `name` (GGUF name, numpy shape `dims`) where the agreeing model's differs from
    the bench model's random draw, else None. `output_norm`: the model's (f32, written before the head)."""
    if name == "token_embd.weight":
        return random_blocks(quant, dims, rng, scale=EMBED_SCALE)
    if name == OUTPUT:
        return zero_rows(quant, random_blocks(quant, dims, rng), list(never))
    head = f"blk.{n_layer}."
    if not name.startswith(head):
        return None
    rest = name.removeprefix(head)
    if rest in _ONES:
        return np.ones(dims, dtype=np.float32)
    if rest in _ZEROS:
        return zero_blocks(quant, dims)
    if rest == "nextn.eh_proj.weight":  # (out, in) over [enorm(embedding); hnorm(hidden)]: the first half
        return identity_blocks(quant, dims)
    if rest == "nextn.shared_head_norm.weight":
        if output_norm is None:
            raise RuntimeError("the model's output_norm must be written before its MTP head")
        return output_norm.astype(np.float32)
    return None


__all__ = ["EMBED_SCALE", "OUTPUT", "agreeing_tensor", "never_tokens"]
