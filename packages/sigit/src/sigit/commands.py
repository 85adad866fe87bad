"""The built-in slash commands: what each one means and does, for every frontend.

`run(context, text)` takes the session and the typed text and returns a `CommandResult`: markdown to
show and, where a command is inherently UI (a new tab, the History tab, quitting), an action for the
frontend; or a prompt to send to the model (`/init`, custom commands). The TUI and ACP only render
results, so a command behaves the same in both. A few commands exist only where they make sense
(`/new` needs tabs); each says where it is offered.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the TUI lists the commands before the agent core is imported
    from .app import AgentSession
    from .status import SessionStatus

Frontend = Literal["tui", "acp", "headless"]
Level = Literal["info", "warning", "error"]
Action = Literal[
    "new_tab", "close_tab", "exit", "show_history", "open_session", "show_status", "pick_model",
    "switch_model", "toggle_tools", "clear_chat", "show_tab",
]
"""What a frontend does besides showing the text: open a tab, open saved session `target`, quit, ..."""

EVERYWHERE: frozenset[Frontend] = frozenset(("tui", "acp", "headless"))
"""`sigit -p /status` runs the command too: one prompt, its text printed (actions have no meaning there)."""
TUI: frozenset[Frontend] = frozenset(("tui",))
_NAME = re.compile(r"[\w.:-]+")


@dataclass(frozen=True)
class CommandResult:
    text: str = ""
    """Markdown shown to the user."""
    level: Level = "info"
    action: Action | None = None
    target: str = ""
    """The action's argument: a session id (`open_session`), a model name (`switch_model`)."""
    prompt: str | None = None
    """Send this to the model as the next turn."""
    shown: str | None = None
    """How the chat shows that prompt (what the user typed)."""
    mode_changed: bool = False
    """The permission mode changed (ACP tells the editor)."""


@dataclass(frozen=True)
class CommandContext:
    """Where a command runs: the session (None while its model loads) and what is known without it."""

    frontend: Frontend
    session: AgentSession | None
    cwd: Path
    config_dir: Path
    model: str
    running: bool = False
    """A turn is running in this session."""
    keys_help: str = ""
    """The frontend's key bindings, for `/help`."""

    def require_session(self) -> AgentSession:
        if self.session is None:
            raise RuntimeError("this command needs a session")  # run() checks needs_session first
        return self.session


Handler = Callable[[CommandContext, str], Awaitable[CommandResult]]


@dataclass(frozen=True)
class BuiltinCommand:
    name: str
    help: str
    handler: Handler
    hint: str | None = None
    """What the argument is, for editors that show it."""
    needs_session: bool = True
    while_running: bool = False
    """May run while a turn is running (it only shows something)."""
    frontends: frozenset[Frontend] = EVERYWHERE


