"""The bubblewrap fallback (used only where Landlock is missing): the command line it builds.

bubblewrap is optional and CI does not install it (`.ci/run` only runs the README's commands), so
what is checked here is the confinement the fallback asks bubblewrap for; the Landlock path, which
this machine has, is checked on real processes in test_spawn.py.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from sigit.sandbox import SandboxPolicy, SandboxSupport, open_sandbox


def _pairs(argv: list[str], flag: str) -> set[str]:
    return {argv[i + 1] for i, word in enumerate(argv) if word == flag}


def test_without_landlock_the_command_runs_under_bubblewrap_with_the_same_confinement(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    support = SandboxSupport("Linux", "test", landlock_abi=0, user_namespaces=True, bwrap="/usr/bin/bwrap")
    with open_sandbox(SandboxPolicy(workspace=workspace, cache_dirs=()), support) as sandbox:
        assert sandbox.enforcement.mechanism == "bubblewrap"
        argv = sandbox.wrap(["sh", "-c", "make test"], dict(os.environ)).argv
    assert argv[:5] == ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev-bind"]  # everything else read-only
    assert argv[-4:] == ["--", "sh", "-c", "make test"]
    assert str(workspace.resolve()) in _pairs(argv, "--bind")  # the workspace is writable
    read_only = _pairs(argv, "--ro-bind")
    assert {str(workspace.resolve() / ".git" / "hooks"), str(workspace.resolve() / ".git" / "config")} <= read_only
    assert "--unshare-net" in argv  # network off by default
