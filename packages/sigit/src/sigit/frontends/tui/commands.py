"""Slash commands: each a name, a one-line help and a handler taking the app and the argument text."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...permissions.policy import parse_mode
from ...prompt.init_prompt import INIT_PROMPT

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


async def _help(app: SigitApp, arg: str) -> None:
    lines = ["Slash commands:"]
    lines += [f"  /{c.name:<12} {c.help}" for c in COMMANDS.values()]
    lines += ["", "Keys: Enter send · Shift+Enter/Ctrl+J newline · Up/Down history · Tab complete",
              "      Esc/Ctrl+C cancel the turn · Ctrl+C twice or Ctrl+D quit · Ctrl+O models",
              "      Ctrl+T expand/collapse tool calls · Alt+1..4 tabs (Session, History, Repo, Status)"]
    await app.notice("\n".join(lines))


async def _models(app: SigitApp, arg: str) -> None:
    app.action_models()


async def _load(app: SigitApp, arg: str) -> None:
    if not arg:
        await app.notice("usage: /load MODEL (a registry name, a .gguf path, hf:..., scripted:FILE)", "error")
        return
    app.switch_model(arg)


async def _plan(app: SigitApp, arg: str) -> None:
    policy = app.require_session().agent.policy
    if policy.mode == "plan":
        policy.mode = app.mode_before_plan
        await app.notice(f"Plan mode off: permission mode {policy.mode}.")
    else:
        app.mode_before_plan = policy.mode
        policy.mode = "plan"
        await app.notice("Plan mode on: the agent reads and plans; edits and commands are refused.")
    app.refresh_status()


async def _permissions(app: SigitApp, arg: str) -> None:
    session = app.require_session()
    policy = session.agent.policy
    if arg:
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
        app.open_saved(arg.strip())
    else:
        app.show_tab("history")


async def _init(app: SigitApp, arg: str) -> None:
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


COMMANDS: dict[str, SlashCommand] = {
    c.name: c
    for c in (
        SlashCommand("help", "commands and keys", _help, needs_session=False),
        SlashCommand("models", "pick a model from the registry", _models, needs_session=False),
        SlashCommand("load", "load a model by name or path", _load, needs_session=False),
        SlashCommand("plan", "toggle plan mode (no edits, no commands)", _plan),
        SlashCommand("permissions", "show permissions; /permissions MODE sets the mode", _permissions),
        SlashCommand("thinking", "toggle the model's thinking (on/off)", _thinking),
        SlashCommand("tools", "expand or collapse tool calls; list tools", _tools),
        SlashCommand("compact", "summarise the conversation to free context", _compact),
        SlashCommand("resume", "open a saved session (/resume ID, or the History tab)", _resume,
                     needs_session=False),
        SlashCommand("init", "write or improve AGENTS.md for this repository", _init),
        SlashCommand("clear", "forget the conversation", _clear),
        SlashCommand("status", "model, runtime, permissions (the Status tab)", _status, needs_session=False),
        SlashCommand("undo", "rewind the last turn's file changes", _undo),
        SlashCommand("exit", "quit", _exit, needs_session=False),
    )
}


def parse(text: str) -> tuple[str, str]:
    """`/load qwen3-4b` -> ("load", "qwen3-4b")."""
    name, _, arg = text.strip()[1:].partition(" ")
    return name.lower(), arg.strip()


def suggest(name: str) -> list[str]:
    return [n for n in COMMANDS if n.startswith(name[:2])] if name else list(COMMANDS)
