from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sigit.permissions.rules import (
    RuleSyntaxError,
    deny_parts,
    normalize_pattern,
    parse_rule,
    path_candidates,
    pattern_matches,
)
from sigit.tools.files import READ_FILE
from sigit.tools.shell import RUN_COMMAND


def test_plain_and_patterned_rules() -> None:
    assert parse_rule("edit_file").pattern is None
    rule = parse_rule(" run_command(git log*) ")
    assert (rule.tool, rule.pattern, rule.text) == ("run_command", "git log*", "run_command(git log*)")


def test_claude_code_names_match_the_tool_that_declares_them() -> None:
    rule = parse_rule("Bash(git log:*)")
    assert rule.tool == "Bash"
    assert rule.matches_tool(RUN_COMMAND.name, RUN_COMMAND.aliases)
    assert not rule.matches_tool(READ_FILE.name, READ_FILE.aliases)
    assert rule.matches_subject("git log --oneline")
    assert rule.matches_subject("git log")
    assert not rule.matches_subject("git logx")


@pytest.mark.parametrize("text", ["", "run_command(", "run command", "edit_file()", "a(b)c"])
def test_malformed_rules_are_rejected_with_an_example(text: str) -> None:
    with pytest.raises(RuleSyntaxError, match="invalid permission rule"):
        parse_rule(text)


@given(st.text())
def test_parse_rule_never_crashes_unexpectedly(text: str) -> None:
    try:
        rule = parse_rule(text)
    except RuleSyntaxError:
        return
    assert parse_rule(rule.text) == rule


@given(st.text(alphabet="abc -/", max_size=12), st.text(alphabet="abc -/", max_size=12))
def test_star_is_a_prefix_match(prefix: str, rest: str) -> None:
    assert pattern_matches(prefix + "*", prefix + rest)


def test_without_star_the_match_is_exact() -> None:
    assert pattern_matches("git status", "git status")
    assert not pattern_matches("git status", "git status --short")


def test_tool_wildcard_covers_mcp_servers() -> None:
    rule = parse_rule("mcp__github__*")
    assert rule.matches_tool("mcp__github__create_issue")
    assert not rule.matches_tool("mcp__gitlab__x")


def test_paths_are_normalized_relative_to_cwd(tmp_path: Path) -> None:
    assert path_candidates("./src/../src/a.py", tmp_path) == ("src/a.py", "src/a.py")
    assert path_candidates(str(tmp_path / "b.txt"), tmp_path) == ("b.txt", "b.txt")
    outside = (tmp_path.parent / "x").resolve().as_posix()
    assert path_candidates("../x", tmp_path)[1] == outside


def test_symlinked_path_resolves_to_its_target(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "secrets")
    assert path_candidates("link/key", tmp_path) == ("link/key", "secrets/key")


def test_patterns_are_normalized_like_paths(tmp_path: Path) -> None:
    assert normalize_pattern("./src/*", tmp_path) == "src/*"
    assert normalize_pattern(str(tmp_path) + "/docs/*", tmp_path) == "docs/*"
    assert normalize_pattern("*", tmp_path) == "*"
    assert normalize_pattern("./*", tmp_path) == "*"


def test_deny_parts_see_through_wrappers_and_substitutions() -> None:
    assert "rm -rf x" in deny_parts("sudo FOO=1 rm -rf x")
    assert "rm -rf /" in deny_parts("{ rm -rf /; }")
    assert "rm -rf /" in deny_parts("(cd a && rm -rf /)")
    assert "rm -rf y" in deny_parts("echo $(sudo rm -rf y)")
