"""Slash commands offered to the editor (`available_commands_update`) and run without the model.

A prompt that starts with a known `/name` is a command; any other text, slash or not, goes to the
model unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from ...app import AgentSession
from ...permissions.policy import parse_mode
from ...prompt.init_prompt import INIT_PROMPT


@dataclass(frozen=True)
class CommandResult:
    reply: str = ""
    """Shown to the user as the agent's message."""
    prompt: str | None = None
    """Run this as a model prompt instead (`/init`)."""
    mode: str | None = None
    """The permission mode the command switched to (the editor is told)."""


COMMANDS: tuple[tuple[str, str, str | None], ...] = (
    ("help", "List the slash commands", None),
    ("plan", "Switch to plan mode (read-only; the model answers with a plan); `/plan off` goes back",
     "on | off"),
    ("permissions", "Show the permission mode and the rules in force", None),
    ("compact", "Summarise the conversation to free context", None),
    ("clear", "Forget the conversation (the saved session is deleted)", None),
    ("init", "Explore the repository and write or improve AGENTS.md", None),
    ("status", "Session, model, mode, context use", None),
    ("undo", "Undo the file changes of the last turn (the conversation stays)", None),
    ("models", "List the models this build knows", None),
    ("tools", "List the tools the model can call", None),
    ("mcp", "List the MCP servers, their state and tools", None),
    ("skills", "List the skills the model can load", None),
    ("commands", "List the custom slash commands", None),
)
NAMES = frozenset(name for name, _, _ in COMMANDS)


def available_commands(session: AgentSession | None = None) -> list[AvailableCommand]:
    """The built-in commands, then the custom ones (markdown files) that do not shadow a built-in."""
    entries = list(COMMANDS)
    if session is not None:
        entries += [
            (c.name, c.description or f"Custom command ({c.path.name})", c.argument_hint or None)
            for c in session.commands.commands
            if c.name not in NAMES
        ]
    return [
        AvailableCommand(
            name=name, description=description,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None,
        )
        for name, description, hint in entries
    ]


def parse_command(text: str) -> tuple[str, str] | None:
    """`("plan", "off")` for "/plan off"; None when the text is not one of our commands."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    return (name, arg.strip()) if name in NAMES else None


def model_names(current: str) -> list[str]:
    from onde import list_models

    names = [model.key for model in list_models()]
    return names if current in names else [current, *names]


async def run_command(name: str, arg: str, session: AgentSession, model: str) -> CommandResult:
    agent = session.agent
    if name == "help":
        return CommandResult("\n".join(f"- `/{n}` {d}" for n, d, _ in COMMANDS))
    if name == "plan":
        target = "default" if arg in ("off", "exit", "default") else "plan"
        agent.policy.mode = parse_mode(target)
        return CommandResult(f"Permission mode: **{target}**.", mode=target)
    if name == "permissions":
        rules = agent.policy.settings.permissions
        lines = [f"Mode: **{agent.policy.mode}** (default answer: {rules.default})"]
        lines += [f"- allow `{r}`" for r in [*rules.allow, *agent.policy.session_grants]]
        lines += [f"- deny `{r}`" for r in rules.deny]
        lines += [f"- {tool}: {answer}" for tool, answer in rules.tools.items()]
        return CommandResult("\n".join(lines))
    if name == "compact":
        notice = await session.compact()
        return CommandResult(notice.message)
    if name == "clear":
        removed = session.clear()
        return CommandResult(f"Cleared the conversation ({removed} messages).")
    if name == "init":
        return CommandResult(prompt=INIT_PROMPT)
    if name == "status":
        usage = agent.last_usage
        context = (f"{usage.prompt_tokens + usage.completion_tokens} / {usage.context_size} tokens"
                   if usage is not None else "no model call yet")
        return CommandResult("\n".join([
            f"- Session: `{session.id}`", f"- Directory: `{session.cwd}`", f"- Model: `{model}`",
            f"- Mode: **{agent.policy.mode}**", f"- Context: {context}",
            f"- Messages: {len(agent.engine.history_messages())}",
            f"- Tokens this session: {agent.total_prompt_tokens} in, {agent.total_completion_tokens} out",
        ]))
    if name == "undo":
        restored = session.rewind()
        if not restored:
            return CommandResult("Nothing to undo: the last turn changed no files.")
        return CommandResult("Restored:\n" + "\n".join(f"- `{p}`" for p in restored))
    if name == "models":
        lines = [f"- `{n}`" + (" (current)" if n == model else "") for n in model_names(model)]
        return CommandResult("Models (switch with the editor's model selector; the conversation stays):\n"
                             + "\n".join(lines))
    if name == "tools":
        return CommandResult("\n".join(
            f"- `{t.name}`" + (" (read-only)" if t.read_only else "") for t in agent.tools.tools()
        ))
    if name == "mcp":
        return CommandResult(f"```\n{session.mcp_status()}\n```")
    if name == "skills":
        skill = agent.tools.get("skill")
        return CommandResult(skill.description if skill is not None else "No skills found (.sigit/skills, "
                             ".claude/skills, the user config dir).")
    if name == "commands":
        custom = session.commands.commands
        if not custom:
            return CommandResult("No custom commands (.sigit/commands, .claude/commands, the user config dir).")
        return CommandResult("\n".join(f"- `/{c.name}` {c.description}" for c in custom))
    raise ValueError(f"unknown command /{name}")
