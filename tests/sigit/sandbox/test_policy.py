"""Building a policy from settings and flags; what each mode may write."""

from __future__ import annotations

from pathlib import Path

import pytest
from sigit.errors import UsageError
from sigit.sandbox import DEFAULT_CACHE_DIRS, SandboxPolicy


def test_defaults_are_workspace_write_with_the_network_off(tmp_path: Path) -> None:
    policy = SandboxPolicy.from_settings(None, workspace=tmp_path)
    assert policy.mode == "workspace-write" and not policy.network and not policy.loopback
    assert policy.cache_dirs == DEFAULT_CACHE_DIRS
    assert "~/.cache/uv" not in DEFAULT_CACHE_DIRS and "~/.cargo/registry" in DEFAULT_CACHE_DIRS
    assert policy.describe() == "workspace-write, network off"


def test_settings_and_the_flag(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws/build").mkdir()
    cache = tmp_path / "cache"
    cache.mkdir()
    section = {"mode": "read-only", "network": True, "writable_dirs": ["build"], "cache_dirs": [str(cache)]}
    policy = SandboxPolicy.from_settings(section, workspace=tmp_path / "ws", add_dirs=[extra],
                                         mode="workspace-write")
    assert policy.mode == "workspace-write" and policy.network
    assert policy.describe() == "workspace-write, network on"
    assert set(policy.writable_roots()) == {(tmp_path / p).resolve() for p in ("ws", "ws/build", "extra", "cache")}
    read_only = SandboxPolicy.from_settings(section, workspace=tmp_path / "ws")
    assert read_only.writable_roots() == ()  # only the temp dir, once the sandbox made one


@pytest.mark.parametrize(("section", "mode", "message"), [
    ({"mode": "strict"}, None, "sandbox mode must be one of read-only, workspace-write, off"),
    ({}, "yes", "not 'yes'"),
    ({"network": "no"}, None, "[sandbox] network must be true or false"),
    ({"cache_dirs": "~/.npm"}, None, "[sandbox] cache_dirs must be a list of paths"),
    ({"netwrok": False}, None, "unknown key(s) netwrok"),
])
def test_bad_settings_name_the_key(tmp_path: Path, section: dict[str, object], mode: str | None,
                                   message: str) -> None:
    with pytest.raises(UsageError) as caught:
        SandboxPolicy.from_settings(section, workspace=tmp_path, mode=mode)
    assert message in str(caught.value)


def test_masked_paths_never_hide_a_writable_root(tmp_path: Path) -> None:
    (tmp_path / "run/sock").mkdir(parents=True)
    (tmp_path / "ws").mkdir()
    policy = SandboxPolicy(workspace=tmp_path / "ws", cache_dirs=(),
                           masked=(str(tmp_path / "run"), str(tmp_path), str(tmp_path / "ws/sub"), "/no/such"))
    assert policy.masked_paths() == ((tmp_path / "run").resolve(),)
    assert "/run/user/{uid}" in SandboxPolicy(workspace=tmp_path).masked
