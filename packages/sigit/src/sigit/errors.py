"""siGit's errors: one base, so a frontend catches `SigitError` and translates it once.

Each frontend maps the two branches its own way: headless to exit codes (`UsageError` 2, any other
`SigitError` 1), ACP to JSON-RPC codes (-32602 invalid params, -32603 internal), the TUI to a notice.
Errors a tool reports to the model are not here: those are results the model reads (`ToolError`).

    SigitError
    ├── UsageError        something the user gave is wrong: a settings file, a rule, a session id,
    │                     a working directory, a model name, an MCP or command file
    └── ModelError        the model could not be loaded or failed while generating
        └── ModelNotDownloadedError   the model is not cached and nobody said it may be downloaded

The concrete classes keep `ValueError` as a second base where they always had it, so existing
`except ValueError` handlers still work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onde import ModelDownload


class SigitError(Exception):
    """Base of every error siGit raises to a frontend."""


class UsageError(SigitError):
    """Input from the user (flags, settings, files in the repository) that siGit cannot use."""


class ModelError(SigitError):
    """The model could not be loaded, or generation failed; the message says which model and why."""


class ModelNotDownloadedError(ModelError):
    """Loading the model would download gigabytes the user has not agreed to; `download` says what."""

    def __init__(self, message: str, download: ModelDownload) -> None:
        super().__init__(message)
        self.download = download


class BadValueError(UsageError, ValueError):
    """A value the user gave (a permission mode, a model name, a flag) that siGit does not accept."""


class WorkingDirectoryError(UsageError, FileNotFoundError):
    """The working directory asked for does not exist or is not a directory."""


class SessionBusyError(UsageError, RuntimeError):
    """An operation that needs the session idle (switching models) while a turn runs."""
