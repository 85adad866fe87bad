"""`sigit` speaking Claude Code's CLI protocol, so apps built on the Claude Agent SDKs run on a local model.

`is_claude_invocation` is cheap (the `sigit` command asks it of every command line); `run` loads the rest.
"""

from __future__ import annotations

from .detect import dialect_notice, is_claude_invocation


def run(argv: list[str]) -> int:
    from .run import run as run_claude

    return run_claude(argv)


__all__ = ["dialect_notice", "is_claude_invocation", "run"]
