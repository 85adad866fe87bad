"""Reads outside the working directory ask, and read_website asks per domain (issue 12, finding 4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sigit.config.settings import PermissionSettings, Settings, SettingsError, load_settings
from sigit.extensions.locations import search_roots
from sigit.permissions.policy import PermissionPolicy, readable_config_folders
from sigit.tools import ToolContext, default_registry
from sigit.tools.base import PreparedCall

REGISTRY = default_registry()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("x = 1\n")
    return work


def policy_for(cwd: Path, *, allow: list[str] | None = None, deny: list[str] | None = None,
               default: str = "ask", mode: str | None = None, extra: list[str] | None = None,
               add_dirs: tuple[str, ...] = (), config_dir: Path | None = None) -> PermissionPolicy:
    perms = PermissionSettings(default=default, allow=allow or [], deny=deny or [],  # type: ignore[arg-type]
                               additional_directories=extra or [])
    return PermissionPolicy(Settings(permissions=perms), cwd, mode, env={},  # type: ignore[arg-type]
                            config_dir=config_dir, add_dirs=add_dirs)


def call(policy: PermissionPolicy, name: str, **args: str) -> PreparedCall:
    tool = REGISTRY.get(name)
    assert tool is not None
    prepared = tool.prepare(dict(args), ToolContext(cwd=policy.cwd))
    assert isinstance(prepared, PreparedCall), prepared
    return prepared


def test_reading_a_key_outside_the_working_directory_asks(cwd: Path, home: Path) -> None:
    policy = policy_for(cwd)
    assert policy.decide(call(policy, "read_file", path="a.py")).kind == "allow"
    decision = policy.decide(call(policy, "read_file", path="~/.ssh/id_rsa"))
    assert decision.kind == "ask"
    assert "outside the working directory" in decision.reason
    assert f"--add-dir {home / '.ssh'}" in decision.reason
    for name, args in (("list_directory", {"path": str(home)}), ("search_files", {"pattern": "KEY", "path": "~"}),
                       ("glob", {"pattern": "*", "path": "../home"})):
        assert policy.decide(call(policy, name, **args)).kind == "ask", name


def test_symlinks_are_judged_by_where_they_lead(cwd: Path, home: Path, tmp_path: Path) -> None:
    (cwd / "innocent.txt").symlink_to(home / ".ssh" / "id_rsa")
    (tmp_path / "shortcut.py").symlink_to(cwd / "a.py")
    policy = policy_for(cwd)
    assert policy.decide(call(policy, "read_file", path="innocent.txt")).kind == "ask"
    assert policy.decide(call(policy, "read_file", path=str(tmp_path / "shortcut.py"))).kind == "allow"


def test_additional_directories_and_add_dir_widen_what_is_readable(cwd: Path, home: Path, tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "docs").mkdir()
    policy = policy_for(cwd, extra=["../lib"], add_dirs=(str(tmp_path / "docs"),))
    assert policy.decide(call(policy, "read_file", path="../lib/x.py")).kind == "allow"
    assert policy.decide(call(policy, "list_directory", path=str(tmp_path / "docs"))).kind == "allow"
    assert policy.decide(call(policy, "read_file", path="~/.ssh/id_rsa")).kind == "ask"
    home_wide = policy_for(cwd, extra=["~/.ssh"])
    assert home_wide.decide(call(home_wide, "read_file", path="~/.ssh/id_rsa")).kind == "allow"


def test_deny_rules_still_apply_first(cwd: Path, home: Path) -> None:
    policy = policy_for(cwd, deny=["read_file(~/.ssh/*)"], add_dirs=(str(home),))
    assert policy.decide(call(policy, "read_file", path="~/.ssh/id_rsa")).kind == "deny"


def test_siGits_own_folders_stay_readable(cwd: Path, home: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    policy = policy_for(cwd, config_dir=config)
    for readable in (config / "settings.toml", config / "skills" / "x" / "SKILL.md",
                     home / ".claude" / "commands" / "c.md", home / ".claude" / "agents" / "a.md"):
        assert policy.decide(call(policy, "read_file", path=str(readable))).kind == "allow", readable
    assert policy.decide(call(policy, "read_file", path=str(home / ".claude" / "settings.json"))).kind == "ask"
    assert policy.decide(call(policy, "read_file", path="~/.ssh/id_rsa")).kind == "ask"


def test_the_readable_folders_cover_every_extension_folder(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "pkg"
    (repo / ".git").mkdir(parents=True)
    config = tmp_path / "config"
    for kind in ("skills", "commands", "agents"):
        for folder in (repo / ".sigit" / kind, repo / ".claude" / kind, sub / ".sigit" / kind,
                       config / kind, home / ".claude" / kind):
            folder.mkdir(parents=True, exist_ok=True)
    readable = readable_config_folders(sub, config)
    roots = [r.path.resolve() for kind in ("skills", "commands", "agents") for r in search_roots(kind, sub, config)]
    assert len(roots) == 15
    for root in roots:
        assert any(root == folder or folder in root.parents for folder in readable), root


def test_only_a_rule_naming_the_path_allows_an_outside_read(cwd: Path, home: Path) -> None:
    for policy in (policy_for(cwd, allow=["read_file"]), policy_for(cwd, default="allow")):
        assert policy.decide(call(policy, "read_file", path="~/.ssh/id_rsa")).kind == "ask"
    named = policy_for(cwd, allow=[f"read_file({home}/.ssh/*)"])
    assert named.decide(call(named, "read_file", path="~/.ssh/id_rsa")).kind == "allow"
    assert policy_for(cwd, default="deny").decide(call(named, "read_file", path="~/.ssh/id_rsa")).kind == "deny"
    assert policy_for(cwd, mode="bypass").decide(call(named, "read_file", path="~/.ssh/id_rsa")).kind == "allow"
    plan = policy_for(cwd, mode="plan")
    assert plan.decide(call(plan, "read_file", path="~/.ssh/id_rsa")).kind == "ask"
    assert plan.decide(call(plan, "read_file", path="a.py")).kind == "allow"


def test_always_allow_for_an_outside_read_grants_that_file_or_directory(cwd: Path, home: Path) -> None:
    (home / ".ssh" / "known_hosts").write_text("")
    policy = policy_for(cwd)
    key = call(policy, "read_file", path="~/.ssh/id_rsa")
    assert policy.grant_session(key) == f"read_file({home}/.ssh/id_rsa)"
    assert policy.decide(key).kind == "allow"
    assert policy.decide(call(policy, "read_file", path="~/.ssh/known_hosts")).kind == "ask"
    listing = call(policy, "list_directory", path="~/.ssh")
    assert policy.grant_session(listing) == f"list_directory({home}/.ssh/*)"
    assert policy.decide(listing).kind == "allow"
    assert policy.decide(call(policy, "list_directory", path="~")).kind == "ask"
    assert policy.decide(call(policy, "read_file", path="~/.bashrc")).kind == "ask"


def test_read_website_asks_per_domain(cwd: Path) -> None:
    policy = policy_for(cwd)
    fetch = call(policy, "read_website", url="https://docs.python.org/3/")
    decision = policy.decide(fetch)
    assert decision.kind == "ask" and "docs.python.org" in decision.reason
    assert policy.suggested_rule(fetch) == "read_website(domain:docs.python.org)"
    policy.grant_session(fetch)
    assert policy.decide(call(policy, "read_website", url="http://DOCS.python.org/other")).kind == "allow"
    assert policy.decide(call(policy, "read_website", url="https://evil.example/?k=secret")).kind == "ask"
    assert not policy.names_host("docs.python.org")  # a prompt's grant never unlocks a private address


def test_domain_rules(cwd: Path) -> None:
    policy = policy_for(cwd, allow=["read_website(domain:example.com)", "WebFetch(domain:*.docs.rs)"],
                        deny=["read_website(domain:bad.example.com)"])
    def kind(url: str) -> str:
        return policy.decide(call(policy, "read_website", url=url)).kind
    assert kind("https://example.com/page") == "allow"
    assert kind("https://example.com.evil.net/") == "ask"
    assert kind("https://sub.example.com/") == "ask"
    assert kind("https://serde.docs.rs/") == "allow"
    assert kind("https://bad.example.com/") == "deny"
    assert policy.names_host("example.com") and not policy.names_host("serde.docs.rs")
    everything = policy_for(cwd, allow=["read_website"])
    assert everything.decide(call(everything, "read_website", url="https://any.where/")).kind == "allow"
    bypass = policy_for(cwd, mode="bypass")
    assert bypass.decide(call(bypass, "read_website", url="https://any.where/")).kind == "allow"
    plan = policy_for(cwd, mode="plan")
    assert plan.decide(call(plan, "read_website", url="https://any.where/")).kind == "ask"


def test_additional_directories_setting_is_read_from_toml(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text('[permissions]\nadditional_directories = ["~/notes", "../lib"]\n')
    work = tmp_path / "work"
    work.mkdir()
    assert load_settings(work, config).permissions.additional_directories == ["~/notes", "../lib"]
    (config / "settings.toml").write_text('[permissions]\nadditional_directories = "~/notes"\n')
    with pytest.raises(SettingsError, match="additional_directories"):
        load_settings(work, config)
