"""Fixtures for the sandbox tests: real processes under a real sandbox, in a tmp workspace.

Nothing here mocks the kernel. A machine without Landlock (ABI 4+) or user namespaces fails these
tests with the reason, rather than skipping them: CI runs on machines that have both.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sigit.sandbox import Sandbox, SandboxPolicy, SandboxSupport, detect_support, open_sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def support() -> SandboxSupport:
    found = detect_support()
    assert found.system == "Linux", f"the sandbox tests need Linux, this is {found.system}"
    assert found.landlock_abi >= 6, f"Landlock ABI 6+ needed, the kernel offers {found.landlock_abi}"
    assert found.user_namespaces, f"user namespaces needed: {found.user_namespaces_error}"
    return found


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace (also under /tmp): never writable from the sandbox."""
    path = tmp_path / "outside"
    path.mkdir()
    return path


@pytest.fixture
def make_sandbox(support: SandboxSupport, workspace: Path) -> Iterator[Callable[..., Sandbox]]:
    opened: list[Sandbox] = []

    def make(**fields: object) -> Sandbox:
        policy = SandboxPolicy(workspace=workspace, cache_dirs=(), **fields)  # type: ignore[arg-type]
        sandbox = open_sandbox(policy, support)
        opened.append(sandbox)
        return sandbox

    yield make
    for sandbox in opened:
        sandbox.close()


def _run_in(sandbox: Sandbox, command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`sh -c command` under the sandbox, as run_command would start it; stdout and stderr combined."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PYTEST"))}
    wrapped = sandbox.wrap(["sh", "-c", command], {**base, "PYTHON": sys.executable, **env})
    return subprocess.run(wrapped.argv, env=wrapped.env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60, check=False,
                          start_new_session=True)


@pytest.fixture
def run() -> Run:
    """run(sandbox, command, cwd, **env): `sh -c command` under `sandbox`; $PYTHON is this Python."""
    return _run_in
