"""Instruction files (AGENTS.md, else CLAUDE.md) that go into the system prompt.

One global file from the config dir, then one per directory from the repo root down to the
cwd: most general first, so the nearest file has the last word. Sizes are capped so a huge file
cannot crowd the conversation out of a small model's context.
"""

from __future__ import annotations

import codecs
import logging
from dataclasses import dataclass
from pathlib import Path

from sigit.config.paths import find_repo_root, resolves_inside
from sigit.fileio import read_regular

log = logging.getLogger(__name__)
INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md")
PER_FILE_LIMIT = 32 * 1024
TOTAL_LIMIT = 64 * 1024


@dataclass(frozen=True)
class InstructionFile:
    path: Path
    text: str
    size: int  # bytes on disk
    truncated: bool


@dataclass(frozen=True)
class Instructions:
    files: list[InstructionFile]
    dropped: list[Path]  # left out because the total limit was reached
    unreadable: list[str]  # "path: why" (also files skipped because they lead outside the project)


def pick_instruction_file(directory: Path) -> Path | None:
    """The instruction file a directory contributes: the first of INSTRUCTION_NAMES that exists."""
    for name in INSTRUCTION_NAMES:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    return None


def find_instruction_files(cwd: Path, config_dir: Path) -> list[Path]:
    """The global file first, then repo root down to cwd (only cwd when not in a repo)."""
    start = cwd.resolve()
    root = find_repo_root(start)
    directories = [start]
    if root is not None:
        directories = [start, *[p for p in start.parents if root in (p, *p.parents)]]
    found: list[Path] = []
    seen: set[Path] = set()
    for directory in [config_dir, *reversed(directories)]:
        picked = pick_instruction_file(directory)
        if picked is not None and picked.resolve() not in seen:
            seen.add(picked.resolve())
            found.append(picked)
    return found


def load_instructions(
    cwd: Path, config_dir: Path, *, per_file: int = PER_FILE_LIMIT, total: int = TOTAL_LIMIT
) -> Instructions:
    files: list[InstructionFile] = []
    dropped: list[Path] = []
    unreadable: list[str] = []
    used = 0
    start = cwd.resolve()
    bounds = (find_repo_root(start) or start, config_dir)
    for path in find_instruction_files(cwd, config_dir):
        if path.parent != config_dir and not resolves_inside(path, *bounds):
            # `AGENTS.md -> ~/secret` in an untrusted repository (the user's own global file may link anywhere)
            unreadable.append(f"{path}: skipped, it leads outside the project (to {path.resolve()})")
            log.warning("instruction file %s skipped: it leads outside the project", path)
            continue
        if used >= total or dropped:
            dropped.append(path)
            continue
        try:  # the repository's AGENTS.md may be a FIFO or a link to /dev/zero
            data = read_regular(path, per_file)
            size = max(len(data), path.stat().st_size)
        except OSError as exc:
            unreadable.append(f"{path}: {exc.strerror or exc}")
            continue
        if not data.strip():
            continue
        kept = data[:per_file]
        if used + len(kept) > total:
            dropped.append(path)
            continue
        used += len(kept)
        # final=False drops a character cut in half by the limit; bad bytes elsewhere become U+FFFD.
        text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(kept, final=False)
        files.append(InstructionFile(path, text, size, len(data) > per_file))
    return Instructions(files, dropped, unreadable)


def render_instructions(instructions: Instructions, cwd: Path) -> str:
    """The prompt section; empty when there are no instruction files."""
    if not instructions.files and not instructions.dropped and not instructions.unreadable:
        return ""
    parts = [
        "# Project instructions\n"
        "The user's instruction files follow, most general first; when they disagree, the later "
        "(nearer) one wins. Follow them."
    ]
    for item in instructions.files:
        body = item.text.rstrip()
        if item.truncated:
            body += (
                f"\n[... truncated: {_shown(item.path, cwd)} is {item.size:,} bytes; "
                f"only the first {PER_FILE_LIMIT // 1024} KiB are shown. Read the file for the rest.]"
            )
        parts.append(f'<instructions file="{_shown(item.path, cwd)}">\n{body}\n</instructions>')
    if instructions.dropped:
        names = ", ".join(_shown(path, cwd) for path in instructions.dropped)
        parts.append(
            f"[Left out because instruction files are limited to {TOTAL_LIMIT // 1024} KiB in all: "
            f"{names}. Read them with a file tool if they matter.]"
        )
    if instructions.unreadable:
        parts.append("[Not read: " + "; ".join(instructions.unreadable) + ".]")
    return "\n\n".join(parts)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return str(path)
