"""macOS: a Seatbelt profile for `sandbox-exec`, written from the policy.

UNTESTED on a Mac: this project's machines run Linux, so only the generated text is tested. The
profile allows everything, then denies writes outside the writable roots (and to the protected git
parts inside them) and, with the network off, outbound connections and binds except on loopback
when `loopback = true`. Paths travel as `-D` parameters, never spliced into the profile text, so no
path can change the profile's meaning. `sandbox-exec` is deprecated by Apple but still ships and is
what Codex CLI and others use.
"""

from __future__ import annotations

from pathlib import Path

from .gitdirs import GitProtection, protect
from .policy import DEVICE_DIRS, DEVICE_FILES, SandboxPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"


def seatbelt_profile(policy: SandboxPolicy, protection: GitProtection | None = None) -> tuple[str, dict[str, str]]:
    """The profile text and its parameters (name -> path)."""
    params: dict[str, str] = {}

    def param(prefix: str, path: Path | str) -> str:
        name = f"{prefix}_{len(params)}"
        params[name] = str(path)
        return f'(param "{name}")'

    if protection is None:
        protection = protect(policy.work_roots(), policy.protected)
    writable = [f"(subpath {param('W', r)})" for r in [*policy.writable_roots(), *protection.writable]]
    writable += [f"(literal {param('D', d)})" for d in DEVICE_FILES]
    writable += [f"(subpath {param('D', d)})" for d in DEVICE_DIRS]
    writable.append('(regex #"^/dev/ttys[0-9]+$")')
    read_only = [f"(literal {param('G', p)})" for p in protection.pins]  # .git itself: no rename
    read_only += [f"(subpath {param('P', p)})" for p in protection.read_only]
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write* (require-not (require-any",
        *(f"    {w}" for w in writable),
        ")))",
    ]
    if read_only:
        lines += ["(deny file-write*", *(f"    {p}" for p in read_only), ")"]
    if not policy.network:
        if policy.loopback:
            lines += ['(deny network-outbound (require-not (remote ip "localhost:*")))',
                      '(deny network-bind (require-not (local ip "localhost:*")))']
        else:
            lines += ['(deny network-outbound (remote ip))', "(deny network-bind (local ip))"]
    return "\n".join(lines) + "\n", params


def seatbelt_argv(policy: SandboxPolicy, argv: list[str], sandbox_exec: str = SANDBOX_EXEC,
                  protection: GitProtection | None = None) -> list[str]:
    """`sandbox-exec -p PROFILE -D NAME=PATH ... -- ARGV`."""
    profile, params = seatbelt_profile(policy, protection)
    out = [sandbox_exec, "-p", profile]
    for name, value in params.items():
        out += ["-D", f"{name}={value}"]
    return [*out, *argv]
