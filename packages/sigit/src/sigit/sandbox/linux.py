"""Linux: the launcher's plan (Landlock + namespaces) for a policy, or a bubblewrap argv as fallback.

Landlock restricts writes to the writable roots (reads stay open) and, from ABI 4, refuses TCP
bind/connect; from ABI 6 it also keeps signals and abstract unix sockets inside the sandbox (a
command cannot `kill` sigit or talk to a session bus). A user + mount namespace adds what Landlock
cannot express: read-only `.git/hooks` and `.git/config` inside a writable workspace, and service
sockets hidden (policy.DEFAULT_MASKED: connecting by path escapes Landlock). With the
network off, a network namespace leaves the command only its own loopback (`lo` up only when
`loopback = true`), which also stops UDP and DNS, which Landlock does not cover. Where the kernel
allows it, each command also gets a PID namespace of its own (_enforce.py), so everything it starts
ends when siGit ends it, whatever it did to its session, process group or environment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import _enforce as ll
from .gitdirs import GitProtection, protect
from .policy import DEVICE_DIRS, DEVICE_FILES, SandboxPolicy
from .support import SandboxSupport


def write_rights(abi: int) -> int:
    """The Landlock rights that make up "write" at this ABI (reads and execution are not handled)."""
    rights = (ll.FS_WRITE_FILE | ll.FS_REMOVE_DIR | ll.FS_REMOVE_FILE | ll.FS_MAKE_CHAR | ll.FS_MAKE_DIR
              | ll.FS_MAKE_REG | ll.FS_MAKE_SOCK | ll.FS_MAKE_FIFO | ll.FS_MAKE_BLOCK | ll.FS_MAKE_SYM)
    if abi >= 2:
        rights |= ll.FS_REFER  # without it, ABI 1 refuses every rename across directories
    if abi >= 3:
        rights |= ll.FS_TRUNCATE
    return rights


@dataclass(frozen=True)
class LinuxPlan:
    """What the launcher will do for one command."""

    args: list[str]
    protection: GitProtection
    writable: list[Path]


def landlock_plan(policy: SandboxPolicy, support: SandboxSupport, *, namespaces: bool,
                  protection: GitProtection | None = None, background: bool = False,
                  lifeline: int | None = None) -> LinuxPlan:
    """Launcher arguments for `policy`; `namespaces` says whether user namespaces may be used.

    `protection` is the sandbox's, resolved when it opened (gitdirs.py); None resolves it now.
    `background`: what the command leaves running outlives it until siGit ends it (a background
    command's server), or until `lifeline` (a pipe's read end the command inherits) ends, when siGit
    has died; otherwise it ends with the command.
    """
    rights = write_rights(support.landlock_abi)
    if not namespaces:
        protection = GitProtection()
    elif protection is None:
        protection = protect(policy.work_roots(), policy.protected)
    writable = [*policy.writable_roots(), *protection.writable]
    args: list[str] = []
    network_off = not policy.network
    masked = policy.masked_paths() if namespaces else ()
    pidns = namespaces and support.pid_namespaces
    namespaces = namespaces and bool(protection.pins or protection.read_only or masked or network_off or pidns)
    if namespaces:  # only when needed: they cost a millisecond or two per start
        args.append("--userns")
        if pidns:
            args.append("--pidns")
            if background:
                args.append("--linger")
                if lifeline is not None:
                    args += ["--lifeline", str(lifeline)]
        if network_off:
            args.append("--netns")
            if policy.loopback:
                args.append("--lo")
        for path in protection.pins:
            args += ["--pin", str(path)]
        for path in protection.read_only:
            args += ["--ro", str(path)]
        for path in masked:
            args += ["--mask", str(path)]
    if policy.tag:
        args += ["--tag", policy.tag]
    args += ["--fs", str(rights)]
    if network_off and support.landlock_network and not (policy.loopback and namespaces):
        # Landlock cannot tell loopback from the rest: with loopback allowed, the netns does the job.
        args += ["--net", str(ll.NET_BIND_TCP | ll.NET_CONNECT_TCP)]
    if support.landlock_scopes:
        args += ["--scope", str(ll.SCOPE_SIGNAL | ll.SCOPE_ABSTRACT_UNIX_SOCKET)]
    for root in writable:
        args += ["--allow", str(rights), str(root)]
    for device in DEVICE_FILES:
        args += ["--allow", str(rights & ll.FS_FILE_RIGHTS), device]
    for device_dir in DEVICE_DIRS:
        args += ["--allow", str(rights), device_dir]
    return LinuxPlan(args, protection, writable)


def bwrap_argv(policy: SandboxPolicy, bwrap: str, argv: list[str],
               protection: GitProtection | None = None) -> list[str]:
    """bubblewrap: the whole tree read-only, writable roots bound back writable, git parts read-only.

    Used only where Landlock is missing. `lo` is always up in bubblewrap's network namespace, so
    with the network off the command still reaches servers it starts itself (never the host's).
    """
    if protection is None:
        protection = protect(policy.work_roots(), policy.protected)
    out = [bwrap, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"]
    for root in [*policy.writable_roots(), *protection.writable]:
        out += ["--bind", str(root), str(root)]
    for path in protection.pins:
        out += ["--bind", str(path), str(path)]
    for path in protection.read_only:
        out += ["--ro-bind", str(path), str(path)]
    for path in policy.masked_paths():
        out += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    if not policy.network:
        out.append("--unshare-net")
    # its own PID namespace: what the command starts ends with it (bubblewrap's init exits with the command)
    out += ["--unshare-pid", "--die-with-parent"]
    return [*out, "--", *argv]
