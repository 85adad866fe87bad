"""Recognise a sandbox denial in a failed command's output and say it plainly for the model.

A small model reading "Permission denied" tends to retry with sudo or chmod; it needs to read that
the sandbox refused, what, and that retrying will not help. Only failures the sandbox explains are
reported: a write error naming a path outside the writable set (or a protected git path), or a
network error while the network is off. Anything else returns None, so a plain "Permission denied"
on a file inside the workspace stays the command's own business.

The sandbox never restricts reads, and a command can print any line it likes, so a "Permission
denied" counts as a write denial only when the line shows a write (`cannot create`, `touch`,
`mkdir`, a shell's redirection, `Read-only file system`, a Python traceback whose source line
writes...) and the user could write there outside the sandbox (the nearest existing parent is
writable to them): `cat: /root/.ssh/id_rsa: Permission denied` is never the sandbox's doing.
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
# The line shows a write (or a lock git takes to write), not a read.
_WRITE_SHOWN = re.compile(
    r"cannot create|can't create|cannot touch|(?:^|\s)(?:touch|mkdir|rm|tee):|cannot make|"
    r"cannot remove|can't remove|cannot move|cannot overwrite|failed to create|"
    r"(?:could not|unable to) (?:lock|create|write)|for writing|Read-only file system|EROFS|"
    r"\[Errno (?:16|30)\]|Device or resource busy",
    re.IGNORECASE,
)
# `sh: 1: ...`, `bash: line 1: ...`, `bash: /path: ...`: the shell reports a redirection it could not open.
_SHELL_PREFIX = re.compile(r"^(?:\S*/)?(?:sh|bash|dash|zsh|ksh|ash)(?:: line \d+|: \d+)?: ")
# A Python traceback's source line (just above the error) that writes.
_PYTHON_WRITE = re.compile(
    r"""open\((?:[^,()]*,)?\s*(?:mode\s*=\s*)?['"][rbt]*[wax+][rwabxt+]*['"]|\.(?:write_text|write_bytes|touch|mkdir|makedirs|rename|replace|"""
    r"""unlink|remove|rmdir|symlink_to|truncate)\(|\b(?:os|shutil)\.(?:makedirs|mkdir|remove|unlink|rename|"""
    r"""replace|rmdir|symlink|truncate|copy\w*|move|rmtree)\(""")
_QUOTED = re.compile(r"""['"‘`]([^'"’`\n]+)['"’`]""")
_PROTECTED_GIT = re.compile(r"(?:^|/)\.git/(?:modules/.+/)?(?:hooks(?:/|$)|config(?:\.worktree)?$)")


@dataclass(frozen=True)
class Denial:
    """What the sandbox refused: a write to `path`, the network, or the command itself (setup failed)."""

    kind: Literal["write", "network", "setup"]
    sentence: str
    path: str | None = None


def find_denial(returncode: int, output: str, policy: SandboxPolicy, *, even_if_succeeded: bool = False
                ) -> Denial | None:
    """The first denial the sandbox explains in `output`, or None (also when the command succeeded,
    unless `even_if_succeeded`: `echo x > /etc/f; echo done` exits 0 after a refused write)."""
    if (returncode == 0 and not even_if_succeeded) or not policy.enabled:
        return None
    tag = rf" \[{re.escape(policy.tag)}\]" if policy.tag else ""  # only the launcher knows it: not a command's echo
    setup = re.search(rf"^sigit sandbox: could not confine the command{tag}: (.*)$", output, re.MULTILINE)
    if setup is not None:
        return Denial("setup", f"not run: the sandbox could not be set up ({setup.group(1).strip()})")
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if _WRITE_ERRORS.search(line) and _shows_write(line, lines[max(0, index - 3):index]):
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


def _shows_write(line: str, before: list[str]) -> bool:
    """Whether the error line (with the few lines above it, for a traceback) is about a write."""
    if "for reading" in line:
        return False
    if _WRITE_SHOWN.search(line) or _SHELL_PREFIX.match(line):
        return True
    return "Error" in line and any(_PYTHON_WRITE.search(b) for b in before)


def _paths_in(line: str) -> list[str]:
    """Path-like words in an error line: quoted ones first, then `WORD:` fields (sh, bash, git); the
    shell's own name (`/usr/bin/bash: line 1: ...`) is not one."""
    line = _SHELL_PREFIX.sub("", line)
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
    if not _user_may_write(real):
        return None  # refused outside the sandbox too: the file's own permissions, not the sandbox
    if policy.mode == "read-only":
        where = "the sandbox is read-only; only the temp dir ($TMPDIR) is writable"
        return Denial("write", f"blocked by the sandbox: write to {shown} ({where})", shown)
    return Denial("write", f"blocked by the sandbox: write to {shown} outside the workspace", shown)


def _user_may_write(path: Path) -> bool:
    """Whether the user could create or change `path` outside the sandbox (its nearest existing parent)."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return os.access(parent, os.W_OK)


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
