"""Issue 35's third audit, images: a small file that decodes to a huge picture (a decompression bomb)
or a file that only looks like an image is a clear `ImageError` naming it, decoded never (memory stays
bounded), not an exception from Pillow that ends the turn."""

from __future__ import annotations

import resource
import struct
import zlib
from pathlib import Path

import pytest
from qwen_runtime.images import MAX_DECODED_PIXELS, Image, ImageError, prepare_pixels


def _png(path: Path, width: int, height: int) -> Path:
    """A black 1-bit PNG, its rows compressed as a bomb's are (written by hand: Pillow would take seconds)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = zlib.compressobj(9)
    row = b"\0" * (1 + (width + 7) // 8)
    data = b"".join(rows.compress(row) for _ in range(height)) + rows.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize(("width", "height"), [(20000, 20000), (12000, 12000)])
def test_a_decompression_bomb_is_refused_before_it_is_decoded(tmp_path: Path, width: int, height: int) -> None:
    bomb = _png(tmp_path / "bomb.png", width, height)
    assert bomb.stat().st_size < 100_000 and width * height > MAX_DECODED_PIXELS
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ImageError, match=r"bomb\.png"):
        prepare_pixels(Image(path=str(bomb), mime="image/png"))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024  # KiB: nothing was decoded


def test_a_file_that_only_starts_like_a_png_is_a_damaged_image(tmp_path: Path) -> None:
    fake = tmp_path / "shot.png"
    fake.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(ImageError, match=r"shot\.png is a damaged image"):
        prepare_pixels(Image(path=str(fake), mime="image/png"))


def test_an_ordinary_picture_still_decodes(tmp_path: Path) -> None:
    pixels = prepare_pixels(Image(path=str(_png(tmp_path / "ok.png", 2000, 1000)), mime="image/png"))
    assert (pixels.original_width, pixels.original_height) == (2000, 1000) and pixels.width * pixels.height <= 1 << 20
