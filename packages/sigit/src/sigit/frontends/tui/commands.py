"""Slash commands: each a name, a one-line help and a handler taking the app and the argument text."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import SigitApp

Handler = Callable[["SigitApp", str], Awaitable[None]]

INIT_RULES = ("create_file(AGENTS.md)", "edit_file(AGENTS.md)", "multi_edit(AGENTS.md)")


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    handler: Handler
    needs_session: bool = True
    while_running: bool = False
    """May run while a turn is running (it only shows something)."""


async def _help(app: SigitApp, arg: str) -> None:
    lines = ["Slash commands:"]
    lines += [f"  /{c.name:<12} {c.help}" for c in COMMANDS.values()]
    session = app.view.agent_session
    if session is not None and session.commands.commands:
        lines += ["", "Custom commands (sent as prompts):"]
        lines += [f"  /{c.name:<12} {c.description} {c.argument_hint}".rstrip() for c in session.commands.commands]
    lines += ["", "Keys: Enter send · Shift+Enter/Ctrl+J newline · Up/Down history · Tab complete",
              "      Esc/Ctrl+C cancel the turn · Ctrl+C twice or Ctrl+D quit · Ctrl+O models",
              "      Ctrl+T expand/collapse tool calls · Ctrl+N new session tab · Alt+W close it",
              "      Alt+1..4 tabs (current session, History, Repo, Status)"]
    await app.notice("\n".join(lines))


async def _models(app: SigitApp, arg: str) -> None:
    app.action_models()


async def _load(app: SigitApp, arg: str) -> None:
    if not arg:
        await app.notice("usage: /load MODEL (a registry name, a .gguf path, hf:..., scripted:FILE)", "error")
        return
    app.switch_model(arg)


async def _plan(app: SigitApp, arg: str) -> None:
    view = app.view
    policy = view.require_session().agent.policy
    if policy.mode == "plan":
        policy.mode = view.mode_before_plan
        await app.notice(f"Plan mode off: permission mode {policy.mode}.")
    else:
        view.mode_before_plan = policy.mode
        policy.mode = "plan"
        await app.notice("Plan mode on: the agent reads and plans; edits and commands are refused.")
    app.refresh_status()


async def _permissions(app: SigitApp, arg: str) -> None:
    session = app.require_session()
    policy = session.agent.policy
    if arg:
        from ...permissions.policy import parse_mode

        try:
            policy.mode = parse_mode(arg)
        except ValueError as exc:
            await app.notice(str(exc), "error")
            return
        app.refresh_status()
    perms = session.settings.permissions
    await app.notice(
        f"Permission mode: {policy.mode} (default {perms.default})\n"
        f"Allow rules: {', '.join(perms.allow) or 'none'}\nDeny rules: {', '.join(perms.deny) or 'none'}\n"
        f"Session grants: {', '.join(policy.session_grants) or 'none'}\n"
        "Set the mode with /permissions default|accept-edits|plan|bypass"
    )


async def _thinking(app: SigitApp, arg: str) -> None:
    engine = app.require_session().agent.engine
    current = engine.sampling.enable_thinking is not False
    wanted = {"on": True, "off": False}.get(arg.strip().lower(), not current)
    engine.set_sampling(dataclasses.replace(engine.sampling, enable_thinking=wanted))
    await app.notice(f"Thinking {'on' if wanted else 'off'}.")


async def _tools(app: SigitApp, arg: str) -> None:
    app.action_toggle_tools()
    names = ", ".join(app.require_session().agent.tools.names()) or "none"
    state = "expanded" if app.tools_expanded else "collapsed"
    await app.notice(f"Tool calls {state}. Tools: {names}")


async def _compact(app: SigitApp, arg: str) -> None:
    notice = await app.require_session().compact()
    await app.notice(notice.message, notice.level)


async def _resume(app: SigitApp, arg: str) -> None:
    if arg:
        await app.open_saved(arg.strip())
    else:
        app.show_tab("history")


async def _init(app: SigitApp, arg: str) -> None:
    from ...prompt.init_prompt import INIT_PROMPT

    policy = app.require_session().agent.policy
    for rule in INIT_RULES:
        policy.add_session_rule(rule, "allow")
    app.start_turn(INIT_PROMPT, shown="/init")


async def _clear(app: SigitApp, arg: str) -> None:
    app.require_session().clear()
    await app.chat.clear_log()
    await app.notice("Conversation cleared (and its saved session deleted).")


async def _status(app: SigitApp, arg: str) -> None:
    app.show_tab("status")


async def _undo(app: SigitApp, arg: str) -> None:
    restored = app.require_session().rewind()
    if restored:
        await app.notice("Undid the last turn's file changes: " + ", ".join(restored))
    else:
        await app.notice("Nothing to undo: the last turn changed no files.")


async def _exit(app: SigitApp, arg: str) -> None:
    app.exit(0)


async def _new(app: SigitApp, arg: str) -> None:
    await app.new_session()


async def _close(app: SigitApp, arg: str) -> None:
    await app.action_close_session()


async def _mcp(app: SigitApp, arg: str) -> None:
    await app.notice(app.require_session().mcp_status())


async def _skills(app: SigitApp, arg: str) -> None:
    from ...extensions import discover_skills

    found = await asyncio.to_thread(discover_skills, app.view.cwd, app.host.config_dir)
    lines = [f"  {s.name:<20} {s.description}  ({s.scope})" for s in found.skills]
    text = "Skills (the model loads one with the skill tool):\n" + "\n".join(lines) if lines else (
        "No skills found (add SKILL.md folders under .sigit/skills or .claude/skills).")
    await app.notice("\n".join([text, *(f"warning: {w}" for w in found.warnings)]))


async def _agents(app: SigitApp, arg: str) -> None:
    from ...extensions import discover_agent_types

    found = await asyncio.to_thread(discover_agent_types, app.view.cwd, app.host.config_dir)
    lines = [f"  {a.name:<20} {a.description}  ({a.scope})" for a in found.agent_types]
    text = "Agent types (for the task tool):\n" + "\n".join(lines) if lines else (
        "No agent types found (add .md files under .sigit/agents or .claude/agents); "
        "the task tool still runs a general read-only subagent.")
    await app.notice("\n".join([text, *(f"warning: {w}" for w in found.warnings)]))


async def _commands(app: SigitApp, arg: str) -> None:
    found = app.require_session().commands
    lines = [f"  /{c.name:<20} {c.description} {c.argument_hint}".rstrip() + f"  ({c.scope})"
             for c in found.commands]
    text = "Custom commands (`/name args` sends the command's prompt):\n" + "\n".join(lines) if lines else (
        "No custom commands (add .md files under .sigit/commands or .claude/commands).")
    await app.notice("\n".join([text, *(f"warning: {w}" for w in found.warnings)]))


COMMANDS: dict[str, SlashCommand] = {
    c.name: c
    for c in (
        SlashCommand("help", "commands and keys", _help, needs_session=False, while_running=True),
        SlashCommand("new", "open a new session in a new tab (Ctrl+N)", _new, needs_session=False,
                     while_running=True),
        SlashCommand("close", "close this session tab (Alt+W)", _close, needs_session=False, while_running=True),
        SlashCommand("models", "pick a model from the registry", _models, needs_session=False),
        SlashCommand("load", "load a model by name or path", _load, needs_session=False),
        SlashCommand("plan", "toggle plan mode (no edits, no commands)", _plan),
        SlashCommand("permissions", "show permissions; /permissions MODE sets the mode", _permissions),
        SlashCommand("thinking", "toggle the model's thinking (on/off)", _thinking),
        SlashCommand("tools", "expand or collapse tool calls; list tools", _tools, while_running=True),
        SlashCommand("mcp", "MCP servers, their state and tools", _mcp, while_running=True),
        SlashCommand("skills", "skills the model can load", _skills, needs_session=False, while_running=True),
        SlashCommand("agents", "agent types for the task tool", _agents, needs_session=False,
                     while_running=True),
        SlashCommand("commands", "custom slash commands (markdown files)", _commands, while_running=True),
        SlashCommand("compact", "summarise the conversation to free context", _compact),
        SlashCommand("resume", "open a saved session (/resume ID, or the History tab)", _resume,
                     needs_session=False),
        SlashCommand("init", "write or improve AGENTS.md for this repository", _init),
        SlashCommand("clear", "forget the conversation", _clear),
        SlashCommand("status", "model, runtime, permissions (the Status tab)", _status, needs_session=False,
                     while_running=True),
        SlashCommand("undo", "rewind the last turn's file changes", _undo),
        SlashCommand("exit", "quit", _exit, needs_session=False, while_running=True),
    )
}


def parse(text: str) -> tuple[str, str]:
    """`/load qwen3-4b` -> ("load", "qwen3-4b")."""
    name, _, arg = text.strip()[1:].partition(" ")
    return name.lower(), arg.strip()


def suggest(name: str, known: Iterable[str] = COMMANDS) -> list[str]:
    names = list(known)
    return [n for n in names if n.startswith(name[:2])] if name else names
