"""Issue 28 finding 6: file tools never write inside a `.git` directory (the top one, a nested repository's,
a submodule's) without asking, in accept-edits mode and under a tool-wide grant too."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_permission_policy import call, make_policy, path

TARGETS = [".git/config", ".git/hooks/pre-commit", "vendor/lib/.git/config", "sub/.git/hooks/post-checkout",
           ".git/modules/m/config", ".git/info/attributes"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("tool", ["edit_file", "create_file"])
def test_accept_edits_asks_before_writing_in_a_git_dir(tmp_path: Path, target: str, tool: str) -> None:
    policy = make_policy(tmp_path, mode="accept-edits")
    decision = policy.decide(call(policy, tool, path(target)))
    assert decision.kind == "ask" and "inside a git directory" in decision.reason
    assert policy.decide(call(policy, tool, path("src/app.py"))).kind == "allow"


@pytest.mark.parametrize("target", TARGETS[:3])
def test_a_tool_wide_grant_or_default_allow_does_not_cover_git_dirs(tmp_path: Path, target: str) -> None:
    for policy in (make_policy(tmp_path, allow=["edit_file"]), make_policy(tmp_path, default="allow"),
                   make_policy(tmp_path, allow=["edit_file(*)"])):
        assert policy.decide(call(policy, "edit_file", path(target))).kind == "ask"
    named = make_policy(tmp_path, allow=[f"edit_file({target})"])
    assert named.decide(call(named, "edit_file", path(target))).kind == "allow"
    bypass = make_policy(tmp_path, mode="bypass")
    assert bypass.decide(call(bypass, "edit_file", path(target))).kind == "allow"


def test_a_link_into_a_git_dir_is_judged_where_it_leads(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("")
    (tmp_path / "innocent.cfg").symlink_to(tmp_path / ".git" / "config")
    policy = make_policy(tmp_path, mode="accept-edits")
    assert policy.decide(call(policy, "edit_file", path("innocent.cfg"))).kind == "ask"
