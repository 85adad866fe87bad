"""`sigit sandbox check`: what this OS offers, what each mode would enforce, and three live probes.

The probes run real commands in `workspace-write` with the network off, in a throwaway workspace:
a write inside (must work), a write outside (must be refused, the file untouched) and a TCP connect
to a listener this process opens on 127.0.0.1 (must be refused). Exit status 0 when all three behave.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .policy import MODES, SandboxPolicy
from .runner import decide, open_sandbox
from .support import SandboxSupport, detect_support


@dataclass(frozen=True)
class Probe:
    name: str
    expected: str
    observed: str

    @property
    def ok(self) -> bool:
        return self.expected == self.observed


def describe_support(support: SandboxSupport) -> list[str]:
    lines = [f"system: {support.system} {support.kernel}"]
    if support.system == "Linux":
        abi = support.landlock_abi
        lines.append(f"Landlock: ABI {abi}" + (" (missing)" if abi == 0 else
                     f" (files: yes; TCP rules: {'yes' if abi >= 4 else 'no, needs 4'}; "
                     f"signal/socket scopes: {'yes' if abi >= 6 else 'no, needs 6'})"))
        lines.append("user namespaces: " + ("yes" if support.user_namespaces else
                                             f"no ({support.user_namespaces_error})"))
        lines.append("PID namespaces (what a command starts ends with it): " + (
            "yes" if support.pid_namespaces else f"no ({support.pid_namespaces_error or 'needs user namespaces'})"))
        lines.append(f"bubblewrap: {support.bwrap or 'not installed'}")
    elif support.system == "Darwin":
        lines.append(f"sandbox-exec: {support.sandbox_exec or 'missing'} (Seatbelt; untested by siGit's CI)")
    return lines


def describe_modes(support: SandboxSupport, workspace: Path) -> list[str]:
    lines = []
    for mode in MODES:
        enforcement = decide(SandboxPolicy(workspace=workspace, mode=mode), support)
        if enforcement.mechanism == "none":
            text = "nothing enforced"
        else:
            parts = ["writes: " + ("temp dir only" if mode == "read-only" else "workspace, caches, temp dir"),
                     "git hooks/config read-only" if enforcement.git_read_only and mode != "read-only" else "",
                     "network off" if enforcement.network else "network NOT enforced"]
            text = f"{enforcement.mechanism}: " + "; ".join(p for p in parts if p)
        lines.append(f"  {mode}: {text}")
        lines += [f"    ! {w}" for w in enforcement.warnings]
    return lines


def run_probes(support: SandboxSupport) -> list[Probe]:
    with tempfile.TemporaryDirectory(prefix="sigit-check-") as tmp:
        workspace, outside = Path(tmp) / "workspace", Path(tmp) / "outside"
        workspace.mkdir()
        outside.mkdir()
        target = outside / "probe.txt"
        target.write_text("untouched\n")
        with open_sandbox(SandboxPolicy(workspace=workspace), support) as sandbox, socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            port = listener.getsockname()[1]
            if not sandbox.active:
                return [Probe("sandbox", "on", "off: " + "; ".join(sandbox.warnings))]

            def run(script: str) -> int:
                cmd = sandbox.wrap([sys.executable, "-I", "-S", "-c", script], {"PATH": "/usr/bin:/bin"})
                return subprocess.run(cmd.argv, env=cmd.env, cwd=workspace, capture_output=True,
                                      timeout=30, check=False).returncode

            inside = run(f"open({str(workspace / 'probe.txt')!r}, 'w').write('ok')")
            out = run(f"open({str(target)!r}, 'w').write('changed')")
            net = run(f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)")
            return [
                Probe("write inside the workspace", "allowed", "allowed" if inside == 0 else "refused"),
                Probe("write outside the workspace", "refused",
                      "refused" if out != 0 and target.read_text() == "untouched\n" else "allowed"),
                Probe(f"connect to 127.0.0.1:{port}", "refused", "refused" if net != 0 else "allowed"),
            ]


def run_check(argv: list[str]) -> int:
    """Entry point of `sigit sandbox check`."""
    parser = argparse.ArgumentParser(prog="sigit sandbox", description="Inspect the OS sandbox.")
    parser.add_argument("action", choices=("check",))
    parser.add_argument("--cwd", default=".", help="workspace the mode summary refers to")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    support = detect_support()
    print("\n".join(describe_support(support)))
    print("modes:")
    print("\n".join(describe_modes(support, Path(args.cwd).resolve())))
    print("probes (workspace-write, network off):")
    probes = run_probes(support)
    for probe in probes:
        mark = "ok" if probe.ok else "FAILED"
        print(f"  {probe.name}: {probe.observed} (expected {probe.expected}) {mark}")
    return 0 if all(p.ok for p in probes) else 1
