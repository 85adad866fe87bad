"""Whether a command line comes from a Claude Code caller: checked on every `sigit` start, so it imports nothing."""

from __future__ import annotations

CLAUDE_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")
CLAUDE_ONLY_FLAGS = frozenset({
    "--input-format", "--include-partial-messages", "--system-prompt", "--system-prompt-file",
    "--append-system-prompt", "--append-system-prompt-file", "--tools", "--allowedTools", "--allowed-tools",
    "--disallowedTools", "--disallowed-tools", "--permission-prompt-tool", "--session-id", "--settings",
    "--mcp-config", "--setting-sources", "--max-thinking-tokens", "--thinking", "--dangerously-skip-permissions",
    "--strict-mcp-config", "--fallback-model", "--include-hook-events",
})
"""Any of these on a command line means a Claude Code caller: `sigit` answers in its protocol.

`--verbose` is ours too (logs mirrored to stderr); with `--output-format stream-json`, which Claude Code
requires it for, it marks a Claude caller (claude-code-sdk 0.0.25 sent nothing more distinctive).
"""


def is_claude_invocation(argv: list[str]) -> bool:
    """Whether this command line comes from a Claude Code caller (an SDK, a script written for `claude`)."""
    if "--verbose" in argv and _stream_json_output(argv):
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


def _stream_json_output(argv: list[str]) -> bool:
    for index, token in enumerate(argv):
        if token == "--":
            break
        if token == "--output-format=stream-json":
            return True
        if token == "--output-format" and argv[index + 1 : index + 2] == ["stream-json"]:
            return True
    return False
