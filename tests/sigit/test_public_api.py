"""sigit's public surface: what `from sigit.api import ...` gives, pinned so changes are deliberate."""

from __future__ import annotations

import subprocess
import sys

import sigit.api
from sigit.api import BadValueError, ModelError, SessionError, SigitError, UsageError, WorkingDirectoryError
from sigit.checkpoints import CheckpointError
from sigit.config.rules import RuleSyntaxError
from sigit.config.settings import SettingsError
from sigit.config.trust import TrustStoreError
from sigit.extensions.frontmatter import FrontmatterError
from sigit.extensions.mcp_client import McpConfigError

EXPECTED_ALL = [
    "Agent", "AgentEvent", "AgentSession", "Approver", "AskTrust", "BadValueError", "CommandResult", "CutOffCall",
    "Decision",
    "FileChange", "HostOptions", "ModelError", "Notice", "PermissionAnswered", "PermissionAsked", "PermissionDenial",
    "PermissionPolicy", "PermissionReply", "PreparedCall", "Preview", "ProjectRequests", "ReasoningDelta", "Session",
    "SessionBusyError", "SessionError", "SessionHost", "SessionStatus", "SessionStore", "Settings",
    "SigitError", "StopReason", "Subjects", "TextDelta", "TodosUpdated", "Tool", "ToolArgs",
    "ToolCallRequested", "ToolContext", "ToolError", "ToolFinished", "ToolOutput", "ToolRegistry",
    "ToolStarted", "TurnFinished", "TurnStarted", "UsageError", "UsageUpdated", "WorkingDirectoryError",
    "default_registry", "deny_all", "load_settings",
]  # fmt: skip


def test_all_is_pinned_and_importable() -> None:
    assert sigit.api.__all__ == EXPECTED_ALL
    for name in sigit.api.__all__:
        assert getattr(sigit.api, name) is not None


def test_every_error_a_frontend_sees_is_one_hierarchy() -> None:
    """Frontends catch SigitError once: UsageError becomes exit 2 / -32602, the rest exit 1 / -32603."""
    for usage in (SettingsError, RuleSyntaxError, SessionError, CheckpointError, McpConfigError, FrontmatterError,
                  BadValueError, WorkingDirectoryError, TrustStoreError):
        assert issubclass(usage, UsageError) and issubclass(usage, SigitError), usage
    assert issubclass(ModelError, SigitError) and not issubclass(ModelError, UsageError)
    assert issubclass(SettingsError, ValueError)  # old `except ValueError` handlers still work


def test_importing_the_package_root_loads_nothing_heavy() -> None:
    """`sigit --version` and ACP `initialize` rely on the root importing neither onde nor pydantic."""
    code = "import sys, sigit; print(sorted(m for m in ('onde', 'pydantic', 'sigit.app') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
