"""`sigit sandbox check` as a user runs it, and `sigit --version` not paying for it."""

from __future__ import annotations

import subprocess
import sys

from sigit.sandbox import SandboxSupport


def test_sandbox_check_reports_and_probes(support: SandboxSupport) -> None:
    done = subprocess.run([sys.executable, "-m", "sigit.cli", "sandbox", "check"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"Landlock: ABI {support.landlock_abi}" in out and "user namespaces: yes" in out
    assert "workspace-write: landlock:" in out and "git hooks/config read-only" in out
    for probe in ("write inside the workspace: allowed", "write outside the workspace: refused",
                  "refused (expected refused) ok"):
        assert probe in out


def test_the_cli_imports_the_sandbox_lazily() -> None:
    code = "import sys, sigit.cli; print('sigit.sandbox' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
