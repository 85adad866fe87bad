"""Which mechanism each kind of machine gets, and that every shortfall is said, never silent.

These take the machine's capabilities as data (no kernel involved): machines without Landlock or
user namespaces cannot be produced on a CI runner that has them.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from sigit.sandbox import SandboxPolicy, SandboxSupport, decide
from sigit.sandbox.linux import bwrap_argv
from sigit.sandbox.macos import seatbelt_argv, seatbelt_profile

LINUX = SandboxSupport("Linux", "6.18", landlock_abi=7, user_namespaces=True, pid_namespaces=True)


def policy(tmp_path: Path, **fields: object) -> SandboxPolicy:
    return SandboxPolicy(workspace=tmp_path, cache_dirs=(), temp_dir=tmp_path, **fields)  # type: ignore[arg-type]


def test_a_full_linux_machine_enforces_everything_quietly(tmp_path: Path) -> None:
    found = decide(policy(tmp_path), LINUX)
    assert (found.mechanism, found.filesystem, found.git_read_only, found.network) == ("landlock", True, True, True)
    assert found.warnings == () and found.processes


def test_without_a_pid_namespace_the_weaker_process_containment_is_named(tmp_path: Path) -> None:
    support = SandboxSupport("Linux", "6.18", landlock_abi=7, user_namespaces=True,
                             pid_namespaces_error="unshare (user namespaces): Operation not permitted")
    found = decide(policy(tmp_path), support)
    assert found.mechanism == "landlock" and found.git_read_only and not found.processes
    assert any("share siGit's PID namespace" in w and "Operation not permitted" in w and "can outlive it" in w
               for w in found.warnings), found.warnings


def test_without_user_namespaces_the_gaps_are_named(tmp_path: Path) -> None:
    support = SandboxSupport("Linux", "6.18", landlock_abi=7, user_namespaces_error="unshare: Operation not permitted")
    found = decide(policy(tmp_path), support)
    assert found.mechanism == "landlock" and found.network and not found.git_read_only
    assert any(".git/hooks and .git/config stay writable" in w and "Operation not permitted" in w
               for w in found.warnings)
    assert any("UDP and DNS still work" in w for w in found.warnings)
    old = SandboxSupport("Linux", "5.15", landlock_abi=1)
    assert any("the network stays on" in w for w in decide(policy(tmp_path), old).warnings)


def test_before_landlock_abi_3_truncation_is_named(tmp_path: Path) -> None:
    for abi in (1, 2):
        found = decide(policy(tmp_path), SandboxSupport("Linux", "6.1", landlock_abi=abi, user_namespaces=True))
        assert any(f"Landlock ABI {abi} cannot refuse truncation" in w and "empty any file" in w
                   for w in found.warnings), found.warnings
    assert not any("truncation" in w for w in decide(policy(tmp_path), LINUX).warnings)


def test_nothing_available_means_off_with_the_reason(tmp_path: Path) -> None:
    found = decide(policy(tmp_path), SandboxSupport("Linux", "5.4", landlock_abi=0))
    assert found.mechanism == "none"
    assert found.warnings == ("sandbox off: Landlock is not available (kernel 5.4), and bubblewrap is not installed",)
    fallback = decide(policy(tmp_path), SandboxSupport("Linux", "5.4", user_namespaces=True, bwrap="/usr/bin/bwrap"))
    assert fallback.mechanism == "bubblewrap" and fallback.warnings
    assert decide(policy(tmp_path, mode="off"), LINUX).warnings == ()


def test_bwrap_argv_binds_writable_roots_back_and_git_parts_read_only(tmp_path: Path) -> None:
    (tmp_path / ".git/hooks").mkdir(parents=True)
    (tmp_path / ".git/config").write_text("")
    argv = bwrap_argv(policy(tmp_path), "/usr/bin/bwrap", ["sh", "-c", "true"])
    text = " ".join(argv)
    assert text.startswith("/usr/bin/bwrap --ro-bind / / --dev-bind /dev /dev")
    assert f"--bind {tmp_path} {tmp_path}" in text and f"--ro-bind {tmp_path}/.git/hooks" in text
    assert "--unshare-net" in argv and argv[-4:] == ["--", "sh", "-c", "true"]


def test_seatbelt_profile_takes_paths_as_parameters(tmp_path: Path) -> None:
    workspace = tmp_path / 'odd "name") (allow'
    (workspace / ".git/hooks").mkdir(parents=True)
    profile, params = seatbelt_profile(policy(workspace))
    assert str(workspace) not in profile  # paths never become profile text
    assert str(workspace.resolve()) in params.values()
    assert "(deny file-write* (require-not (require-any" in profile
    assert '(deny network-outbound (remote ip))' in profile
    loop, _ = seatbelt_profile(policy(workspace, loopback=True))
    assert 'localhost:*' in loop
    assert "(deny network" not in seatbelt_profile(policy(workspace, network=True))[0]
    argv = seatbelt_argv(policy(workspace), ["sh", "-c", "true"])
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"] and argv[-3:] == ["sh", "-c", "true"]
    assert any(flag == "-D" and value.startswith("W_") for flag, value in itertools.pairwise(argv))
