"""Prompt content blocks to the one text the model reads.

Embedded resources are inlined with their URI, `file://` links are read from disk (honouring the
editor's `#L207:219` / `#L207-219` line ranges), and anything the model cannot take (images, audio,
binary blobs, other URI schemes) becomes a visible note instead of vanishing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import RequestError
from onde import Image

from ...attachments import image_block
from ...errors import UsageError
from ...fileio import read_bounded, read_regular
from ...tools.base import ToolError, decode_text

MAX_LINK_BYTES = 256 * 1024
MAX_DIR_ENTRIES = 200
_RANGE = re.compile(r"^L(\d+)(?:[:-]L?(\d+))?$")


def inline(uri: str, text: str) -> str:
    return f"--- {uri} ---\n{text.rstrip(chr(10))}\n--- end ---"


def line_range(fragment: str) -> tuple[int, int] | None:
    """`L207:219` / `L207-219` -> (207, 219); `L5` -> (5, 5); None when there is no range."""
    match = _RANGE.match(fragment)
    if match is None:
        return None
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) else start
    if start < 1 or end < start:
        raise ValueError(f"bad line range #{fragment}: lines start at 1 and the end may not come first")
    return start, end


def file_uri_path(uri: str) -> tuple[Path, str]:
    """The local path of a `file://` URI and its fragment."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ValueError(f"only file:// links can be read, not {parsed.scheme or 'a bare'}: {uri}")
    if parsed.netloc not in ("", "localhost"):
        raise ValueError(f"file link on another host ({parsed.netloc}): {uri}")
    return Path(unquote(parsed.path)), parsed.fragment


def _read_link(path: Path, fragment: str) -> str:
    if path.is_dir():
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        more = f"\n... and {len(names) - MAX_DIR_ENTRIES} more" if len(names) > MAX_DIR_ENTRIES else ""
        return "(directory)\n" + "\n".join(names[:MAX_DIR_ENTRIES]) + more
    span = line_range(fragment) if fragment else None
    # the file tools' reader: regular files only, never more than the limit (a FIFO cannot hang it)
    data = read_bounded(path) if span is not None else read_regular(path, MAX_LINK_BYTES)
    truncated = span is None and len(data) > MAX_LINK_BYTES
    text, _ = decode_text(data[:MAX_LINK_BYTES] if truncated else data, path)
    if span is not None:
        lines = text.splitlines()
        start, end = span
        if start > len(lines):
            raise ValueError(f"#{fragment} is past the end of {path} ({len(lines)} lines)")
        return "\n".join(lines[start - 1 : end])
    return text + (f"\n... (truncated at {MAX_LINK_BYTES} bytes)" if truncated else "")


async def read_resource_link(uri: str) -> str:
    """The linked file's text inlined, or a note saying why it could not be read."""
    try:
        path, fragment = file_uri_path(uri)
        text = await asyncio.to_thread(_read_link, path, fragment)
    except (OSError, ValueError, ToolError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"[Attached link {uri} could not be read: {detail}]"
    return inline(uri, text)


def _is_image_link(block: Any) -> bool:
    mime = getattr(block, "mime_type", None) or ""
    uri = str(getattr(block, "uri", ""))
    return getattr(block, "type", None) == "resource_link" and (
        mime.startswith("image/") or uri.lower().endswith((".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp")))


async def prompt_images(blocks: Sequence[Any], cwd: Path) -> tuple[Image, ...]:
    """The images the blocks hold, for a model that can see: `image` blocks (base64 data, or a file:
    URI) and `resource_link`s to image files. A block that is no readable image is invalid params."""
    found: list[Image] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "image" or _is_image_link(block):
            raw = {"type": "image", "data": getattr(block, "data", None) if kind == "image" else None,
                   "mimeType": getattr(block, "mime_type", None), "uri": getattr(block, "uri", None)}
            try:
                found.append(await asyncio.to_thread(image_block, raw, cwd))
            except UsageError as exc:
                raise RequestError.invalid_params({"details": str(exc)}) from None
    return tuple(found)


async def prompt_text(blocks: Sequence[Any], *, images_sent: bool = False) -> str:
    """Join the blocks into the prompt; text blocks stay as they are, the rest become sections.
    `images_sent`: image blocks and links to images go to the model as pictures, not as notes here."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif images_sent and (kind == "image" or _is_image_link(block)):
            continue
        elif kind == "resource_link":
            parts.append("\n" + await read_resource_link(block.uri) + "\n")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                parts.append("\n" + inline(resource.uri, text) + "\n")
            else:
                mime = getattr(resource, "mime_type", None) or "binary"
                parts.append(f"\n[Attached {resource.uri} ({mime}) is binary and was not included.]\n")
        elif kind == "image":
            where = f" ({block.uri})" if getattr(block, "uri", None) else ""
            parts.append(f"\n[An image{where} was attached, but this model cannot see images; "
                         "describe it in text if it matters.]\n")
        elif kind == "audio":
            parts.append("\n[An audio clip was attached, but this model cannot hear audio.]\n")
        else:
            parts.append(f"\n[An attachment of unsupported type {kind!r} was left out.]\n")
    return "".join(parts).strip()
