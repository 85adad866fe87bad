"""siGit's public API: what an app embedding the agent imports (`from sigit.api import ...`).

It lives here rather than in `sigit/__init__.py` on purpose: the package root stays free of imports, so
`sigit --version` and the ACP server's `initialize` answer in milliseconds, before onde, pydantic and
the tools load. Everything below is pinned by tests/sigit/test_public_api.py.
"""

from sigit.agent.loop import Agent, Approver, deny_all
from sigit.app import AgentSession, AskTrust, SessionHost
from sigit.commands import CommandResult
from sigit.config.settings import Settings, load_settings
from sigit.config.trust import ProjectRequests
from sigit.errors import (
    BadValueError,
    ModelError,
    SessionBusyError,
    SigitError,
    UsageError,
    WorkingDirectoryError,
)
from sigit.events import (
    AgentEvent,
    CutOffCall,
    FileChange,
    Notice,
    PermissionAnswered,
    PermissionAsked,
    PermissionDenial,
    PermissionReply,
    ReasoningDelta,
    StopReason,
    TextDelta,
    TodosUpdated,
    ToolCallRequested,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from sigit.options import HostOptions
from sigit.permissions import Decision, PermissionPolicy
from sigit.sessions import Session, SessionError, SessionStore
from sigit.status import SessionStatus
from sigit.tools import Tool, ToolArgs, ToolContext, ToolError, ToolOutput, ToolRegistry, default_registry
from sigit.tools.base import PreparedCall
from sigit.tools.subjects import Preview, Subjects

__all__ = [
    "Agent",
    "AgentEvent",
    "AgentSession",
    "Approver",
    "AskTrust",
    "BadValueError",
    "CommandResult",
    "CutOffCall",
    "Decision",
    "FileChange",
    "HostOptions",
    "ModelError",
    "Notice",
    "PermissionAnswered",
    "PermissionAsked",
    "PermissionDenial",
    "PermissionPolicy",
    "PermissionReply",
    "PreparedCall",
    "Preview",
    "ProjectRequests",
    "ReasoningDelta",
    "Session",
    "SessionBusyError",
    "SessionError",
    "SessionHost",
    "SessionStatus",
    "SessionStore",
    "Settings",
    "SigitError",
    "StopReason",
    "Subjects",
    "TextDelta",
    "TodosUpdated",
    "Tool",
    "ToolArgs",
    "ToolCallRequested",
    "ToolContext",
    "ToolError",
    "ToolFinished",
    "ToolOutput",
    "ToolRegistry",
    "ToolStarted",
    "TurnFinished",
    "TurnStarted",
    "UsageError",
    "UsageUpdated",
    "WorkingDirectoryError",
    "default_registry",
    "deny_all",
    "load_settings",
]
