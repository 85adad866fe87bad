"""What a parsed shell line is: its simple commands, the files it writes, and why it may be unanalysable.

The results `shell_grammar.parse_line` gives and `shell_patterns` / `rules` / `policy` read, kept apart
from the parse so that readers of a line need not know how it was read. Imports nothing from sigit.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Redirect", "ShellLine", "SimpleCommand"]


@dataclass(frozen=True)
class Redirect:
    """A redirection that writes a file: `operator` as written (`>`, `>>`, `&>`, ...), `target` unquoted."""

    operator: str
    target: str
    fd: int | None = None


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: `words[0]` is the command word as the shell sees it (quotes removed).

    `assignments` are the leading `VAR=value` words; `redirects` the writes attached to this command;
    `inner` the commands it runs from its arguments (wrappers, `find -exec`, `xargs`, `sh -c`);
    `static` is False when a word is built from an expansion, a substitution or a glob.
    """

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    inner: tuple[SimpleCommand, ...] = ()
    static: bool = True

    @functools.cached_property
    def name(self) -> str:
        """The command word without its directory (`/bin/rm` -> `rm`); quote removal already made `\\rm` `rm`."""
        return self.words[0].rstrip("/").rsplit("/", 1)[-1] if self.words else ""

    @functools.cached_property
    def argv(self) -> tuple[str, ...]:
        """`words` with the command word replaced by `name`."""
        return (self.name, *self.words[1:]) if self.words else ()

    @property
    def text(self) -> str:
        """The words quoted back into one shell line (assignments left out)."""
        return shlex.join(self.words)

    def walk(self) -> Iterator[SimpleCommand]:
        """This command and, recursively, every command it runs from its arguments."""
        yield self
        for command in self.inner:
            yield from command.walk()


@dataclass(frozen=True)
class ShellLine:
    """A parsed command line; `opaque` lists why it cannot be judged statically (empty when it can)."""

    source: str
    commands: tuple[SimpleCommand, ...]
    writes: tuple[Redirect, ...]
    opaque: tuple[str, ...]
    bash_only: tuple[str, ...] = ()  # syntax a POSIX `sh` (dash) reads differently from bash

    @property
    def analysable(self) -> bool:
        return not self.opaque

    @property
    def deny_candidates(self) -> tuple[SimpleCommand, ...]:
        """Every command of the line and every command those run from their arguments: what deny rules check."""
        return tuple(dict.fromkeys(inner for command in self.commands for inner in command.walk()))

