"""The agreeing MTP head at the bench shapes (`make-test-model --shape 0.8b --mtp --mtp-agrees`), checked
without writing the GB-sized file or running it: the tensors have the real shape's dimensions, and the
head's blocks hold the construction (an identity on the embedding, zero output projections, the model's
own output norm, `<|...|>` rows of the output zero) once dequantized as llama.cpp reads them. That drafting
with it accepts most drafts at real size is bench/bench_mtp.py's measurement; the tiny model's
test_mtp_agreeing.py runs the same construction end to end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest
from gguf.quants import dequantize
from qwen_runtime.testing.benchmodel import BENCH_SHAPES, BENCH_VOCAB, tensor_layout
from qwen_runtime.testing.benchmodel_agreeing import OUTPUT, agreeing_tensor, never_tokens
from qwen_runtime.testing.quantblocks import Quant

QTYPE = {"q8_0": gguf.GGMLQuantizationType.Q8_0, "q4_k": gguf.GGMLQuantizationType.Q4_K}


@pytest.mark.parametrize(("shape", "n_embd", "n_layer", "n_ff", "deltanet"), [("0.8b", 1024, 24, 3584, 18),
                                                                                 ("4b", 2560, 32, 9216, 24)])
def test_the_agreeing_layout_is_the_real_shape_with_an_mtp_block_and_an_untied_output(
    shape: str, n_embd: int, n_layer: int, n_ff: int, deltanet: int
) -> None:
    layout = {name: dims for name, dims, _ in tensor_layout(BENCH_SHAPES[shape], BENCH_VOCAB, True, untied=True)}
    assert layout["token_embd.weight"] == layout[OUTPUT] == (248_320, n_embd)
    assert sum(name.endswith("attn_qkv.weight") for name in layout) == deltanet
    assert sum(name.endswith("attn_q.weight") for name in layout) == n_layer - deltanet + 1  # and the head
    head = f"blk.{n_layer}."
    assert layout[head + "nextn.eh_proj.weight"] == (n_embd, 2 * n_embd)
    assert layout[head + "ffn_down.weight"] == (n_embd, n_ff)
    # the bench model without the construction keeps the embeddings tied, as the real 0.8B and 4B do
    assert OUTPUT not in {name for name, _, _ in tensor_layout(BENCH_SHAPES[shape], BENCH_VOCAB, True)}


def head_tensor(name: str, dims: tuple[int, ...], quant: Quant, output_norm: Any = None) -> Any:
    data = agreeing_tensor(name, dims, quant, np.random.default_rng(0), n_layer=2, output_norm=output_norm,
                           never=[1, 3])
    assert data is not None
    return data


@pytest.mark.parametrize("quant", ["q8_0", "q4_k"])
def test_the_head_passes_the_embedding_through_and_adds_nothing(quant: Quant) -> None:
    n = 512
    eh_proj = dequantize(head_tensor("blk.2.nextn.eh_proj.weight", (n, 2 * n), quant), QTYPE[quant])
    identity_on_embedding = np.concatenate([np.eye(n), np.zeros((n, n))], axis=1)
    np.testing.assert_allclose(eh_proj, identity_on_embedding, atol=1e-3)
    for name in ("blk.2.attn_output.weight", "blk.2.ffn_down.weight"):
        assert not dequantize(head_tensor(name, (n, 2 * n), quant), QTYPE[quant]).any()
    norm = np.linspace(0.9, 1.1, n, dtype=np.float32)
    assert np.array_equal(head_tensor("blk.2.nextn.shared_head_norm.weight", (n,), quant, norm), norm)
    assert not np.any(head_tensor("blk.2.nextn.hnorm.weight", (n,), quant) - 1)
    # the trunk's layers are the bench model's own random draw
    assert agreeing_tensor("blk.1.ffn_down.weight", (n, n), quant, np.random.default_rng(0), n_layer=2,
                           output_norm=None, never=[]) is None


@pytest.mark.parametrize("quant", ["q8_0", "q4_k"])
def test_the_output_never_picks_the_never_rows(quant: Quant) -> None:
    output = dequantize(head_tensor(OUTPUT, (6, 256), quant), QTYPE[quant])
    assert not output[[1, 3]].any()
    assert all(output[row].std() > 0 for row in (0, 2, 4, 5))


def test_never_is_the_control_looking_tokens() -> None:
    assert never_tokens(["a", "<|im_end|>", "<think>", "<|bench_7|>", "|>"]) == [1, 3]


def test_the_cli_refuses_an_agreeing_head_without_the_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qwen_runtime.cli import main

    out = tmp_path / "x.gguf"
    assert main(["make-test-model", str(out), "--arch", "qwen35", "--shape", "0.8b", "--mtp-agrees"]) != 0
    assert "use it with --mtp" in capsys.readouterr().err and not out.exists()
