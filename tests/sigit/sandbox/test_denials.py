"""The sentence the model reads when the sandbox refused something, and silence otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sigit.sandbox import SandboxPolicy, explain_denial, find_denial


@pytest.fixture
def policy(tmp_path: Path) -> SandboxPolicy:
    workspace = tmp_path / "ws"
    (workspace / ".git/hooks").mkdir(parents=True)
    temp = tmp_path / "private-tmp"
    temp.mkdir()
    return SandboxPolicy(workspace=workspace, cache_dirs=(), temp_dir=temp)


@pytest.mark.parametrize("output", [
    "sh: 1: cannot create /etc/hosts: Permission denied",
    "bash: /etc/hosts: Permission denied",
    "touch: cannot touch '/etc/hosts': Permission denied",
    "touch: cannot touch ‘/etc/hosts’: Permission denied",
    "    Path('/etc/hosts').write_text('x')\nPermissionError: [Errno 13] Permission denied: '/etc/hosts'",
    "    with open('/etc/hosts', 'a') as f:\nPermissionError: [Errno 13] Permission denied: '/etc/hosts'",
    "    Path('/etc/hosts').open(mode='w')\nPermissionError: [Errno 13] Permission denied: '/etc/hosts'",
    "cp: cannot create regular file '/etc/hosts': Permission denied",
    "OSError: [Errno 30] Read-only file system: '/etc/hosts'",
])
def test_a_write_outside_the_workspace_is_named(policy: SandboxPolicy, output: str) -> None:
    assert explain_denial(1, "some output\n" + output + "\n", policy) == (
        "blocked by the sandbox: write to /etc/hosts outside the workspace")


def test_protected_git_paths_are_named_as_such(policy: SandboxPolicy) -> None:
    output = "sh: 1: cannot create .git/hooks/pre-commit: Read-only file system"
    denial = find_denial(1, output, policy)
    assert denial is not None and denial.kind == "write"
    assert denial.path == str(policy.workspace / ".git/hooks/pre-commit")
    assert "git hooks and git config stay read-only" in denial.sentence
    busy = "error: could not lock config file .git/config: Device or resource busy"
    assert "git config" in (explain_denial(255, busy, policy) or "")


def test_read_only_mode_says_the_sandbox_is_read_only(policy: SandboxPolicy) -> None:
    read_only = SandboxPolicy(workspace=policy.workspace, mode="read-only", temp_dir=policy.temp_dir)
    note = explain_denial(2, "sh: 1: cannot create out.txt: Permission denied", read_only)
    assert note == (f"blocked by the sandbox: write to {policy.workspace}/out.txt "
                    "(the sandbox is read-only; only the temp dir ($TMPDIR) is writable)")


@pytest.mark.parametrize("output", [
    "curl: (6) Could not resolve host: example.com",
    "urllib3.exceptions.NewConnectionError: Failed to establish a new connection: [Errno 101] Network is unreachable",
    "npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
    "ConnectionRefusedError: [Errno 111] Connection refused",
    "Traceback (most recent call last):\nPermissionError: [Errno 13] Permission denied",
])
def test_network_errors_are_explained_when_the_network_is_off(policy: SandboxPolicy, output: str) -> None:
    note = explain_denial(1, output, policy)
    assert note is not None and note.startswith("blocked by the sandbox: network access is off")
    allowed = SandboxPolicy(workspace=policy.workspace, network=True, temp_dir=policy.temp_dir)
    assert explain_denial(1, output, allowed) is None


@pytest.mark.parametrize(("code", "output"), [
    (0, "sh: 1: cannot create /etc/hosts: Permission denied"),  # it succeeded after all
    (1, "sh: 1: cannot create ./locked.txt: Permission denied"),  # inside the workspace: the file's own mode
    (1, "bash: /tmp/x/private-tmp/f: Permission denied"),
    (1, "error: test failed, 3 passed 1 failed"),
    (1, "kill: (1) - Operation not permitted"),
])
def test_other_failures_are_not_blamed_on_the_sandbox(policy: SandboxPolicy, code: int, output: str) -> None:
    temp_output = output.replace("/tmp/x/private-tmp", str(policy.temp_dir))
    assert explain_denial(code, temp_output, policy) is None


@pytest.mark.parametrize("output", [
    "cat: /root/.ssh/id_rsa: Permission denied",  # the sandbox never restricts reads
    "PermissionError: [Errno 13] Permission denied: '/etc/shadow'",  # no write shown
    "grep: /etc/sudoers: Permission denied",
    "cp: cannot open '/etc/shadow' for reading: Permission denied",
    "cat: /etc/touch.conf: Permission denied",
    "    data = open('/etc/shadow').read()\nPermissionError: [Errno 13] Permission denied: '/etc/shadow'",
])
def test_a_failed_read_is_not_blamed_on_the_sandbox(policy: SandboxPolicy, output: str) -> None:
    assert find_denial(1, output, policy) is None


def test_a_write_the_user_could_not_make_anyway_is_not_blamed_on_the_sandbox(
    policy: SandboxPolicy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    line = f"touch: cannot touch '{locked}/f': Permission denied"
    assert find_denial(1, line, policy) is not None  # writable to the user: the sandbox refused it
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode))
    assert find_denial(1, line, policy) is None  # the directory's own permissions refuse it too


def test_off_never_explains(policy: SandboxPolicy) -> None:
    off = SandboxPolicy(workspace=policy.workspace, mode="off")
    assert explain_denial(1, "bash: /etc/hosts: Permission denied", off) is None