def parse(text: str) -> tuple[str, str] | None:
    """`("load", "qwen3-4b")` for "/load qwen3-4b"; None when the text is a prompt (`/etc/hosts is ...`)."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    if not _NAME.fullmatch(name):
        return None
    return name.lower(), arg.strip()


def builtins(frontend: Frontend) -> list[BuiltinCommand]:
    return [c for c in COMMANDS if frontend in c.frontends]


def find(name: str, frontend: Frontend) -> BuiltinCommand | None:
    return next((c for c in builtins(frontend) if c.name == name), None)


def suggest(name: str, known: Iterable[str]) -> list[str]:
    names = list(known)
    return [n for n in names if n.startswith(name[:2])] if name else names


async def run(context: CommandContext, text: str) -> CommandResult | None:
    """Run `text` if it is a slash command; None when it is a prompt for the model."""
    parsed = parse(text)
    if parsed is None:
        return None
    name, arg = parsed
    session = context.session
    command = find(name, context.frontend)
    if command is None:
        custom = session.commands if session is not None else None
        if custom is not None and custom.get(name) is not None:
            return CommandResult(prompt=text.strip(), shown=text.strip())  # the session expands it
        known = [c.name for c in builtins(context.frontend)] + (custom.names() if custom is not None else [])
        near = ", ".join(f"/{n}" for n in suggest(name, known))
        hint = f"Did you mean: {near}" if near else "See /help."
        return CommandResult(f"Unknown command /{name}. {hint}", "error")
    if command.needs_session and session is None:
        return CommandResult(f"/{name} needs a session; the model is still loading.", "warning")
    if context.running and not command.while_running:
        return CommandResult(f"/{name} must wait: a turn is running (cancel it first).", "warning")
    return await command.handler(context, arg)


# ---------------------------------------------------------------------- the commands


async def _help(context: CommandContext, arg: str) -> CommandResult:
    lines = ["Slash commands:", ""]
    lines += [f"- `/{c.name}` {c.help}" for c in builtins(context.frontend)]
    session = context.session
    if session is not None and session.commands.commands:
        lines += ["", "Custom commands (sent as prompts):", ""]
        lines += [f"- `/{c.name}` {c.description} {c.argument_hint}".rstrip() for c in session.commands.commands]
    if context.keys_help:
        lines += ["", context.keys_help]
    return CommandResult("\n".join(lines))


async def _new(context: CommandContext, arg: str) -> CommandResult:
    return CommandResult(action="new_tab")


async def _close(context: CommandContext, arg: str) -> CommandResult:
    return CommandResult(action="close_tab")


async def _exit(context: CommandContext, arg: str) -> CommandResult:
    return CommandResult(action="exit")


async def _resume(context: CommandContext, arg: str) -> CommandResult:
    if arg:
        return CommandResult(action="open_session", target=arg)
    return CommandResult(action="show_history")


async def _tab(context: CommandContext, arg: str) -> CommandResult:
    if not arg:
        return CommandResult("usage: /tab N (1 the session, 2 History, 3 Repo, 4 Status) or /tab NAME", "error")
    return CommandResult(action="show_tab", target=arg)


async def _models(context: CommandContext, arg: str) -> CommandResult:
    lines = [f"- `{n}`" + (" (current)" if n == context.model else "") for n in model_names(context.model)]
    return CommandResult("Models (switching keeps the conversation):\n\n" + "\n".join(lines), action="pick_model")


async def _load(context: CommandContext, arg: str) -> CommandResult:
    if not arg:
        return CommandResult("usage: /load MODEL (a registry name, a .gguf path, hf:..., scripted:FILE)", "error")
    return CommandResult(action="switch_model", target=arg)


async def _plan(context: CommandContext, arg: str) -> CommandResult:
    session = context.require_session()
    wanted = {"on": True, "off": False, "exit": False, "default": False}.get(arg.lower())
    if arg and wanted is None:
        return CommandResult("usage: /plan [on|off]", "error")
    mode = session.set_plan(wanted)
    if mode == "plan":
        return CommandResult("Plan mode on: the agent reads and plans; edits and commands are refused.",
                             mode_changed=True)
    return CommandResult(f"Plan mode off: permission mode **{mode}**.", mode_changed=True)


async def _permissions(context: CommandContext, arg: str) -> CommandResult:
    session = context.require_session()
    changed = False
    if arg:
        try:
            session.set_mode(arg)
        except ValueError as exc:
            return CommandResult(str(exc), "error")
        changed = True
    status = session.status()
    lines = [f"Permission mode: **{status.mode}** (default answer: {status.default_answer})", ""]
    lines.append(f"- Allow rules: {_codes(status.allow_rules)}")
    lines.append(f"- Deny rules: {_codes(status.deny_rules)}")
    if status.tool_answers:
        lines.append("- Per tool: " + ", ".join(f"`{tool}` {answer}" for tool, answer in status.tool_answers))
    lines.append(f"- Session grants: {_codes(status.session_grants)}")
    if status.session_denials:
        lines.append(f"- Rejected for this session: {_codes(status.session_denials)}")
    lines += ["", "Set the mode with `/permissions default|accept-edits|plan|bypass`."]
    return CommandResult("\n".join(lines), mode_changed=changed)


async def _sandbox(context: CommandContext, arg: str) -> CommandResult:
    session = context.require_session()
    if arg:
        from .errors import UsageError

        try:
            sandbox = await session.set_sandbox_mode(arg.strip().lower())
        except UsageError as exc:
            return CommandResult(f"{exc}. Usage: /sandbox read-only|workspace-write|off", "error")
        text = f"Sandbox for this session's next commands: **{sandbox.describe()}**."
        warnings = [f"- warning: {w}" for w in sandbox.warnings]
        return CommandResult("\n".join([text, *warnings]), "warning" if warnings else "info")
    return CommandResult(f"Sandbox: **{session.status().sandbox}**. Change it for this session with "
                         "`/sandbox read-only|workspace-write|off`.")


async def _thinking(context: CommandContext, arg: str) -> CommandResult:
    session = context.require_session()
    wanted = {"on": True, "off": False}.get(arg.lower(), not session.thinking)
    session.set_thinking(wanted)
    return CommandResult(f"Thinking {'on' if wanted else 'off'}.")


async def _tools(context: CommandContext, arg: str) -> CommandResult:
    tools = context.require_session().tools.tools()
    lines = [f"- `{t.name}`" + (" (read-only)" if t.read_only else "") for t in tools]
    return CommandResult("Tools:\n\n" + "\n".join(lines) if lines else "Tools: none (this model cannot call tools).",
                         action="toggle_tools")


async def _mcp(context: CommandContext, arg: str) -> CommandResult:
    return CommandResult(f"```\n{context.require_session().mcp_status()}\n```")


async def _skills(context: CommandContext, arg: str) -> CommandResult:
    from .extensions import discover_skills

    found = await asyncio.to_thread(discover_skills, context.cwd, context.config_dir)
    lines = [f"- `{s.name}` {s.description} ({s.scope})" for s in found.skills]
    text = ("Skills (the model loads one with the skill tool):\n\n" + "\n".join(lines) if lines else
            "No skills found (add SKILL.md folders under .sigit/skills or .claude/skills).")
    return CommandResult(_with_warnings(text, found.warnings))


async def _agents(context: CommandContext, arg: str) -> CommandResult:
    from .extensions import discover_agent_types

    found = await asyncio.to_thread(discover_agent_types, context.cwd, context.config_dir)
    lines = [f"- `{a.name}` {a.description} ({a.scope})" for a in found.agent_types]
    text = ("Agent types (for the task tool):\n\n" + "\n".join(lines) if lines else
            "No agent types found (add .md files under .sigit/agents or .claude/agents); "
            "the task tool still runs a general read-only subagent.")
    return CommandResult(_with_warnings(text, found.warnings))


async def _commands(context: CommandContext, arg: str) -> CommandResult:
    found = context.require_session().commands
    lines = [f"- `/{c.name}` {c.description} {c.argument_hint}".rstrip() + f" ({c.scope})" for c in found.commands]
    text = ("Custom commands (`/name args` sends the command's prompt):\n\n" + "\n".join(lines) if lines else
            "No custom commands (add .md files under .sigit/commands or .claude/commands).")
    return CommandResult(_with_warnings(text, found.warnings))


async def _compact(context: CommandContext, arg: str) -> CommandResult:
    from onde import InferenceError

    from .errors import SigitError

    try:
        notice = await context.require_session().compact()
    except (InferenceError, SigitError) as exc:  # the model call failed: the conversation is left as it was
        return CommandResult(f"Could not compact the conversation: {exc}. Nothing was changed.", "error")
    return CommandResult(notice.message, "warning" if notice.level == "warning" else "info")


async def _clear(context: CommandContext, arg: str) -> CommandResult:
    removed = context.require_session().clear(keep_id=context.frontend == "acp")
    return CommandResult(f"Cleared the conversation ({removed} messages); it stays saved with your sessions "
                         "(`/resume` lists them). What you type next starts a new session.", action="clear_chat")


async def _init(context: CommandContext, arg: str) -> CommandResult:
    return CommandResult(prompt=context.require_session().init(), shown="/init")


async def _status(context: CommandContext, arg: str) -> CommandResult:
    session = context.session
    if session is None:
        return CommandResult(f"- Model: `{context.model}` (loading)\n- Directory: `{context.cwd}`",
                             action="show_status")
    return CommandResult(status_markdown(session.status()), action="show_status")


async def _undo(context: CommandContext, arg: str) -> CommandResult:
    restored = context.require_session().rewind()
    if not restored:
        return CommandResult("Nothing to undo: the last turn changed no files.")
    return CommandResult("Undid the last turn's file changes. Restored:\n\n" + "\n".join(f"- `{p}`" for p in restored))


COMMANDS: tuple[BuiltinCommand, ...] = (
    BuiltinCommand("help", "commands and keys", _help, needs_session=False, while_running=True),
    BuiltinCommand("new", "open a new session in a new tab (Ctrl+N)", _new, needs_session=False,
                   while_running=True, frontends=TUI),
    BuiltinCommand("close", "close this session tab (Alt+W)", _close, needs_session=False, while_running=True,
                   frontends=TUI),
    BuiltinCommand("tab", "show tab N (1 session, 2 History, 3 Repo, 4 Status) or a tab by name", _tab, "N",
                   needs_session=False, while_running=True, frontends=TUI),
    BuiltinCommand("models", "the models this build knows (the TUI opens a picker)", _models,
                   needs_session=False),
    BuiltinCommand("load", "load a model by name or path", _load, "MODEL", needs_session=False, frontends=TUI),
    BuiltinCommand("plan", "plan mode on or off (reads and plans; edits and commands are refused)", _plan,
                   "on | off"),
    BuiltinCommand("permissions", "show permissions; /permissions MODE sets the mode", _permissions,
                   "default | accept-edits | plan | bypass"),
    BuiltinCommand("sandbox", "show the OS sandbox commands run in; /sandbox MODE changes it for the session",
                   _sandbox, "read-only | workspace-write | off"),
    BuiltinCommand("thinking", "toggle the model's thinking (on/off)", _thinking, "on | off"),
    BuiltinCommand("tools", "list the tools (the TUI also expands or collapses tool calls)", _tools,
                   while_running=True),
    BuiltinCommand("mcp", "MCP servers, their state and tools", _mcp, while_running=True),
    BuiltinCommand("skills", "skills the model can load", _skills, needs_session=False, while_running=True),
    BuiltinCommand("agents", "agent types for the task tool", _agents, needs_session=False, while_running=True),
    BuiltinCommand("commands", "custom slash commands (markdown files)", _commands, while_running=True),
    BuiltinCommand("compact", "summarise the conversation to free context", _compact),
    BuiltinCommand("resume", "open a saved session (/resume ID, or the History tab)", _resume, "ID",
                   needs_session=False, frontends=TUI),
    BuiltinCommand("init", "write or improve AGENTS.md for this repository", _init),
    BuiltinCommand("clear", "start a new conversation (the old one stays saved: /resume brings it back)", _clear),
    BuiltinCommand("status", "session, model, mode, context use (the TUI's Status tab)", _status,
                   needs_session=False, while_running=True),
    BuiltinCommand("undo", "rewind the last turn's file changes (the conversation stays)", _undo),
    BuiltinCommand("exit", "quit", _exit, needs_session=False, while_running=True, frontends=TUI),
)


# ---------------------------------------------------------------------- shared text and lookups


def status_markdown(status: SessionStatus) -> str:
    context = (f"{status.context_used} / {status.context_size} tokens" if status.context_used is not None
               else "no model call yet")
    return "\n".join([
        f"- Session: `{status.session_id}`", f"- Directory: `{status.cwd}`", f"- Model: `{status.model}`",
        f"- Runtime: {status.runtime} ({status.runtime_state}, context {status.context_size}, "
        f"{'tools' if status.tool_capable else 'no tools'})",
        f"- Mode: **{status.mode}**", f"- Sandbox: {status.sandbox}", f"- Context: {context}",
        f"- Messages: {status.messages}",
        f"- Tokens this session: {status.prompt_tokens} in ({status.cache_read_tokens} from cache, "
        f"{status.cache_creation_tokens} evaluated), {status.completion_tokens} out",
        f"- Drafting: {status.drafting()}",
        *(f"- Model {label}: {value}" for label, value in status.model_details),
    ])


def model_names(current: str) -> list[str]:
    """The known models' names, the current one first when it is not one of them (a path, hf:...)."""
    from onde import list_models

    names = [entry.key for entry in list_models()]
    return names if current in names else [current, *names]


def _codes(items: Iterable[str]) -> str:
    return ", ".join(f"`{item}`" for item in items) or "none"


def _with_warnings(text: str, warnings: Iterable[object]) -> str:
    lines = [f"- warning: {w}" for w in warnings]
    return "\n\n".join([text, "\n".join(lines)]) if lines else text
