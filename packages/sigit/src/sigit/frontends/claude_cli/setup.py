"""What the Claude Code flags ask of the session, worked out before it opens and applied after.

Claude model names mean "the configured model"; `--settings` JSON brings its permission rules and
mode; `--mcp-config` its servers; `--tools` narrows what the model is offered; `--system-prompt`
replaces our system prompt (an empty one, which the Python SDK always sends, keeps ours).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...app import AgentSession
from ...options import HostOptions
from ...tools import all_tools
from ..host_args import say_on_stderr
from .flags import ClaudeArgs
from .tool_names import rules_from_claude, split_rules

CLAUDE_MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku", "default", "opusplan", "best", "sonnet[1m]",
                                  "opus[1m]"})


class SetupError(ValueError):
    """A flag's value cannot be used (an unreadable file, JSON that does not parse, a missing dir)."""


@dataclass
class Setup:
    cwd: Path
    host_options: HostOptions
    system_prompt: str | None = None
    append_system_prompt: str = ""
    tools: set[str] | None = None
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    sdk_mcp_servers: list[str] = field(default_factory=list)
    """Names of the app's in-process servers (`type: "sdk"`), reached through `mcp_message` requests."""
    warnings: list[str] = field(default_factory=list)
    first_prompt: str | None = None

    def apply(self, session: AgentSession) -> None:
        """The system prompt and the offered tools, once the session is open (and again on a new model)."""
        if self.system_prompt is not None or self.append_system_prompt:
            session.set_system_prompt(self.system_prompt, append=self.append_system_prompt)
        if self.tools is not None:
            session.offer_tools(self.tools)  # --tools names built-in tools (ours or Claude's): MCP tools stay


def prepare(args: ClaudeArgs) -> Setup:
    warnings: list[str] = []
    if args.ignored:
        names = ", ".join(dict.fromkeys(args.ignored))
        warnings.append(f"accepted but not implemented (ignored): {names}")
    if args.permission_prompt_tool not in (None, "stdio"):
        warnings.append(f"--permission-prompt-tool {args.permission_prompt_tool}: only `stdio` (the SDK's "
                        "can_use_tool) is supported, so calls that need permission are refused")
    if args.fork_session and not (args.resume or args.continue_last):  # as Claude Code: nothing to fork
        warnings.append("--fork-session copies the session --resume or --continue picks; with neither it does "
                        "nothing")
    cwd = Path(os.path.abspath(args.cwd or os.getcwd()))
    if not cwd.is_dir():
        raise SetupError(f"--cwd {cwd} is not a directory")
    for directory in args.add_dir:
        if not os.path.isdir(os.path.expanduser(directory)):
            raise SetupError(f"--add-dir {directory} is not a directory")
    builtin = all_tools()  # no session yet: rules name the built-in tools (others keep Claude's name)
    allow = [*args.allow_tool,
             *(r for rule in split_rules(args.allowed_tools) for r in rules_from_claude(rule, builtin))]
    deny = [*args.deny_tool,
            *(r for rule in split_rules(args.disallowed_tools) for r in rules_from_claude(rule, builtin))]
    model, mode = args.model, args.permission_mode
    if args.settings:
        settings = _json_or_file(args.settings, "--settings", cwd)
        found = settings.get("permissions")
        permissions: dict[str, Any] = found if isinstance(found, dict) else {}
        allow += [r for rule in _strings(permissions.get("allow")) for r in rules_from_claude(rule, builtin)]
        deny += [r for rule in _strings(permissions.get("deny")) for r in rules_from_claude(rule, builtin)]
        if mode is None and isinstance(permissions.get("defaultMode"), str):
            mode = permissions["defaultMode"]
        if model is None and isinstance(settings.get("model"), str):
            model = settings["model"]
        unused = sorted(set(settings) - {"permissions", "model"})
        if unused:
            warnings.append(f"--settings: only `permissions` and `model` are used; ignored: {', '.join(unused)}")
    if model is not None and is_claude_model(model):
        warnings.append(f"--model {model} is a Claude model; using the configured local model instead")
        model = None
    if args.dangerously_skip_permissions:
        mode = "bypass"
    policy_mode = "default" if mode in ("dontAsk", "auto") else mode
    if mode == "dontAsk":
        args.permission_mode = "dontAsk"
    system_prompt = args.system_prompt or None  # "" (the Python SDK's default) keeps ours
    if args.system_prompt_file:
        system_prompt = _read(args.system_prompt_file, "--system-prompt-file", cwd)
    tools = None
    if args.tools is not None:
        listed = split_rules(args.tools)
        tools = None if listed == ["default"] else set(listed)
    servers: list[dict[str, Any]] = []
    sdk_servers: list[str] = []
    for value in args.mcp_config:
        config = _json_or_file(value, "--mcp-config", cwd)
        entries = config.get("mcpServers", config)
        if not isinstance(entries, dict):
            raise SetupError('--mcp-config: expected {"mcpServers": {NAME: {...}}}')
        for name, entry in entries.items():
            if isinstance(entry, dict) and entry.get("type") == "sdk":
                sdk_servers.append(str(name))  # the app runs it; we reach it through mcp_message requests
            elif isinstance(entry, dict):
                servers.append({"name": name, **entry})
    options = host_options_for(args, allow, deny, model, policy_mode)
    return Setup(cwd=cwd, host_options=options, system_prompt=system_prompt,
                 append_system_prompt="\n\n".join(args.append_system_prompt), tools=tools, mcp_servers=servers,
                 sdk_mcp_servers=sdk_servers, warnings=warnings)


def is_claude_model(name: str) -> bool:
    return name.startswith("claude-") or name in CLAUDE_MODEL_ALIASES


def host_options_for(args: ClaudeArgs, allow: list[str], deny: list[str], model: str | None,
                     mode: str | None) -> HostOptions:
    thinking: bool | None = None
    if args.thinking == "disabled" or args.max_thinking_tokens == 0:
        thinking = False
    elif args.thinking in ("enabled", "adaptive") or (args.max_thinking_tokens or 0) > 0:
        thinking = True
    return HostOptions(
        model=model, permission_mode=mode, sandbox_mode=args.sandbox, allow_tools=tuple(allow),
        deny_tools=tuple(deny), add_dirs=tuple(os.path.abspath(os.path.expanduser(d)) for d in args.add_dir),
        max_rounds=args.max_turns or 24, thinking=thinking, trust=args.trust, download=args.download,
        offline=args.offline, runtime_options={"n_ctx": args.n_ctx} if args.n_ctx else {},
        # a prompt given at once (text input) is one turn and the process ends: nothing to prepare; a
        # stream of user messages (the SDK's client) has a next turn
        prefill=args.input_format == "stream-json",
        host_notice=say_on_stderr,  # Claude Code's dialect keeps stdout for its JSON: notices go to stderr
    )


def _json_or_file(value: str, flag: str, cwd: Path) -> dict[str, Any]:
    text = value.strip()
    if not text.startswith("{"):
        text = _read(value, flag, cwd)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"{flag}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise SetupError(f"{flag}: expected a JSON object")
    return data


def _read(path: str, flag: str, cwd: Path) -> str:
    try:
        return (cwd / os.path.expanduser(path)).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"{flag} {path}: cannot read it: {exc}") from exc


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
