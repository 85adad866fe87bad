"""OS sandbox for the commands the agent runs: writes only where the policy allows, network off.

Permission rules decide whether a command may start; the sandbox bounds what it can do once it
runs. Self-contained: it imports nothing from sigit but `sigit.errors`, `sigit.fileio` and `sigit.git`
(which reads a nested repository's config for keys that run programs). See runner.py for the
use in four lines, policy.py for the settings, and `sigit sandbox check` for this machine.
"""

from __future__ import annotations

from .denials import Denial, explain_denial, find_denial
from .policy import (
    DEFAULT_CACHE_DIRS,
    DEFAULT_MODE,
    DEFAULT_PROTECTED,
    MODES,
    SandboxMode,
    SandboxPolicy,
)
from .repo_guard import RepositoryGuard, runs_code
from .runner import Enforcement, Sandbox, SandboxedCommand, decide, open_sandbox
from .support import SandboxSupport, detect_support

__all__ = [
    "DEFAULT_CACHE_DIRS",
    "DEFAULT_MODE",
    "DEFAULT_PROTECTED",
    "MODES",
    "Denial",
    "Enforcement",
    "RepositoryGuard",
    "Sandbox",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxSupport",
    "SandboxedCommand",
    "decide",
    "detect_support",
    "explain_denial",
    "find_denial",
    "open_sandbox",
    "runs_code",
]
