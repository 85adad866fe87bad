"""The one stream of typed events the agent yields; every frontend is an adapter over it.

Event names are API (headless stream-json, ACP updates and the TUI all read them), so each is a
frozen dataclass told apart by its `type` literal. Reasoning and text fragments are onde's (the
runtime's) own `ReasoningDelta` and `TextDelta`: one type from the model to the screen.

It sits below the agent (which yields them) and the frontends (which read them): frontends import
events from here and sessions from `sigit.app`, never `sigit.agent` (an import-linter contract).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from onde import ReasoningDelta as ReasoningDelta
from onde import TextDelta as TextDelta

StopReason: TypeAlias = Literal[
    "end_turn", "max_rounds", "max_tokens", "cancelled", "error", "refusal", "loop_guard", "permission_denied"
]
"""Why a turn ended. `end_turn`: the model answered; `max_tokens`: its reply hit the token limit;
`max_rounds`: the round limit stopped its tool calls; `loop_guard`: the repetition guard stopped a reply
that kept repeating itself; `permission_denied`: the model answered after every call that would change
something was refused (`TurnFinished.permission_denials` lists them); `refusal`: the prompt was refused
before the model saw it (a hook); `cancelled`; `error`. Each frontend maps these to its own words
(headless `subtype`, ACP `stopReason`, a line in the TUI)."""
PermissionPurpose: TypeAlias = Literal["tool_call", "leave_sandbox"]
"""What a permission request asks: may this call run (`tool_call`), or may a command the sandbox
refused run once more without it (`leave_sandbox`; only "once" or "no" make sense as answers)."""


@dataclass(frozen=True)
class TurnStarted:
    prompt: str
    session_id: str
    type: Literal["turn_started"] = "turn_started"


@dataclass(frozen=True)
class ToolCallRequested:
    call_id: str
    name: str
    arguments: dict[str, Any]
    title: str
    read_only: bool
    kind: str = "other"
    """The tool's ACP kind (read, edit, delete, search, execute, fetch, think, other)."""
    locations: tuple[str, ...] = ()
    """Absolute paths the call declares it reads or writes."""
    type: Literal["tool_call_requested"] = "tool_call_requested"
    command: str | None = None
    """The command line the call runs, when it runs one (what `sigit mcp` reports as the commands run)."""


@dataclass(frozen=True)
class FileChange:
    """A file edit awaiting approval: the text the file holds now (None: new file) and after."""

    path: str
    new_text: str
    old_text: str | None = None


@dataclass(frozen=True)
class PermissionAsked:
    call_id: str
    name: str
    arguments: dict[str, Any]
    title: str
    reason: str
    suggested_rule: str
    preview: str | None = None
    """A diff of the edit about to be made, or the command about to run."""
    kind: str = "other"
    command: str | None = None
    """The command line the call would run, when it runs one (shown as shell code)."""
    change: FileChange | None = None
    locations: tuple[str, ...] = ()
    purpose: PermissionPurpose = "tool_call"
    """`leave_sandbox`: `reason` says what the sandbox refused, `suggested_rule` the flag or setting
    that would allow it for good."""
    type: Literal["permission_asked"] = "permission_asked"


@dataclass(frozen=True)
class PermissionAnswered:
    call_id: str
    allowed: bool
    scope: Literal["once", "session", "project", "rule"] = "once"
    reason: str = ""
    type: Literal["permission_answered"] = "permission_answered"


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    title: str
    type: Literal["tool_started"] = "tool_started"


@dataclass(frozen=True)
class ToolFinished:
    call_id: str
    name: str
    output: str
    is_error: bool = False
    diff: str | None = None
    locations: tuple[str, ...] = ()
    type: Literal["tool_finished"] = "tool_finished"


@dataclass(frozen=True)
class TodosUpdated:
    todos: tuple[tuple[str, str], ...]
    """(content, status) pairs, status one of pending / in_progress / completed."""
    type: Literal["todos_updated"] = "todos_updated"


