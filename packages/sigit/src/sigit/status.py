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
    drafted_tokens: int = 0
    """Speculative decoding this session: tokens drafted, and those the model confirmed."""
    accepted_draft_tokens: int = 0
    draft_length: int = 0
    """What the runtime's draft length controller decided in the last model call (`events.Usage`)."""
    draft_verify_cost: float = 0.0
    draft_acceptance: float = 0.0
    draft_backed_off: bool = False

    def drafting(self) -> str:
        """Speculative decoding in one line: what the runtime chose, what verifying costs, how often drafts
        are right (the numbers it chose by), and this session's counts."""
        if self.draft_verify_cost <= 0:
            return "no drafts yet" if self.context_used is None else "off (the runtime does not draft)"
        right = f"{self.draft_acceptance:.0%} of drafted tokens right"
        counts = f"{self.accepted_draft_tokens} of {self.drafted_tokens} drafted tokens accepted this session"
        if self.draft_backed_off or self.draft_length == 0:
            return (f"backed off (not paying: {right}, a draft costs {self.draft_verify_cost:.2f} steps to "
                    f"verify; probes now and then); {counts}")
        return (f"drafts of {self.draft_length} tokens (verifying 1 + {self.draft_length} costs "
                f"{self.draft_verify_cost:.2f} steps, {right}); {counts}")
