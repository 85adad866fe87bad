"""The bubblewrap fallback (used only where Landlock is missing) on real processes.

bubblewrap is optional: CI does not install it (`.ci/run` only runs the README's commands), so this
test runs where `bwrap` is on PATH and is skipped, saying so, elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sigit.sandbox import SandboxPolicy, SandboxSupport, open_sandbox

BWRAP = shutil.which("bwrap")


@pytest.mark.skipif(BWRAP is None, reason="bubblewrap is not installed (optional fallback)")
def test_bubblewrap_confines_like_landlock(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "out"
    workspace.mkdir()
    outside.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    support = SandboxSupport("Linux", "test", landlock_abi=0, user_namespaces=True, bwrap=BWRAP)
    with open_sandbox(SandboxPolicy(workspace=workspace, cache_dirs=()), support) as sandbox:
        assert sandbox.enforcement.mechanism == "bubblewrap"

        def run(command: str) -> subprocess.CompletedProcess[str]:
            cmd = sandbox.wrap(["sh", "-c", command], dict(os.environ))
            return subprocess.run(cmd.argv, env=cmd.env, cwd=workspace, capture_output=True, text=True, check=False)

        assert run("echo hi > a.txt").returncode == 0 and (workspace / "a.txt").exists()
        refused = run(f"echo x > {outside}/b.txt")
        assert refused.returncode != 0 and not (outside / "b.txt").exists()
        assert sandbox.explain(refused.returncode, refused.stderr) == (
            f"blocked by the sandbox: write to {outside}/b.txt outside the workspace")
        assert run("echo x > .git/hooks/pre-commit").returncode != 0
        assert run("mv .git g2").returncode != 0
        commit = run("git -c user.name=a -c user.email=a@example.invalid commit -q --allow-empty -m x")
        assert commit.returncode == 0, commit.stderr
