"""Images kept by reference: a folder of files named by their content hash.

A session file (JSON lines) that held each screenshot as base64 would grow by megabytes a picture and be
rewritten whole on every save. Instead the history points at `<sha256>.<ext>` in an `ImageStore` (the
session's own folder): the same picture sent twice is stored once, and loading a session reads the
images back as files, which a model that can see reads only when they go into a prompt.
"""

from __future__ import annotations

import contextlib
import hashlib
import mimetypes
import os
import secrets
from pathlib import Path
from typing import Any

from qwen_runtime.images import Image, image_size, sniff_mime
from qwen_runtime.models.registry import human_size

_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
               "image/bmp": ".bmp"}


def sniff_image_type(head: bytes) -> str | None:
    """The image MIME type the first bytes of a file show (PNG, JPEG, GIF, WebP, BMP), or None."""
    return sniff_mime(head)


def describe_image(image: Image) -> str:
    """What a picture is without its pixels: "1024x768 PNG, 84.2 KiB" (for a model that cannot see, a chip)."""
    data = image.read()
    size = image_size(image)
    kind = (sniff_mime(data[:16]) or image.mime_type).removeprefix("image/").upper()
    dims = f"{size[0]}x{size[1]} " if size else ""
    return f"{dims}{kind}, {human_size(len(data))}"


class ImageStore:
    """A folder of images named by the SHA-256 of their bytes."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def put(self, image: Image) -> dict[str, str]:
        """Copy `image` into the folder (once per content) and return the reference a history keeps."""
        data = image.read()
        digest = hashlib.sha256(data).hexdigest()
        mime = image.mime_type
        name = digest + (_EXTENSIONS.get(mime) or mimetypes.guess_extension(mime) or ".bin")
        target = self.folder / name
        if not target.is_file():
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self.folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            try:
                tmp.write_bytes(data)
                os.replace(tmp, target)
            finally:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        return {"sha256": digest, "file": name, "mime": mime}

    def get(self, ref: Any, where: str = "image") -> Image:
        """The image a reference from `put` names, read from the folder when used."""
        if not isinstance(ref, dict) or not isinstance(ref.get("file"), str) or not isinstance(ref.get("sha256"), str):
            raise ValueError(f"{where}: expected an image reference with 'sha256' and 'file'")
        name = ref["file"]
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"{where}: image file name {name!r} must be a plain name inside the store")
        path = self.folder / name
        if not path.is_file():
            raise ValueError(f"{where}: image {name} is missing from {self.folder}")
        return Image(path=str(path), mime=str(ref.get("mime", "")))


def image_dimensions(image: Image) -> tuple[int, int] | None:
    """(width, height) from the image's header; None when it is damaged or no image."""
    return image_size(image)


__all__ = ["ImageStore", "describe_image", "image_dimensions", "sniff_image_type"]
