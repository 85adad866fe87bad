"""What this machine offers for confinement, found once per process by trying it.

User namespaces are probed by running the launcher for real (a new user, mount, network and PID
namespace plus one read-only bind mount; without the PID namespace if that one is refused), because
sysctls, AppArmor and container seccomp profiles can each refuse them in ways no single file shows.
About 20 ms, once.
"""

from __future__ import annotations

import binascii
import functools
import marshal
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import _enforce

LAUNCHER = Path(_enforce.__file__).resolve()
# The interpreter behind the venv's symlink: a copy inside the workspace could be replaced by a command.
INTERPRETER = os.path.realpath(sys.executable)
# The launcher's code travels in argv, compiled once here: nothing on disk that a sandboxed command
# could have rewritten (sigit's own source or its __pycache__ may sit in the workspace) runs before
# confinement, and unmarshalling is faster than compiling the script on every start. `-I` keeps the
# working directory off sys.path, `-S` skips site (the launcher needs only the standard library).
_BOOT = ("import sys, marshal, binascii; ns = {'__name__': '_enforce'}; "
         "exec(marshal.loads(binascii.a2b_base64(sys.argv[1])), ns); sys.exit(ns['main'](sys.argv[2:]))")


@functools.cache
def _launcher_code() -> str:
    code = compile(LAUNCHER.read_text(encoding="utf-8"), str(LAUNCHER), "exec")
    return binascii.b2a_base64(marshal.dumps(code), newline=False).decode("ascii")


def launcher_argv(plan: list[str], argv: list[str]) -> list[str]:
    """`python -I -S -c BOOT CODE PLAN -- ARGV`, where CODE is _enforce.py, compiled and marshalled."""
    return [INTERPRETER, "-I", "-S", "-c", _BOOT, _launcher_code(), *plan, "--", *argv]


@dataclass(frozen=True)
class SandboxSupport:
    """The confinement tools present, and why a missing one is missing."""

    system: str  # platform.system(): Linux, Darwin, ...
    kernel: str
    landlock_abi: int = 0
    user_namespaces: bool = False
    user_namespaces_error: str = ""
    pid_namespaces: bool = False  # each command in a PID namespace of its own (needs user namespaces)
    pid_namespaces_error: str = ""
    bwrap: str | None = None
    sandbox_exec: str | None = None

    @property
    def landlock_network(self) -> bool:
        """TCP bind/connect rules need Landlock ABI 4."""
        return self.landlock_abi >= 4

    @property
    def landlock_scopes(self) -> bool:
        """Signals and abstract unix sockets scoped to the sandbox need ABI 6."""
        return self.landlock_abi >= 6


def _probe_user_namespaces(pid: bool = False) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="sigit-probe-") as tmp:
        argv = launcher_argv(["--userns", *(["--pidns"] if pid else []), "--netns", "--lo", "--ro", tmp], ["true"])
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, str(exc)
    if done.returncode == 0:
        return True, ""
    reason = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
    return False, reason[0].removeprefix("sigit sandbox: ")


@functools.cache
def detect_support() -> SandboxSupport:
    """Probe once per process; `sigit sandbox check` prints the result."""
    system = platform.system()
    kernel = platform.release()
    if system == "Darwin":
        return SandboxSupport(system, kernel, sandbox_exec=_which("sandbox-exec", "/usr/bin/sandbox-exec"))
    if system != "Linux":
        return SandboxSupport(system, kernel)
    pidns, pid_error = _probe_user_namespaces(pid=True)
    userns, error = (True, "") if pidns else _probe_user_namespaces()
    return SandboxSupport(system, kernel, landlock_abi=_enforce.landlock_abi(), user_namespaces=userns,
                          user_namespaces_error=error, pid_namespaces=pidns, pid_namespaces_error=pid_error,
                          bwrap=shutil.which("bwrap"))


def _which(name: str, usual: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    return usual if os.path.exists(usual) else None
