"""Custom slash commands: names, precedence and argument substitution."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import given
from hypothesis import strategies as st
from sigit.extensions.commands import CustomCommand, discover_commands

if TYPE_CHECKING:
    from conftest import Layout  # the fixture's type; conftest is not importable at run time


def command(body: str) -> CustomCommand:
    return CustomCommand("c", "", "", Path("c.md"), body)


def test_found_everywhere_with_folders_as_prefixes(layout: Layout) -> None:
    layout.write(layout.cwd / ".sigit" / "commands" / "a.md", "A")
    layout.write(layout.repo / ".claude" / "commands" / "git" / "commit.md", "commit")
    layout.write(layout.repo / ".claude" / "commands" / "git" / "deep" / "x.md", "x")
    layout.write(layout.config / "commands" / "u.md", "U")
    layout.write(layout.home / ".claude" / "commands" / "h.md", "H")
    layout.write(layout.home / ".claude" / "commands" / "notes.txt", "not a command")
    found = discover_commands(layout.cwd, layout.config)
    assert found.names() == ["a", "git:commit", "git:deep:x", "h", "u"]
    assert found.get("/git:commit").body == "commit"  # type: ignore[union-attr]


def test_project_overrides_user(layout: Layout) -> None:
    layout.write(layout.home / ".claude" / "commands" / "review.md", "home")
    layout.write(layout.config / "commands" / "review.md", "user")
    layout.write(layout.repo / ".claude" / "commands" / "review.md", "project")
    found = discover_commands(layout.cwd, layout.config)
    review = found.get("review")
    assert review is not None and review.body == "project" and review.scope == "project"


def test_frontmatter_fields(layout: Layout) -> None:
    layout.write(
        layout.repo / ".sigit" / "commands" / "fix.md",
        "---\ndescription: Fix an issue\nargument-hint: [issue-number]\n---\nFix issue $1.\n",
    )
    fix = discover_commands(layout.cwd, layout.config).get("fix")
    assert fix is not None
    assert (fix.description, fix.argument_hint) == ("Fix an issue", "[issue-number]")
    assert fix.expand("123") == "Fix issue 123.\n"


def test_bad_command_is_reported_not_fatal(layout: Layout) -> None:
    layout.write(layout.repo / ".sigit" / "commands" / "ok.md", "fine")
    bad = layout.write(layout.repo / ".sigit" / "commands" / "bad.md", "---\ndescription: [1, 2]\n---\nx")
    found = discover_commands(layout.cwd, layout.config)
    assert found.names() == ["ok"]
    assert len(found.warnings) == 1 and found.warnings[0].startswith(str(bad))
    assert "'description' must be text" in found.warnings[0]


def test_arguments_whole_and_positional_with_quotes() -> None:
    cmd = command("All: $ARGUMENTS | first: $1 | second: $2 | third: [$3]")
    assert cmd.expand('fix "the login bug" now') == (
        'All: fix "the login bug" now | first: fix | second: the login bug | third: [now]'
    )
    assert cmd.expand("one") == "All: one | first: one | second:  | third: []"


def test_unbalanced_quote_falls_back_to_words() -> None:
    assert command("$1/$2").expand("don't panic") == "don't/panic"


def test_arguments_without_placeholders_are_appended() -> None:
    expanded = command("Review the diff.\n").expand("focus on auth")
    assert expanded == "Review the diff.\n\nARGUMENTS: focus on auth"
    assert command("Review the diff.\n").expand("") == "Review the diff.\n"


@given(st.text(max_size=80))
def test_arguments_are_inserted_verbatim_and_never_re_expanded(arguments: str) -> None:
    assert command("<$ARGUMENTS>").expand(arguments) == f"<{arguments.strip()}>"
