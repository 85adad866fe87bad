"""Images a user attaches to a prompt: files named on the command line (`-i shot.png`), `@shot.png`
mentions in the prompt text, and image blocks from clients (base64 or a link to a file).

Each becomes an `onde.Image` (a path, read when the model needs it, or the bytes a client sent); a
name that is not a readable image is a `UsageError` that says which one and why, before anything runs.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from onde import Image, expand_home
from onde.images import describe_image, sniff_image_type

from .errors import UsageError

_MENTION = re.compile(r"(?:(?<=\s)|^)@(\"[^\"]+\"|'[^']+'|\S+)")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Larger files are refused (a screenshot is well under; a 20 MB file is no picture to show a model)."""


def image_file(path: str | Path, cwd: Path, *, what: str = "image") -> Image:
    """The image file `path` (relative to `cwd`) as an Image; UsageError naming it when it is not one."""
    full = expand_home(path)
    full = full if full.is_absolute() else cwd / full
    try:
        size = full.stat().st_size
        with full.open("rb") as handle:
            head = handle.read(16)
    except FileNotFoundError:
        raise UsageError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{what} {path}: is a directory, not an image") from None
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot read it ({exc.strerror or exc})") from None
    if sniff_image_type(head) is None:
        raise UsageError(f"{what} {path}: not a PNG, JPEG, GIF, WebP or BMP image")
    if size > MAX_IMAGE_BYTES:
        raise UsageError(f"{what} {path}: {size:,} bytes is over the {MAX_IMAGE_BYTES:,}-byte limit for an image")
    return Image.from_path(full)


def mentioned_images(text: str, cwd: Path) -> list[Image]:
    """The `@path` mentions in `text` that name image files (other mentions are left to the model)."""
    found: list[Image] = []
    for match in _MENTION.finditer(text):
        name = match.group(1).strip("\"'").rstrip(".,;:!?)")
        candidate = expand_home(name)
        candidate = candidate if candidate.is_absolute() else cwd / candidate
        if candidate.is_file():
            try:
                with candidate.open("rb") as handle:
                    is_image = sniff_image_type(handle.read(16)) is not None
            except OSError:
                continue
            if is_image:
                found.append(image_file(candidate, cwd, what="@mention"))
    return found


def prompt_images(paths: Iterable[str], text: str, cwd: Path) -> tuple[Image, ...]:
    """What a prompt sends along: the `-i` files, then the images its `@` mentions name (each once)."""
    images = [image_file(p, cwd, what="--image") for p in paths] + mentioned_images(text, cwd)
    unique: dict[str, Image] = {}
    for image in images:
        unique.setdefault(str(image.path), image)
    return tuple(unique.values())


def image_block(block: dict[str, Any], cwd: Path) -> Image:
    """A client's image block: Claude's `{"type": "image", "source": {"type": "base64", "media_type",
    "data"}}` (or `"url": "file:..."`), or ACP's `{"type": "image", "data", "mimeType", "uri"}`."""
    source = block.get("source")
    if isinstance(source, dict):
        if source.get("type") == "base64" and isinstance(source.get("data"), str):
            return _decoded(source["data"], source.get("media_type"))
        url = source.get("url")
        if isinstance(url, str) and url.startswith("file:"):
            return image_file(url.removeprefix("file://").removeprefix("file:"), cwd)
        raise UsageError("an image block's source must be base64 data or a file: URL")
    if isinstance(block.get("data"), str) and block["data"]:
        return _decoded(block["data"], block.get("mimeType"))
    uri = block.get("uri")
    if isinstance(uri, str) and uri.startswith("file:"):
        return image_file(uri.removeprefix("file://").removeprefix("file:"), cwd)
    raise UsageError("an image block holds neither data nor a file: URI")


def _decoded(data: str, mime: Any) -> Image:
    if not data:
        raise UsageError("an image block holds no data")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise UsageError("an image block's data is not valid base64") from None
    if sniff_image_type(raw[:16]) is None:
        raise UsageError(f"an image block ({mime or 'no type'}) does not hold a PNG, JPEG, GIF, WebP or BMP image")
    return Image.from_bytes(raw, str(mime) if mime else None)


def chip(image: Image) -> str:
    """A short label for an attachment: its name, pixel size and file size ("shot.png 1024x768 84 KB")."""
    return f"{image.name} {describe_image(image)}"


def describe_all(images: Sequence[Image]) -> str:
    return ", ".join(chip(i) for i in images)


__all__ = ["chip", "describe_all", "image_block", "image_file", "mentioned_images", "prompt_images"]