@dataclass(frozen=True)
class UsageUpdated:
    prompt_tokens: int
    cached_prompt_tokens: int
    completion_tokens: int
    context_size: int
    total_prompt_tokens: int = 0
    total_completion_tokens: int = 0
    type: Literal["usage"] = "usage"
    cache_read_tokens: int = 0
    """Prompt tokens of this call nobody evaluated in this process (restored from disk, kept from earlier)."""
    cache_creation_tokens: int = 0
    """Prompt tokens of this call evaluated (and saved), the session-open prefill included."""
    total_cache_read_tokens: int = 0
    total_cache_creation_tokens: int = 0

    @property
    def context_fill(self) -> float:
        used = self.prompt_tokens + self.completion_tokens
        return used / self.context_size if self.context_size else 0.0


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not model output (compaction, a guard that fired)."""

    message: str
    level: Literal["info", "warning", "error"] = "info"
    type: Literal["notice"] = "notice"


@dataclass(frozen=True)
class Usage:
    """A turn's token counts, in our words; each frontend names them in its protocol's (Claude Code's
    `input_tokens`..., ACP's `cached_read_tokens`...) at its edge."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    """Prompt tokens nobody evaluated in this process (restored from disk, kept from earlier)."""
    cache_creation_tokens: int = 0
    """Prompt tokens evaluated (and saved); with `cache_read_tokens` they make `prompt_tokens`."""
    drafted_tokens: int = 0
    """Speculative decoding: tokens the draft proposed, and how many of them the model confirmed."""
    accepted_draft_tokens: int = 0
    draft_length: int = 0
    """What the runtime's draft length controller decided in the last model call: the draft length it
    chose most (0: none), what verifying such a draft costs in one-token steps (0.0: the runtime does not
    draft), the drafts' per-token acceptance rate, and whether drafting was backed off (not paying)."""
    draft_verify_cost: float = 0.0
    draft_acceptance: float = 0.0
    draft_backed_off: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class PermissionDenial:
    """A call that did not run because permission was refused (Claude Code's `permission_denials` entry)."""

    tool_name: str
    tool_use_id: str
    tool_input: dict[str, Any]
    reason: str = ""


@dataclass(frozen=True)
class CutOffCall:
    """A call the token limit cut off before it closed: never run, sent back to the model as an error."""

    tool_name: str
    tool_use_id: str
    message: str


@dataclass(frozen=True)
class TurnFinished:
    stop_reason: StopReason
    text: str
    rounds: int
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    type: Literal["turn_finished"] = "turn_finished"
    permission_denials: tuple[PermissionDenial, ...] = ()
    """The calls of this turn that permission refused (a rule, the user, or nobody to ask)."""
    cut_off_calls: tuple[CutOffCall, ...] = ()
    """The calls of this turn that a reply at max_tokens left unclosed (none of them ran)."""


def stop_sentence(finished: TurnFinished) -> str | None:
    """Why the turn ended, in one sentence for a person, when it is not simply answered (None; also for
    `max_rounds`, which the loop's own notice announces)."""
    denied = len(finished.permission_denials)
    calls = f"{denied} call{'' if denied == 1 else 's'}"
    return {
        "cancelled": "Cancelled.",
        "error": f"Error: {finished.error}",
        "refusal": f"Prompt refused: {finished.error}" if finished.error else "Prompt refused.",
        "max_tokens": "The reply hit the token limit (max_tokens).",
        "loop_guard": "Stopped: the model kept repeating itself (the repetition guard cut the reply).",
        "permission_denied": f"Nothing was changed: permission was refused for {calls} "
                             f"({', '.join(sorted({d.tool_name for d in finished.permission_denials}))}).",
    }.get(finished.stop_reason)


@dataclass(frozen=True)
class PermissionReply:
    """A frontend's answer to `PermissionAsked` (what the injected approver returns)."""

    allowed: bool
    scope: Literal["once", "session", "project"] = "once"
    reason: str = ""
    arguments: dict[str, Any] | None = None
    """The call's arguments as the one asked changed them before allowing it (the Claude Agent SDK's
    `updatedInput`); None: run it as asked. They are validated and judged by the rules again."""


AgentEvent: TypeAlias = (
    TurnStarted
    | ReasoningDelta
    | TextDelta
    | ToolCallRequested
    | PermissionAsked
    | PermissionAnswered
    | ToolStarted
    | ToolFinished
    | TodosUpdated
    | UsageUpdated
    | Notice
    | TurnFinished
)

__all__ = [
    "AgentEvent",
    "CutOffCall",
    "FileChange",
    "Notice",
    "PermissionAnswered",
    "PermissionAsked",
    "PermissionDenial",
    "PermissionPurpose",
    "PermissionReply",
    "ReasoningDelta",
    "StopReason",
    "TextDelta",
    "TodosUpdated",
    "ToolCallRequested",
    "ToolFinished",
    "ToolStarted",
    "TurnFinished",
    "TurnStarted",
    "Usage",
    "UsageUpdated",
    "stop_sentence",
]
