"""What one tool call touches, declared by the tool itself, and what its permission prompt shows.

Every decision about a call (permission policy, hook matchers, checkpoints, permission prompts,
editor cards) reads these declarations instead of switching on the tool's name, so what is judged is
exactly what runs. Paths are absolute and normalised against the session's cwd the way the tool
itself resolves them (`ToolContext.resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Subjects:
    """The files, command and URL of one call. `known=False`: the tool cannot say (MCP tools)."""

    reads: tuple[Path, ...] = ()
    writes: tuple[Path, ...] = ()
    creates_parents: bool = False
    """Missing parent directories of `writes` are created (a rewind removes them again)."""
    command: str | None = None
    command_cwd: Path | None = None
    url: str | None = None
    known: bool = True

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every path the call reads or writes, writes first, each once."""
        return tuple(dict.fromkeys((*self.writes, *self.reads)))


UNKNOWN = Subjects(known=False)
"""A call whose effects the tool cannot declare: never read-only, no paths to match or snapshot."""


@dataclass(frozen=True)
class Preview:
    """What a permission prompt shows: `text` (a diff, the command, ...) and, for a file change, the
    file with the text it holds now and the text it would hold (an editor renders that as a diff)."""

    text: str
    path: Path | None = None
    old_text: str | None = None
    new_text: str | None = None
