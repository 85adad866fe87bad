"""The tiny Qwen 3.6-35B-A3B-shaped test model: Qwen 3.5's hybrid layers with mixture-of-experts FFNs.

Same attention and Gated DeltaNet layers, tokens and template as the tiny `qwen35` model
(`testmodel_qwen35`); every layer's dense FFN is replaced by what llama.cpp's `qwen35moe` loader
(`src/models/qwen35moe.cpp` in the vendored llama.cpp) reads: a router `ffn_gate_inp`, routed experts
`ffn_gate_exps`, `ffn_up_exps`, `ffn_down_exps` (softmax gating, `expert_used_count` of
`expert_count` per token), and a shared expert `ffn_gate_shexp`, `ffn_up_shexp`, `ffn_down_shexp`
scaled by the sigmoid of `ffn_gate_inp_shexp`. GGUF only: it exists so the MoE path runs through real
llama.cpp in tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import testmodel_qwen35 as qwen35

if TYPE_CHECKING:
    import gguf

ARCH = "qwen35moe"
MODEL_NAME = "siGit tiny Qwen3.6-35B-A3B-shaped test model"


@dataclass(frozen=True)
class ExpertShape:
    n_expert: int = 4
    n_expert_used: int = 2
    n_ff_exp: int = 32
    n_ff_shexp: int = 64


EXPERTS = ExpertShape()

Array = np.ndarray[Any, np.dtype[np.float32]]


def add_hparams(writer: gguf.GGUFWriter, n_ctx: int) -> None:
    """Qwen 3.5's hybrid keys plus the expert counts and sizes."""
    qwen35.add_hparams(writer, n_ctx)
    writer.add_expert_count(EXPERTS.n_expert)
    writer.add_expert_used_count(EXPERTS.n_expert_used)
    writer.add_expert_feed_forward_length(EXPERTS.n_ff_exp)
    writer.add_expert_shared_feed_forward_length(EXPERTS.n_ff_shexp)


def gguf_tensors(n_vocab: int, seed: int) -> Iterator[tuple[str, Array]]:
    """The hybrid's attention, DeltaNet and norm tensors (converted as Qwen 3.5's), then per layer the
    MoE FFN in llama.cpp's names; numpy shapes are ggml's reversed (experts outermost)."""
    dense = {name: array for name, array in qwen35.weights(n_vocab, seed).items() if ".mlp." not in name}
    yield from qwen35.gguf_tensors(dense)
    rng = np.random.default_rng(seed + 1000)
    e, s = EXPERTS, qwen35.SHAPE

    def normal(*shape: int, std: float = 0.15) -> Array:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    for i in range(s.n_layer):
        p = f"blk.{i}."
        yield p + "ffn_gate_inp.weight", normal(e.n_expert, s.n_embd, std=0.5)
        yield p + "ffn_gate_exps.weight", normal(e.n_expert, e.n_ff_exp, s.n_embd)
        yield p + "ffn_up_exps.weight", normal(e.n_expert, e.n_ff_exp, s.n_embd)
        yield p + "ffn_down_exps.weight", normal(e.n_expert, s.n_embd, e.n_ff_exp)
        yield p + "ffn_gate_inp_shexp.weight", normal(s.n_embd)
        yield p + "ffn_gate_shexp.weight", normal(e.n_ff_shexp, s.n_embd)
        yield p + "ffn_up_shexp.weight", normal(e.n_ff_shexp, s.n_embd)
        yield p + "ffn_down_shexp.weight", normal(s.n_embd, e.n_ff_shexp)


__all__ = ["ARCH", "EXPERTS", "MODEL_NAME", "add_hparams", "gguf_tensors"]
