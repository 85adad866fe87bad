"""Recognise a sandbox denial in a failed command's output and say it plainly for the model.

A small model reading "Permission denied" tends to retry with sudo or chmod; it needs to read that
the sandbox refused, what, and that retrying will not help. Only failures the sandbox explains are
reported: a write error naming a path outside the writable set (or a protected git path), or a
network error while the network is off. Anything else returns None, so a plain "Permission denied"
on a file inside the workspace stays the command's own business.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .policy import DEVICE_DIRS, DEVICE_FILES, SandboxPolicy

_WRITE_ERRORS = re.compile(r"Permission denied|Read-only file system|Operation not permitted|"
                           r"Device or resource busy|\[Errno (?:1|13|16|30)\]|EACCES|EPERM|EROFS")
_NETWORK_ERRORS = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Name or service not known|"
    r"Could not resolve host|Failed to resolve|getaddrinfo|EAI_AGAIN|ENETUNREACH|\[Errno (?:101|-2|-3)\]|"
    r"Connection refused|ECONNREFUSED|\[Errno 111\]|Couldn't connect to server|Failed to connect|"
    r"Failed to establish a new connection|Cannot assign requested address|"
    r"(?:connect|bind)\(\)?[^\n]*Permission denied|PermissionError: \[Errno 13\] Permission denied\s*$",
    re.MULTILINE,
)
_QUOTED = re.compile(r"""['"‘`]([^'"’`\n]+)['"’`]""")
_PROTECTED_GIT = re.compile(r"(?:^|/)\.git/(?:modules/.+/)?(?:hooks(?:/|$)|config(?:\.worktree)?$)")


@dataclass(frozen=True)
class Denial:
    """What the sandbox refused: a write to `path`, the network, or the command itself (setup failed)."""

    kind: Literal["write", "network", "setup"]
    sentence: str
    path: str | None = None


def find_denial(returncode: int, output: str, policy: SandboxPolicy) -> Denial | None:
    """The first denial the sandbox explains in `output`, or None (also when the command succeeded)."""
    if returncode == 0 or not policy.enabled:
        return None
    setup = re.search(r"^sigit sandbox: could not confine the command: (.*)$", output, re.MULTILINE)
    if setup is not None:
        return Denial("setup", f"not run: the sandbox could not be set up ({setup.group(1).strip()})")
    for line in output.splitlines():
        if _WRITE_ERRORS.search(line):
            for candidate in _paths_in(line):
                denial = _write_denial(candidate, policy)
                if denial is not None:
                    return denial
    if not policy.network:
        match = _NETWORK_ERRORS.search(output)
        if match is not None:
            where = " (only servers the command starts itself are reachable on loopback)" if policy.loopback else ""
            return Denial("network", f"blocked by the sandbox: network access is off{where} "
                                     f"({match.group(0).strip()})")
    return None


def explain_denial(returncode: int, output: str, policy: SandboxPolicy) -> str | None:
    """The sentence for the model ("blocked by the sandbox: write to /etc/hosts outside the workspace")."""
    denial = find_denial(returncode, output, policy)
    return denial.sentence if denial else None


def _paths_in(line: str) -> list[str]:
    """Path-like words in an error line: quoted ones first, then `WORD:` fields (sh, bash, git)."""
    found = [m.group(1) for m in _QUOTED.finditer(line)]
    for segment in line.split(": "):
        words = segment.split()
        if words:
            found.append(words[-1].strip("'\"‘’`,"))
    return [p for p in found if "/" in p or p.startswith(".") or re.fullmatch(r"[\w.+@-]+\.\w+", p)]


def _write_denial(candidate: str, policy: SandboxPolicy) -> Denial | None:
    path = Path(os.path.normpath(policy.workspace / os.path.expanduser(candidate)))
    real = Path(os.path.realpath(path))
    shown = str(path)
    protected = _PROTECTED_GIT.search(str(real)) or _PROTECTED_GIT.search(shown)
    if protected and any(_under(real, r) for r in policy.writable_roots()):
        return Denial("write", f"blocked by the sandbox: write to {shown} (git hooks and git config "
                                   "stay read-only inside the sandbox)", shown)
    if any(_under(real, Path(os.path.realpath(r))) for r in policy.writable_roots()):
        return None
    if str(real) in DEVICE_FILES or any(_under(real, Path(d)) for d in DEVICE_DIRS):
        return None
    if not path.is_absolute() or shown in ("/", "."):
        return None
    if policy.mode == "read-only":
        where = "the sandbox is read-only; only the temp dir ($TMPDIR) is writable"
        return Denial("write", f"blocked by the sandbox: write to {shown} ({where})", shown)
    return Denial("write", f"blocked by the sandbox: write to {shown} outside the workspace", shown)


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
