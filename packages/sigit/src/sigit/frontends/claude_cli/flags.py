"""Claude Code's command line, as the Agent SDKs send it (read from their transports).

Flags Claude Code has and we do not are accepted with one warning, never a usage error,
so a newer SDK that sends a new flag keeps working.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from .detect import CLAUDE_MODES

OUR_MODES = ("accept-edits", "bypass")
BOOLEAN_UNKNOWN = frozenset({
    "--strict-mcp-config", "--include-hook-events", "--session-mirror", "--allow-dangerously-skip-permissions",
    "--replay-user-messages", "--ide", "--no-session-persistence", "--debug", "-d", "--mcp-debug",
    "--await-initialize", "--managed-settings-in-initialize",
})
"""Claude Code flags we do not implement that take no value (any other unknown flag takes the next word)."""


def claude_mode_name(mode: str) -> str:
    """A permission mode in Claude Code's spelling (ours or theirs in)."""
    return {"accept-edits": "acceptEdits", "bypass": "bypassPermissions"}.get(mode, mode)


@dataclass
class ClaudeArgs:
    prompt: str | None = None
    print: bool = False
    output_format: str = "text"
    input_format: str = "text"
    verbose: bool = False
    include_partial_messages: bool = False
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    tools: list[str] | None = None
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    max_turns: int | None = None
    model: str | None = None
    permission_mode: str | None = None
    permission_prompt_tool: str | None = None
    continue_last: bool = False
    resume: str | None = None
    session_id: str | None = None
    fork_session: bool = False
    settings: str | None = None
    add_dir: list[str] = field(default_factory=list)
    mcp_config: list[str] = field(default_factory=list)
    setting_sources: str | None = None
    max_thinking_tokens: int | None = None
    thinking: str | None = None
    dangerously_skip_permissions: bool = False
    # ours, still valid next to Claude Code's
    cwd: str | None = None
    sandbox: str | None = None
    trust: bool = False
    quiet: bool = False
    download: bool = False
    offline: bool = False
    n_ctx: int | None = None
    allow_tool: list[str] = field(default_factory=list)
    deny_tool: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """Flags accepted but not implemented (one warning names them all)."""


