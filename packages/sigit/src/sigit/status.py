"""What a session is now (model, mode, rules, tools, context use), as one typed value.

`AgentSession.status()` builds it; the TUI's Status tab and `/status` render it, so no frontend
reads the agent's parts to find out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config.settings import PermissionMode


@dataclass(frozen=True)
class SessionStatus:
    session_id: str
    cwd: Path
    model: str
    runtime: str
    """The runtime's name ("llama.cpp", "scripted", ...), or "?" when it does not say."""
    runtime_state: str
    context_size: int
    tool_capable: bool
    messages: int
    mode: PermissionMode
    default_answer: str
    """What a call no rule covers gets: ask, allow or deny (settings `permissions.default`)."""
    allow_rules: tuple[str, ...]
    deny_rules: tuple[str, ...]
    tool_answers: tuple[tuple[str, str], ...]
    """Per-tool answers from settings (`[permissions.tools]`)."""
    session_grants: tuple[str, ...]
    session_denials: tuple[str, ...]
    tools: tuple[str, ...]
    mcp_servers: tuple[str, ...]
    thinking: bool
    context_used: int | None
    """Tokens of the last model call (prompt and reply); None before the first call."""
    prompt_tokens: int
    completion_tokens: int
    warnings: tuple[str, ...] = ()
    sandbox: str = "off"
    """The sandbox commands run in: `workspace-write, network off`, or why it is off."""
    cache_read_tokens: int = 0
    """Of `prompt_tokens`, those not evaluated here (restored from the prompt cache, kept from earlier calls)."""
    cache_creation_tokens: int = 0
    """Of `prompt_tokens`, those evaluated (the session-open prefill included)."""
    model_details: tuple[tuple[str, str], ...] = ()
    """What the runtime detected in the model (template, call format, layers, context window and why),
    the rows `qwen-runtime inspect` and `sigit doctor` show."""
