"""YAML frontmatter of skill, command and agent files, read the way Claude Code's files are written.

A broken file must never stop a session: every failure here becomes an `ExtensionWarning` that
names the file and the problem, and the caller skips (or keeps, without metadata) that one file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sigit.errors import UsageError
from sigit.fileio import read_regular

MAX_FILE_BYTES = 256 * 1024


class FrontmatterError(UsageError, ValueError):
    """Frontmatter that cannot be read; the message says what is wrong and where."""


class ExtensionWarning(str):
    """A problem with one extension file: a plain string ("path: message") that also keeps its parts."""

    path: Path
    message: str

    def __new__(cls, path: Path, message: str) -> ExtensionWarning:
        obj = super().__new__(cls, f"{path}: {message}")
        obj.path = path
        obj.message = message
        return obj


@dataclass(frozen=True)
class Document:
    metadata: dict[str, Any] = field(default_factory=dict)
    body: str = ""


_OPEN = re.compile(r"\A---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?$")


def parse_frontmatter(text: str) -> Document:
    """Split `---`-fenced YAML from the body; text without an opening fence is all body."""
    if text.startswith("\ufeff"):
        text = text[1:]
    opening = _OPEN.match(text)
    if opening is None:
        return Document({}, text)
    rest = text[opening.end() :]
    closing = _CLOSE.search(rest)
    if closing is None:
        raise FrontmatterError("frontmatter starts with '---' but has no closing '---' line")
    raw = rest[: closing.start()]
    body = rest[closing.end() :]
    for newline in ("\r\n", "\n"):
        if body.startswith(newline):
            body = body[len(newline) :]
            break
    return Document(_load_yaml(raw), body)


def _load_yaml(raw: str) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        # Claude Code's files hold values strict YAML rejects (unquoted colons in descriptions,
        # `argument-hint: [pr] [priority]`); read such blocks as plain `key: value` lines instead.
        lenient = _plain_lines(raw)
        if lenient is not None:
            return lenient
        raise FrontmatterError(f"invalid YAML in frontmatter: {_describe(exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(
            f"frontmatter must be a mapping of keys to values, got {type(data).__name__}"
        )
    return {str(key): value for key, value in data.items()}


def _plain_lines(raw: str) -> dict[str, Any] | None:
    """`key: value` lines, indented lines continuing the previous value; None if the block is not that."""
    out: dict[str, Any] = {}
    key: str | None = None
    for line in raw.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[:1] in (" ", "\t"):
            if key is None:
                return None
            out[key] = f"{out[key]} {line.strip()}".strip()
            continue
        match = _KEY_LINE.match(line.rstrip())
        if match is None:
            return None
        key = match.group(1)
        out[key] = (match.group(2) or "").strip()
    if not all(_balanced(str(value)) for value in out.values()):
        return None  # a real YAML mistake (an unclosed `[` or `{`), not prose
    return out


def _balanced(value: str) -> bool:
    depth: list[str] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for ch in value:
        if ch in "([{":
            depth.append(ch)
        elif ch in pairs and (not depth or depth.pop() != pairs[ch]):
            return False
    return not depth


def _describe(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is not None and problem:
        # +2: the fence line, and YAML counts lines from 0
        return f"{problem} (frontmatter line {mark.line + 2}, column {mark.column + 1})"
    return str(exc).replace("\n", " ")


def read_document(path: Path) -> Document | ExtensionWarning:
    """The file's frontmatter and body, or a warning saying why it could not be used."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)  # a repository's file may be a FIFO or a device
    except OSError as exc:
        return ExtensionWarning(path, f"cannot read: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:
        return ExtensionWarning(path, f"too large (over {MAX_FILE_BYTES} bytes, the limit)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ExtensionWarning(path, f"not UTF-8 text (byte {exc.start})")
    try:
        return parse_frontmatter(text.replace("\r\n", "\n"))
    except FrontmatterError as exc:
        return ExtensionWarning(path, str(exc))


def text_field(metadata: dict[str, Any], key: str) -> str | None:
    """A string field; numbers and booleans are taken as text, lists and mappings are an error."""
    value = metadata.get(key)
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise FrontmatterError(f"'{key}' must be text, got a {type(value).__name__}")
    return str(value).strip()


def first_line(body: str, limit: int) -> str:
    """The first non-empty line of a body, heading marks removed, cut to `limit` (a fallback description)."""
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:limit]
    return ""