class FlagError(ValueError):
    """A flag we implement was given a value it cannot take."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise FlagError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sigit --claude", add_help=False, allow_abbrev=False,
        description="sigit in Claude Code's CLI dialect: its flags, tool names and stream-JSON, as the Claude "
        "Agent SDKs and `claude -p` scripts use them, on a local model. Chosen by --claude, by --output-format "
        "stream-json with --input-format stream-json, by a flag only Claude Code has, or when an Agent SDK "
        "starts sigit.",
        epilog="Any other Claude Code flag is accepted with one warning naming it, never a usage error. "
        "`sigit --help` lists sigit's own mode.",
    )
    add = parser.add_argument
    add("prompt", nargs="*", help="the prompt (text piped on stdin follows it; with none, stdin is the prompt)")
    add("-h", "--help", action="store_true", help="show this help and exit")
    add("-p", "--print", action="store_true", help="print the response and exit")
    add("--output-format", choices=("text", "json", "stream-json"), default="text",
        help="text (default), json (one result) or stream-json (every message as a JSON line)")
    add("--input-format", choices=("text", "stream-json"), default="text",
        help="stream-json: user messages and control requests as JSON lines on stdin, until it closes")
    add("--verbose", action="store_true", help="accepted (stream-json always carries every message)")
    add("--include-partial-messages", action="store_true", help="also stream_event lines as the reply streams")
    add("--system-prompt", metavar="TEXT", help="replace the system prompt (empty: keep ours)")
    add("--system-prompt-file", metavar="FILE", help="replace the system prompt with a file's text")
    add("--append-system-prompt", action="append", default=[], metavar="TEXT",
        help="append to the system prompt")
    add("--append-system-prompt-file", dest="append_system_prompt_file", action="append", default=[],
        metavar="FILE", help="append a file's text to the system prompt")
    add("--tools", action="append", metavar="LIST", help="the built-in tools offered, e.g. Read,Bash "
        "(default: all; empty: none)")
    add("--allowedTools", "--allowed-tools", dest="allowed_tools", action="append", default=[], metavar="RULES",
        help="Claude Code rules allowed without asking, e.g. 'Bash(git *)' Read")
    add("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", action="append", default=[],
        metavar="RULES", help="Claude Code rules refused")
    add("--max-turns", type=int, metavar="N", help="rounds of tool calls per prompt (default 24)")
    add("--model", help="a local model (sigit's names); a Claude model name means the configured one")
    add("--permission-mode", choices=(*CLAUDE_MODES, *OUR_MODES), metavar="MODE",
        help=f"one of {', '.join((*CLAUDE_MODES, *OUR_MODES))}")
    add("--permission-prompt-tool", metavar="stdio",
        help="stdio: ask the SDK app (can_use_tool) about calls that need permission")
    add("--dangerously-skip-permissions", action="store_true", help="the bypassPermissions mode")
    add("-c", "--continue", dest="continue_last", action="store_true",
        help="continue the latest session of this directory")
    add("-r", "--resume", metavar="ID", help="continue a saved session")
    add("--session-id", metavar="ID", help="a new session with this id")
    add("--fork-session", action="store_true", help="with --resume/--continue: continue in a new copy")
    add("--settings", metavar="JSON|FILE", help="its permissions (allow, deny, defaultMode) and model")
    add("--add-dir", action="append", default=[], metavar="DIR", help="let the file tools read DIR too")
    add("--mcp-config", action="append", default=[], metavar="JSON|FILE", help='{"mcpServers": {...}}')
    add("--setting-sources", metavar="LIST", help="accepted; sigit reads its own settings files")
    add("--max-thinking-tokens", type=int, metavar="N", help="0: thinking off; more: on")
    add("--thinking", choices=("adaptive", "enabled", "disabled"), help="thinking on or off")
    add("--cwd", metavar="DIR", help="sigit's: the working directory (default: the current one)")
    add("--sandbox", choices=("read-only", "workspace-write", "off"), metavar="MODE",
        help="sigit's: where commands may write: read-only, workspace-write (default) or off")
    add("--trust", action="store_true", help="sigit's: trust this folder's project settings for this run")
    add("-q", "--quiet", action="store_true", help="sigit's: no progress on stderr")
    add("--allow-tool", action="append", default=[], metavar="RULE", help="sigit's: allow a rule (sigit's names)")
    add("--deny-tool", action="append", default=[], metavar="RULE", help="sigit's: refuse a rule (sigit's names)")
    add("--no-think", action="store_true", help="sigit's: turn the model's thinking off")
    add("--n-ctx", metavar="TOKENS", help="sigit's: the context window of a local model, in tokens")
    add("--download", action="store_true", help="sigit's: download the model for this run if it is not cached")
    add("--offline", action="store_true", help="sigit's: no network request but to the model's endpoint")
    add("--claude", action="store_true", help="speak this dialect (also chosen as described above)")
    return parser


def help_text() -> str:
    """`sigit --claude --help`."""
    return build_parser().format_help()


def wants_help(argv: list[str]) -> bool:
    """`-h` or `--help` among the flags (before `--`)."""
    for token in argv:
        if token == "--":
            return False
        if token in ("-h", "--help"):
            return True
    return False


def parse(argv: list[str]) -> ClaudeArgs:
    """The command line as `ClaudeArgs`; FlagError for a bad value of a flag we implement."""
    parser = build_parser()
    known = set(parser._option_string_actions)
    kept, ignored = _drop_unknown(argv, known)
    ns = parser.parse_args(kept)
    files = [_read_text(path, "--append-system-prompt-file") for path in ns.append_system_prompt_file]
    args = ClaudeArgs(
        prompt=" ".join(ns.prompt) if ns.prompt else None, print=ns.print, output_format=ns.output_format,
        input_format=ns.input_format, verbose=ns.verbose, include_partial_messages=ns.include_partial_messages,
        system_prompt=ns.system_prompt, system_prompt_file=ns.system_prompt_file,
        append_system_prompt=[*ns.append_system_prompt, *files], tools=ns.tools,
        allowed_tools=ns.allowed_tools, disallowed_tools=ns.disallowed_tools, max_turns=ns.max_turns,
        model=ns.model, permission_mode=ns.permission_mode, permission_prompt_tool=ns.permission_prompt_tool,
        continue_last=ns.continue_last, resume=ns.resume, session_id=ns.session_id,
        fork_session=ns.fork_session, settings=ns.settings, add_dir=ns.add_dir, mcp_config=ns.mcp_config,
        setting_sources=ns.setting_sources, max_thinking_tokens=ns.max_thinking_tokens,
        thinking="disabled" if ns.no_think else ns.thinking,
        dangerously_skip_permissions=ns.dangerously_skip_permissions, cwd=ns.cwd, sandbox=ns.sandbox,
        trust=ns.trust, quiet=ns.quiet, download=ns.download, offline=ns.offline, n_ctx=_n_ctx(ns.n_ctx),
        allow_tool=ns.allow_tool, deny_tool=ns.deny_tool, ignored=ignored,
    )
    if args.max_turns is not None and args.max_turns < 1:
        raise FlagError("--max-turns must be at least 1")
    if args.max_thinking_tokens is not None and args.max_thinking_tokens < 0:
        raise FlagError("--max-thinking-tokens must not be negative")
    return args


def _n_ctx(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        n_ctx = int(value.strip())
    except ValueError:
        n_ctx = 0
    if n_ctx < 1:
        raise FlagError(f"--n-ctx takes a positive whole number of tokens, e.g. --n-ctx 32768 (not {value!r})")
    return n_ctx


def _drop_unknown(argv: list[str], known: set[str]) -> tuple[list[str], list[str]]:
    """The command line without flags we do not implement (and their values), and those flags."""
    kept: list[str] = []
    ignored: list[str] = []
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "--":
            kept.extend(argv[index - 1:])
            break
        if not token.startswith("-") or token == "-":
            kept.append(token)
            continue
        name, has_value, _ = token.partition("=")
        if name in known or (not name.startswith("--") and len(name) == 2 and name in known):
            kept.append(token)
            continue
        if not name.startswith("--") and len(name) > 2 and f"-{name[1]}" in known:
            kept.append(token)  # -pVALUE style short flags: argparse reads those itself
            continue
        ignored.append(name)
        takes_value = not has_value and name not in BOOLEAN_UNKNOWN
        if takes_value and index < len(argv) and not argv[index].startswith("-"):
            index += 1
    return kept, ignored


def _read_text(path: str, flag: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise FlagError(f"{flag} {path}: cannot read it: {exc}") from exc
