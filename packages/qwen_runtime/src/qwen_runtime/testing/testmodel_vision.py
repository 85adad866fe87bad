"""The tiny Qwen 3.5 vision tower: a random-weight projector (mmproj GGUF) for the tiny hybrid model.

Qwen 3.5's vision tower is Qwen3-VL's: 16x16 patches (two frames stacked, split into two 2D kernels),
learned position embeddings on a square grid resized to the image, pre-norm ViT blocks with a fused QKV
and a GELU MLP, then a merger (layer norm, 2x2 patch merge, two linear layers) into the language model's
embedding width. llama.cpp reads it as projector `qwen3vl_merger`. Names and keys are those the vendored
converter writes (`conversion/qwen3vl.py` on `gguf`'s tensor table; `tools/mtmd/clip-impl.h` reads them),
so llama.cpp runs real image encoding on it offline. `QWEN35_08B` has the real 0.8B tower's dimensions
(its Hugging Face config), for timing encoding without downloading it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PROJECTOR_TYPE = "qwen3vl_merger"


@dataclass(frozen=True)
class VisionShape:
    """A Qwen 3.5 vision tower's dimensions (its `vision_config`)."""

    depth: int = 2
    hidden_size: int = 32
    num_heads: int = 2
    intermediate_size: int = 64
    patch_size: int = 16
    temporal_patch_size: int = 2
    spatial_merge_size: int = 2
    num_position_embeddings: int = 64
    """A square grid of learned positions (8x8 here, 48x48 on the real towers)."""
    layer_norm_eps: float = 1e-6

    @property
    def image_size(self) -> int:
        return int(math.isqrt(self.num_position_embeddings) * self.patch_size)


TINY = VisionShape()
QWEN35_08B = VisionShape(depth=12, hidden_size=768, num_heads=12, intermediate_size=3072,
                         num_position_embeddings=2304)
"""Qwen3.5-0.8B's tower (`vision_config`: depth 12, width 768, 12 heads, MLP 3072, 2304 positions;
its output width, the text model's, is 1024)."""

Array = np.ndarray[Any, np.dtype[np.float32]]


def vision_weights(shape: VisionShape, out_dim: int, seed: int) -> dict[str, Array]:
    """Hugging Face-named f32 weights of `model.visual` (torch layout: (out, in))."""
    rng = np.random.default_rng(seed)
    h, ff, p = shape.hidden_size, shape.intermediate_size, shape.patch_size
    merged = h * shape.spatial_merge_size**2

    def normal(*dims: int, std: float = 0.05) -> Array:
        return (rng.standard_normal(dims) * std).astype(np.float32)

    def ones(n: int) -> Array:
        return (1.0 + rng.standard_normal(n) * 0.02).astype(np.float32)

    out = {
        "visual.patch_embed.proj.weight": normal(h, 3, shape.temporal_patch_size, p, p),
        "visual.patch_embed.proj.bias": normal(h),
        "visual.pos_embed.weight": normal(shape.num_position_embeddings, h, std=0.02),
    }
    for i in range(shape.depth):
        b = f"visual.blocks.{i}."
        out |= {
            b + "norm1.weight": ones(h), b + "norm1.bias": normal(h, std=0.01),
            b + "attn.qkv.weight": normal(3 * h, h), b + "attn.qkv.bias": normal(3 * h, std=0.01),
            b + "attn.proj.weight": normal(h, h), b + "attn.proj.bias": normal(h, std=0.01),
            b + "norm2.weight": ones(h), b + "norm2.bias": normal(h, std=0.01),
            b + "mlp.linear_fc1.weight": normal(ff, h), b + "mlp.linear_fc1.bias": normal(ff, std=0.01),
            b + "mlp.linear_fc2.weight": normal(h, ff), b + "mlp.linear_fc2.bias": normal(h, std=0.01),
        }
    out |= {
        "visual.merger.norm.weight": ones(h), "visual.merger.norm.bias": normal(h, std=0.01),
        "visual.merger.linear_fc1.weight": normal(merged, merged),
        "visual.merger.linear_fc1.bias": normal(merged, std=0.01),
        "visual.merger.linear_fc2.weight": normal(out_dim, merged, std=0.5),
        "visual.merger.linear_fc2.bias": normal(out_dim, std=0.01),
    }
    return out


