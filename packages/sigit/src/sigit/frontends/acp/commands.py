"""The slash commands as the editor sees them (`available_commands_update`); `sigit.commands` runs them."""

from __future__ import annotations

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from ...app import AgentSession
from ...commands import builtins


def available_commands(session: AgentSession | None = None) -> list[AvailableCommand]:
    """The built-in commands, then the custom ones (markdown files) that do not shadow a built-in."""
    entries = [(c.name, c.help, c.hint) for c in builtins("acp")]
    if session is not None:
        names = {name for name, _, _ in entries}
        entries += [
            (c.name, c.description or f"Custom command ({c.path.name})", c.argument_hint or None)
            for c in session.commands.commands
            if c.name not in names
        ]
    return [
        AvailableCommand(
            name=name, description=description,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None,
        )
        for name, description, hint in entries
    ]
