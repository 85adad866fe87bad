"""Text piped to a one-shot run: the prompt itself (`echo "..." | sigit -p`), or what follows a prompt
given as an argument (`git diff | sigit -p "review this"`), as `claude -p` reads it.

A light module: `sigit -p` reads stdin here while its model loads (cli.py), and Claude mode reads it too.
"""

from __future__ import annotations

import select
import sys

STDIN_WAIT_S = 3.0
"""How long a prompt given as an argument waits for the first byte of a stdin that is neither a terminal
nor at its end: a caller that left stdin open without writing to it (a subprocess with stdin=PIPE, a
parent's inherited pipe) must not hang the run. Once data comes, stdin is read to its end."""


def stdin_is_terminal() -> bool:
    """Whether stdin is a terminal (or not there at all: fd 0 closed): nothing is piped."""
    stream = sys.stdin
    if stream is None or stream.closed:
        return True
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return True


def read_stdin() -> str:
    """All of stdin, as text (bytes that are not UTF-8 become U+FFFD, never an error)."""
    stream = sys.stdin
    if stream is None or stream.closed:
        return ""
    try:
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    return data.decode("utf-8", errors="replace")


def with_piped_input(prompt: str, *, wait: float = STDIN_WAIT_S) -> str:
    """`prompt`, then a blank line and what stdin holds, when stdin is not a terminal and holds text;
    else `prompt` as given. A stdin that sends nothing for `wait` seconds (and does not end) is left
    unread, with one line on stderr saying so."""
    if stdin_is_terminal():
        return prompt
    if not _readable_within(wait):
        print(f"sigit: nothing came on stdin within {wait:g} s, so the prompt goes without it (pipe the input "
              "in, or redirect stdin from /dev/null to say there is none)", file=sys.stderr, flush=True)
        return prompt
    piped = read_stdin()
    if not piped.strip():
        return prompt
    return f"{prompt}\n\n{piped}"


def _readable_within(wait: float) -> bool:
    """Whether stdin has data or its end within `wait` seconds (files and /dev/null at once). Where the
    platform cannot wait on stdin (Windows), True: it is read as it is."""
    try:
        ready, _, _ = select.select([sys.stdin], [], [], wait)
    except (OSError, ValueError, TypeError):
        return True
    return bool(ready)