def gguf_vision_tensors(hf: dict[str, Array]) -> dict[str, Array]:
    """The weights under llama.cpp's names, converted as `conversion/qwen3vl.py` converts them."""
    import gguf

    names = gguf.TENSOR_NAMES
    t = gguf.MODEL_TENSOR
    block = {
        "norm1": t.V_ENC_INPUT_NORM, "attn.qkv": t.V_ENC_ATTN_QKV, "attn.proj": t.V_ENC_ATTN_O,
        "norm2": t.V_ENC_POST_ATTN_NORM, "mlp.linear_fc1": t.V_ENC_FFN_UP, "mlp.linear_fc2": t.V_ENC_FFN_DOWN,
    }
    out: dict[str, Array] = {}
    for name, array in hf.items():
        if name == "visual.patch_embed.proj.weight":  # the two frames' kernels become two 2D kernels
            out[names[t.V_ENC_EMBD_PATCH] + ".weight"] = np.ascontiguousarray(array[:, :, 0])
            out[names[t.V_ENC_EMBD_PATCH] + ".weight.1"] = np.ascontiguousarray(array[:, :, 1])
        elif name == "visual.patch_embed.proj.bias":
            out[names[t.V_ENC_EMBD_PATCH] + ".bias"] = array
        elif name == "visual.pos_embed.weight":
            out[names[t.V_ENC_EMBD_POS] + ".weight"] = array
        elif name.startswith("visual.merger."):
            part, kind = name.removeprefix("visual.merger.").rsplit(".", 1)
            if part == "norm":
                out[f"{names[t.V_POST_NORM]}.{kind}"] = array
            else:  # linear_fc1 -> mm.0, linear_fc2 -> mm.2 (Qwen2-VL's indices)
                index = 0 if part == "linear_fc1" else 2
                out[f"{names[t.V_MMPROJ].format(bid=index)}.{kind}"] = array
        else:
            layer, rest = name.removeprefix("visual.blocks.").split(".", 1)
            part, kind = rest.rsplit(".", 1)
            out[f"{names[block[part]].format(bid=int(layer))}.{kind}"] = array
    return out


def write_test_mmproj(
    path: str | Path, *, out_dim: int, shape: VisionShape = TINY, seed: int = 7, f16: bool = False
) -> Path:
    """Write a random-weight Qwen 3.5 projector whose output width is `out_dim` (the text model's);
    `f16`: matrices in half precision, as the published `mmproj-F16.gguf` files have them."""
    import gguf

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), arch="clip")
    writer.add_name("siGit tiny Qwen3.5 vision tower")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if f16 else gguf.LlamaFileType.ALL_F32)
    writer.add_clip_has_vision_encoder(True)
    writer.add_clip_projector_type(PROJECTOR_TYPE)
    writer.add_vision_projection_dim(out_dim)
    writer.add_vision_image_size(shape.image_size)
    writer.add_vision_patch_size(shape.patch_size)
    writer.add_vision_embedding_length(shape.hidden_size)
    writer.add_vision_feed_forward_length(shape.intermediate_size)
    writer.add_vision_block_count(shape.depth)
    writer.add_vision_head_count(shape.num_heads)
    writer.add_vision_attention_layernorm_eps(shape.layer_norm_eps)
    writer.add_vision_image_mean([0.5, 0.5, 0.5])
    writer.add_vision_image_std([0.5, 0.5, 0.5])
    writer.add_vision_spatial_merge_size(shape.spatial_merge_size)
    writer.add_vision_use_gelu(True)
    for name, array in gguf_vision_tensors(vision_weights(shape, out_dim, seed)).items():
        half = f16 and array.ndim >= 2 and not name.startswith("v.position_embd")
        writer.add_tensor(name, array.astype(np.float16) if half else array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def mmproj_path_for(model_path: str | Path) -> Path:
    """Where `make-test-model --vision OUT.gguf` puts the projector: `mmproj-OUT.gguf` beside it."""
    model = Path(model_path)
    return model.with_name(f"mmproj-{model.name}")


__all__ = ["PROJECTOR_TYPE", "QWEN35_08B", "TINY", "VisionShape", "mmproj_path_for", "write_test_mmproj"]
