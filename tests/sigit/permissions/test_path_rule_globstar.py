"""Claude Code writes path rules as `Edit(src/**)`: a trailing `**` is the same prefix as `*`."""

from __future__ import annotations

from pathlib import Path

from .test_permission_policy import call, make_policy, path


def test_a_trailing_double_star_covers_everything_below(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["edit_file(src/**)"], deny=["edit_file(secrets/**)"], default="allow")
    assert policy.decide(call(policy, "edit_file", path("secrets/deep/key.pem"))).kind == "deny"
    assert policy.decide(call(policy, "edit_file", path("./secrets/key.pem"))).kind == "deny"
    asking = make_policy(tmp_path, allow=["edit_file(src/**)"])
    assert asking.decide(call(asking, "edit_file", path("src/app/main.py"))).kind == "allow"
    assert asking.decide(call(asking, "edit_file", path("srcx/main.py"))).kind == "ask"
