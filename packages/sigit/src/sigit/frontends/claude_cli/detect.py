"""Whether a command line comes from a Claude Code caller: checked on every `sigit` start, so it imports nothing."""

from __future__ import annotations

import os
from collections.abc import Mapping

CLAUDE_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")
CLAUDE_ONLY_FLAGS = frozenset({
    "--input-format", "--include-partial-messages", "--system-prompt", "--system-prompt-file",
    "--append-system-prompt", "--append-system-prompt-file", "--tools", "--allowedTools", "--allowed-tools",
    "--disallowedTools", "--disallowed-tools", "--permission-prompt-tool", "--session-id", "--settings",
    "--mcp-config", "--setting-sources", "--max-thinking-tokens", "--thinking", "--dangerously-skip-permissions",
    "--strict-mcp-config", "--fallback-model", "--include-hook-events",
})
"""Any of these on a command line means a Claude Code caller: `sigit` answers in its protocol.

`--verbose` is ours too (logs mirrored to stderr): with `--output-format stream-json` alone it no longer
means Claude (it did, and a user asking for logs got another program's JSON); see `is_claude_invocation`.
"""
EXPLICIT_FLAG = "--claude"
SDK_ENTRYPOINT = "CLAUDE_CODE_ENTRYPOINT"
"""Set by the Agent SDKs on the CLI they start (`sdk-py`, `sdk-ts`); `CLAUDE_AGENT_SDK_VERSION` by newer ones."""


def is_claude_invocation(argv: list[str], environ: Mapping[str, str] | None = None) -> bool:
    """Whether to answer in Claude Code's dialect: asked for with `--claude`; Claude's stream-json in and
    out (what the Agent SDKs send); a Claude-only flag or mode name; or `--output-format stream-json` from
    a process an Agent SDK started (its environment marker: the old claude-code-sdk sent nothing else)."""
    env = os.environ if environ is None else environ
    flags = _flags(argv)
    if EXPLICIT_FLAG in flags:
        return True
    if _stream_json_output(argv) and (_stream_json_input(argv) or _sdk_started(env)):
        return True
    for index, token in enumerate(argv):
        if token == "--":
            break
        name, _, value = token.partition("=")
        if name in CLAUDE_ONLY_FLAGS:
            return True
        if name == "--permission-mode":
            value = value or (argv[index + 1] if index + 1 < len(argv) else "")
            if value in CLAUDE_MODES and value not in ("default", "plan"):
                return True
    return False


def dialect_notice(argv: list[str]) -> str | None:
    """The one line for a command line that looks like Claude Code's but is answered in sigit's own JSON."""
    if "--verbose" in _flags(argv) and _stream_json_output(argv):
        return ("sigit: --output-format stream-json writes sigit's own JSON lines (--verbose only mirrors the "
                "log); for Claude Code's dialect add --input-format stream-json or --claude")
    return None


def _sdk_started(env: Mapping[str, str]) -> bool:
    return env.get(SDK_ENTRYPOINT, "").startswith("sdk") or bool(env.get("CLAUDE_AGENT_SDK_VERSION"))


def _flags(argv: list[str]) -> list[str]:
    """The flag names before `--` (what follows is a prompt)."""
    names: list[str] = []
    for token in argv:
        if token == "--":
            break
        names.append(token.partition("=")[0])
    return names


def _stream_json_output(argv: list[str]) -> bool:
    return _flag_value(argv, "--output-format") == "stream-json"


def _stream_json_input(argv: list[str]) -> bool:
    return _flag_value(argv, "--input-format") == "stream-json"


def _flag_value(argv: list[str], flag: str) -> str | None:
    for index, token in enumerate(argv):
        if token == "--":
            break
        if token.startswith(f"{flag}="):
            return token.partition("=")[2]
        if token == flag and index + 1 < len(argv):
            return argv[index + 1]
    return None
