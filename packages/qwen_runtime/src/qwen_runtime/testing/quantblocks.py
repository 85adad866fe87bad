"""Quantized weight matrices written as GGUF blocks directly (Q8_0, Q4_K): random, zero or an identity.

Quantizing a real-size float matrix in numpy takes minutes and gigabytes; drawing the blocks takes
seconds and one tensor's memory, which is what the bench models (`benchmodel`) need. Each function
returns a (rows, bytes per row) uint8 array for a matrix of numpy shape (rows, cols), (out, in).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

Quant = Literal["q8_0", "q4_k"]
QUANTS: tuple[Quant, ...] = ("q8_0", "q4_k")
Blocks = np.ndarray[Any, np.dtype[np.uint8]]

_Q8_0_BYTES = 34  # an f16 scale and 32 int8 values
_Q4_K_BYTES = 144  # f16 d and dmin, 12 bytes of 6-bit scales and mins, 128 bytes of 4-bit values


def random_blocks(quant: Quant, shape: tuple[int, ...], rng: np.random.Generator, scale: float = 1.0) -> Blocks:
    """Zero-mean weights of std about `scale` / sqrt(cols), the spread a trained layer keeps."""
    return _q8_0(shape, rng, scale) if quant == "q8_0" else _q4_k(shape, rng, scale)


def _q8_0(shape: tuple[int, ...], rng: np.random.Generator, scale: float) -> Blocks:
    """Q8_0 blocks: int8 uniform over -127..127 (std 73.3) times one scale."""
    rows, cols = shape
    q = rng.integers(-127, 128, (rows, cols // 32, 32), dtype=np.int8).view(np.uint8)
    d = np.full((rows, cols // 32, 1), scale / (73.3 * np.sqrt(cols)), dtype=np.float16).view(np.uint8)
    return np.concatenate([d, q], axis=2).reshape(rows, -1)


def _q4_k(shape: tuple[int, ...], rng: np.random.Generator, scale: float) -> Blocks:
    """Q4_K super-blocks (d, dmin, 12 scale bytes, 128 nibble bytes) whose weights average zero: every
    scale byte 17 makes each sub-block's scale equal its min, and dmin = 7.5 d centres 0..15 on 0."""
    rows, cols = shape
    n = cols // 256
    d = scale / (9.0 * 4.6 * np.sqrt(cols))
    head = np.array([d, 7.5 * d], dtype=np.float16).view(np.uint8)
    blocks = np.empty((rows, n, _Q4_K_BYTES), dtype=np.uint8)
    blocks[:, :, 0:4] = head
    blocks[:, :, 4:16] = 17
    blocks[:, :, 16:] = rng.integers(0, 256, (rows, n, 128), dtype=np.uint8)
    return blocks.reshape(rows, -1)


def zero_rows(quant: Quant, blocks: Blocks, rows: Any) -> Blocks:
    """`blocks` with the weights of `rows` (indices or a mask) all zero: their scales zeroed in place."""
    width = _Q8_0_BYTES if quant == "q8_0" else _Q4_K_BYTES
    scales = 2 if quant == "q8_0" else 4  # Q4_K: d and dmin
    view = blocks.reshape(blocks.shape[0], -1, width)
    view[rows, :, :scales] = 0
    return blocks


def zero_blocks(quant: Quant, shape: tuple[int, ...]) -> Blocks:
    """An all-zero matrix (every scale 0)."""
    rows, cols = shape
    width, per = (_Q8_0_BYTES, 32) if quant == "q8_0" else (_Q4_K_BYTES, 256)
    return np.zeros((rows, cols // per * width), dtype=np.uint8)


def identity_blocks(quant: Quant, shape: tuple[int, ...]) -> Blocks:
    """1 at (i, i) for every row i, 0 elsewhere (cols >= rows: an identity on the first `rows` inputs).

    Q8_0: the diagonal's block holds 127 with a scale of 1/127. Q4_K: the diagonal's super-block has
    d = 1/15, every sub-block's 6-bit scale 1 and min 0, and the diagonal's nibble 15 (the rest 0).
    """
    rows, cols = shape
    if cols < rows:
        raise ValueError(f"an identity needs at least as many columns as rows, not {shape}")
    out = zero_blocks(quant, shape)
    at = np.arange(rows)
    if quant == "q8_0":
        view = out.reshape(rows, -1, _Q8_0_BYTES)
        block, within = at // 32, at % 32
        view[at, block, 0:2] = np.array([1.0 / 127.0], dtype=np.float16).view(np.uint8)
        view[at, block, 2 + within] = 127
        return out
    view = out.reshape(rows, -1, _Q4_K_BYTES)
    block, within = at // 256, at % 256
    view[at, block, 0:4] = np.array([1.0 / 15.0, 0.0], dtype=np.float16).view(np.uint8)
    # scale bytes 0-3: the low 6 bits are sub-blocks 0-3's scales; 4-7 their mins; 8-11 the low nibbles
    # are sub-blocks 4-7's scales and the high nibbles their mins (the 6-bit values' top bits are 0 here)
    view[at, block, 4:8] = 1
    view[at, block, 8:12] = 0
    view[at, block, 12:16] = 1
    # values: 64 per 32-byte group, the first 32 in the low nibbles, the next 32 in the high ones
    group, rest = within // 64, within % 64
    view[at, block, 16 + group * 32 + rest % 32] = np.where(rest < 32, 0x0F, 0xF0).astype(np.uint8)
    return out


__all__ = ["QUANTS", "Quant", "identity_blocks", "random_blocks", "zero_blocks", "zero_rows"]
