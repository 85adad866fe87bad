"""Images in user messages: what one is (bytes and a MIME type, or a file), and how it is made small.

An `Image` holds either the encoded file (PNG, JPEG, GIF, WebP, BMP) with its MIME type, or the path of
a file that holds it, read when the image is used, so a long conversation keeps images by reference.
Its content hash identifies it wherever the same picture must be recognised again: in a prompt's
tokens (the prompt cache), in a session's folder.

Before a vision model encodes an image it is decoded and, past `max_pixels`, downscaled with Pillow
(`prepare_pixels`): a 4K screenshot would otherwise cost thousands of tokens and seconds of encoding.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import math
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import QwenRuntimeError
from .home import expand_home

DEFAULT_MAX_IMAGE_PIXELS = 1024 * 1024
MAX_DECODED_PIXELS = 64 * 1024 * 1024
"""Larger images are refused before their pixels are decoded: a 20 KB PNG can hold 12000x12000
pixels, close to 1 GB once decoded (Pillow itself only warns below 179 M pixels)."""
"""Images larger than this many pixels are downscaled before encoding (about 1,000 tokens on Qwen 3.5,
whose vision tower makes one token of each 32x32 pixel square)."""

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")
"""The MIME types read as images."""

_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
    (b"BM", 0, "image/bmp"),
)


class ImageError(QwenRuntimeError):
    """An image that cannot be used: unreadable, not an image, or sent to a model that cannot see."""


def sniff_mime(data: bytes) -> str | None:
    """The image MIME type the bytes start with (PNG, JPEG, GIF, WebP, BMP), or None."""
    for magic, offset, mime in _MAGIC:
        if data[offset : offset + len(magic)] == magic and (mime != "image/webp" or data[:4] == b"RIFF"):
            return mime
    return None


def is_image_file(path: str | Path) -> bool:
    """True when the file starts like an image this module reads (by content, not by name)."""
    try:
        with Path(path).open("rb") as f:
            head = f.read(16)
    except OSError:
        return False
    return sniff_mime(head) is not None


@dataclass(frozen=True)
class Image:
    """An image for a model: `data` (the encoded file) with `mime`, or `path` (read when used)."""

    data: bytes | None = None
    mime: str = ""
    path: str | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.path is None):
            raise ValueError("an Image holds either data or a path, not both or neither")

    # ------------------------------------------------------------------ making one

    @classmethod
    def from_path(cls, path: str | Path) -> Image:
        return cls(path=str(expand_home(path)))

    @classmethod
    def from_bytes(cls, data: bytes, mime: str | None = None) -> Image:
        return cls(data=bytes(data), mime=mime or sniff_mime(data) or "application/octet-stream")

    @classmethod
    def from_data_url(cls, url: str) -> Image:
        """`data:image/png;base64,...` -> an Image (ImageError when it is not a base64 data URL)."""
        head, sep, payload = url.partition(",")
        if not url.startswith("data:") or not sep or ";base64" not in head:
            raise ImageError(f"not a base64 data: URL: {url[:40]!r}")
        try:
            data = base64.b64decode(payload + "=" * (-len(payload) % 4), validate=False)
        except (binascii.Error, ValueError) as exc:
            raise ImageError(f"the data: URL's base64 does not decode: {exc}") from None
        return cls.from_bytes(data, head[5:].split(";", 1)[0] or None)

    @classmethod
    def coerce(cls, value: Image | str | bytes | Path) -> Image:
        """An Image from what callers hold: an Image, a data: URL, a file path, or the bytes of a file."""
        if isinstance(value, Image):
            return value
        if isinstance(value, bytes | bytearray):
            return cls.from_bytes(bytes(value))
        if isinstance(value, str) and value.startswith("data:"):
            return cls.from_data_url(value)
        if isinstance(value, str | Path):
            return cls.from_path(value)
        raise TypeError(f"an image is an Image, a data: URL, a path or bytes, not {type(value).__name__}")

    # ------------------------------------------------------------------ reading it

    @property
    def name(self) -> str:
        """A short name for messages: the file's name, or "image.png" and the like."""
        if self.path is not None:
            return Path(self.path).name
        return "image" + (mimetypes.guess_extension(self.mime) or "")

    def read(self) -> bytes:
        """The encoded image; ImageError naming the file when it cannot be read."""
        if self.data is not None:
            return self.data
        try:
            return Path(str(self.path)).read_bytes()
        except OSError as exc:
            raise ImageError(f"cannot read image {self.path}: {exc.strerror or exc}") from None

    @property
    def mime_type(self) -> str:
        """The MIME type: given, else read from the bytes, else guessed from the file name."""
        if self.mime and self.mime != "application/octet-stream":
            return self.mime
        if self.path is not None:
            try:
                with Path(self.path).open("rb") as f:
                    found = sniff_mime(f.read(16))
            except OSError:
                found = None
            return found or mimetypes.guess_type(self.path)[0] or "application/octet-stream"
        return sniff_mime(self.read()) or self.mime or "application/octet-stream"

    def digest(self) -> str:
        """The SHA-256 of the encoded image (hex): the same picture has the same digest wherever it is."""
        return hashlib.sha256(self.read()).hexdigest()

    def data_url(self) -> str:
        return f"data:{self.mime_type};base64,{base64.b64encode(self.read()).decode()}"

    def to_json(self) -> dict[str, str]:
        """A JSON form (a path, or the bytes as a data: URL); `Image.from_json` reads it back."""
        return {"path": self.path} if self.path is not None else {"data_url": self.data_url()}

    @classmethod
    def from_json(cls, value: Any) -> Image:
        if isinstance(value, str):
            return cls.coerce(value)
        if isinstance(value, dict):
            if isinstance(value.get("path"), str):
                return cls.from_path(value["path"])
            if isinstance(value.get("data_url"), str):
                return cls.from_data_url(value["data_url"])
        raise ValueError(f"not an image: {str(value)[:80]}")


