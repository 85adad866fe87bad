"""Finding 7 of issue 28: an "always allow" grant for a program is for the program without the options
that run code, write files or load config; the grant shown names what it covers."""

from __future__ import annotations

from pathlib import Path

import pytest
from sigit.config.settings import PermissionSettings, Settings
from sigit.permissions import PermissionPolicy
from sigit.tools import default_registry
from sigit.tools.base import PreparedCall, ToolContext


def _call(cwd: Path, line: str) -> PreparedCall:
    tool = default_registry().get("run_command")
    assert tool is not None
    call = tool.prepare({"command": line}, ToolContext(cwd=cwd))
    assert isinstance(call, PreparedCall), call
    return call


def _granted(tmp_path: Path, first: str) -> PermissionPolicy:
    """A policy where the user answered "always" to `first`."""
    policy = PermissionPolicy(Settings(permissions=PermissionSettings(default="ask")), tmp_path, None, env={})
    policy.grant_session(_call(tmp_path, first))
    return policy


CASES = [
    ("sort data.txt", "sort*", ["sort --compress-program=./evil.sh big", "sort -o ~/.bashrc x",
                                "sort -ro out x", "sort --output=x y", "sort -ox y"]),
    ("rg foo", "rg*", ["rg --pre ./evil.sh foo", "rg --pre=./evil.sh foo"]),
    ("fd foo", "fd*", ["fd -x rm", "fd -X rm", "fd --exec rm", "fd -Hx rm"]),
    ("ag foo", "ag*", ["ag --pager ./evil.sh foo"]),
    ("tree src", "tree*", ["tree -o ~/.bashrc"]),
    ("uniq a", "uniq*", ["uniq a ~/.bashrc"]),
    ("git log --oneline", "git log*", ["git log --output=/home/x/.bashrc", "git log --ext-diff -p"]),
    ("git diff", "git diff*", ["git diff --output=x", "git diff --ext-diff"]),
    ("make test", "make test*", ["make test --eval='x:=$(shell touch P)'", "make test -f evil.mk",
                                 "make test SHELL=./evil.sh", "make test -C ../other"]),
    ("go test ./...", "go test*", ["go test -exec ./evil ./...", "go test -toolexec=./evil ./...",
                                   "go test --exec ./evil"]),
    ("cargo build", "cargo build*", ["cargo build --config 'build.rustc=\"./evil\"'"]),
    ("git fetch origin", "git fetch*", ["git fetch --upload-pack='touch P' origin"]),
]


@pytest.mark.parametrize(("first", "rule", "dangerous"), CASES, ids=[c[1] for c in CASES])
def test_a_grant_leaves_out_the_dangerous_options(tmp_path: Path, first: str, rule: str,
                                                   dangerous: list[str]) -> None:
    policy = _granted(tmp_path, first)
    assert policy.session_grants == [f"run_command({rule})"]
    assert policy.decide(_call(tmp_path, first)).kind == "allow"
    for line in dangerous:
        assert policy.decide(_call(tmp_path, line)).kind == "ask", line
    # a rule naming the option itself still allows it
    explicit = PermissionPolicy(Settings(permissions=PermissionSettings(default="ask", allow=[
        f"run_command({dangerous[0]})"])), tmp_path, None, env={})
    assert explicit.decide(_call(tmp_path, dangerous[0])).kind == "allow"


def test_harmless_options_are_still_covered(tmp_path: Path) -> None:
    policy = _granted(tmp_path, "sort data.txt")
    assert policy.decide(_call(tmp_path, "sort -rn -k2 data.txt")).kind == "allow"
    policy = _granted(tmp_path, "git log")
    assert policy.decide(_call(tmp_path, "git log --stat -p -n 3")).kind == "allow"


def test_the_question_names_what_always_would_cover(tmp_path: Path) -> None:
    policy = PermissionPolicy(Settings(permissions=PermissionSettings(default="ask")), tmp_path, None, env={})
    reason = policy.decide(_call(tmp_path, "sort data.txt")).reason
    assert "`sort` with any arguments except" in reason and "`--compress-program`" in reason and "`-o`" in reason
    reason = policy.decide(_call(tmp_path, "make test")).reason
    assert "`NAME=value` overrides" in reason and "`--eval`" in reason
    assert "exactly `python3 -c 'print(1)'`" in policy.decide(_call(tmp_path, "python3 -c 'print(1)'")).reason