@dataclass(frozen=True)
class Pixels:
    """A decoded image: RGB bytes, row by row, and the size before any downscaling."""

    width: int
    height: int
    rgb: bytes
    original_width: int
    original_height: int

    @property
    def downscaled(self) -> bool:
        return (self.width, self.height) != (self.original_width, self.original_height)


def fit_size(width: int, height: int, max_pixels: int) -> tuple[int, int]:
    """`width` x `height` scaled down (aspect kept) to at most `max_pixels` pixels; unchanged if it fits."""
    if max_pixels <= 0 or width * height <= max_pixels:
        return width, height
    scale = math.sqrt(max_pixels / (width * height))
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    while w * h > max_pixels:  # rounding can leave it a row over
        w, h = (w - 1, h) if w >= h else (w, h - 1)
    return w, h


def prepare_pixels(image: Image, max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS) -> Pixels:
    """Decode `image` (EXIF rotation applied, transparency over white) and downscale it to `max_pixels`."""
    from PIL import Image as PILImage
    from PIL import ImageOps, UnidentifiedImageError

    data = image.read()
    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            width, height = opened.size
            if width * height > MAX_DECODED_PIXELS:
                raise ImageError(f"{image.name} is {width}x{height} pixels, more than the {MAX_DECODED_PIXELS} "
                                 "an image may have; scale it down first")
            opened.seek(0)  # the first frame of an animation
            picture = ImageOps.exif_transpose(opened)
            if picture.mode in ("RGBA", "LA", "P", "PA"):
                picture = picture.convert("RGBA")
                background = PILImage.new("RGBA", picture.size, (255, 255, 255, 255))
                picture = PILImage.alpha_composite(background, picture)
            picture = picture.convert("RGB")
    except UnidentifiedImageError:
        raise ImageError(
            f"{image.name} is not an image Pillow can decode (PNG, JPEG, GIF, WebP or BMP expected)"
        ) from None
    except PILImage.DecompressionBombError as exc:  # past 179 M pixels in a frame or chunk Pillow checks
        raise ImageError(f"{image.name} is refused: {exc}") from None
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow reports damaged files with these
        raise ImageError(f"{image.name} is a damaged image: {exc}") from None
    original = picture.size
    size = fit_size(*original, max_pixels)
    if size != original:
        picture = picture.resize(size, PILImage.Resampling.BICUBIC, reducing_gap=2.0)
    return Pixels(size[0], size[1], picture.tobytes(), original[0], original[1])


def image_size(image: Image) -> tuple[int, int] | None:
    """(width, height) read from the header without decoding the pixels; None when not an image."""
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(io.BytesIO(image.read())) as opened:
            return int(opened.size[0]), int(opened.size[1])
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None


__all__ = [
    "DEFAULT_MAX_IMAGE_PIXELS",
    "IMAGE_TYPES",
    "MAX_DECODED_PIXELS",
    "Image",
    "ImageError",
    "Pixels",
    "fit_size",
    "image_size",
    "is_image_file",
    "prepare_pixels",
    "sniff_mime",
]
