"""Skills: found in every location, nearest first, and served by the `skill` tool."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sigit.extensions.skill_tool import make_skill_tool
from sigit.extensions.skills import discover_skills
from sigit.tools import ToolContext

if TYPE_CHECKING:
    from conftest import Layout  # the fixture's type; conftest is not importable at run time


def skill(root: Path, folder: str, name: str, description: str, body: str = "Do it well.\n") -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}")
    return path


def test_found_in_every_location(layout: Layout) -> None:
    skill(layout.cwd / ".sigit" / "skills", "a", "a", "from cwd .sigit")
    skill(layout.repo / ".claude" / "skills", "b", "b", "from repo .claude")
    skill(layout.config / "skills", "c", "c", "from user config")
    skill(layout.home / ".claude" / "skills", "d", "d", "from ~/.claude")
    found = discover_skills(layout.cwd, layout.config)
    assert {s.name: s.description for s in found.skills} == {
        "a": "from cwd .sigit", "b": "from repo .claude", "c": "from user config", "d": "from ~/.claude",
    }
    assert found.get("c") is not None and found.get("c").scope == "user"  # type: ignore[union-attr]
    assert found.warnings == []


def test_nearest_definition_wins(layout: Layout) -> None:
    skill(layout.home / ".claude" / "skills", "x", "x", "home")
    skill(layout.config / "skills", "x", "x", "user")
    skill(layout.repo / ".claude" / "skills", "x", "x", "repo claude")
    skill(layout.repo / ".sigit" / "skills", "x", "x", "repo sigit")
    assert discover_skills(layout.cwd, layout.config).get("x").description == "repo sigit"  # type: ignore[union-attr]
    skill(layout.cwd / ".claude" / "skills", "x", "x", "cwd claude")
    assert discover_skills(layout.cwd, layout.config).get("x").description == "cwd claude"  # type: ignore[union-attr]


def test_outside_the_repo_is_not_searched(layout: Layout) -> None:
    skill(layout.repo.parent / ".sigit" / "skills", "outer", "outer", "above the repo root")
    assert discover_skills(layout.cwd, layout.config).names() == []


def test_bad_skill_is_reported_and_the_rest_still_load(layout: Layout) -> None:
    root = layout.repo / ".sigit" / "skills"
    skill(root, "good", "good", "fine")
    bad = root / "bad" / "SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nname: bad\nno closing fence\n")
    found = discover_skills(layout.cwd, layout.config)
    assert found.names() == ["good"]
    assert len(found.warnings) == 1 and str(bad) in found.warnings[0] and "closing" in found.warnings[0]


def test_missing_name_uses_the_folder_and_missing_description_the_first_line(layout: Layout) -> None:
    layout.write(layout.repo / ".sigit" / "skills" / "pdf" / "SKILL.md", "# Fill PDF forms\nsteps...\n")
    found = discover_skills(layout.cwd, layout.config)
    assert found.get("pdf").description == "Fill PDF forms"  # type: ignore[union-attr]


async def test_skill_tool_lists_skills_and_returns_the_body_and_folder(layout: Layout) -> None:
    root = layout.repo / ".sigit" / "skills"
    path = skill(root, "release", "release", "Cut a release", "Run scripts/bump.sh first.\n")
    layout.write(path.parent / "scripts" / "bump.sh", "echo bump\n")
    tool = make_skill_tool(discover_skills(layout.cwd, layout.config))
    assert tool.read_only and "- release: Cut a release" in tool.description
    out = await tool.invoke({"name": "release"}, ToolContext(cwd=layout.cwd))
    assert not out.is_error
    assert "Run scripts/bump.sh first." in out.text
    assert str(path.parent) in out.text and "scripts/bump.sh" in out.text


async def test_skill_tool_unknown_name_lists_what_exists(layout: Layout) -> None:
    skill(layout.repo / ".sigit" / "skills", "release", "release", "Cut a release")
    tool = make_skill_tool(discover_skills(layout.cwd, layout.config))
    out = await tool.invoke({"name": "relase"}, ToolContext(cwd=layout.cwd))
    assert out.is_error and "Did you mean 'release'" in out.text and "Available skills: release" in out.text


def test_project_skills_and_folders_leading_outside_are_skipped(tmp_path: Path) -> None:
    """Issue 28 finding 9: a linked skill folder or SKILL.md outside the project is not loaded."""
    from sigit.extensions.skills import discover_skills

    outside = tmp_path / "outside"
    (outside / "s").mkdir(parents=True)
    (outside / "s" / "SKILL.md").write_text("---\nname: leak\ndescription: from outside\n---\nbody\n")
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    (work / ".claude" / "skills" / "own").mkdir(parents=True)
    (work / ".claude" / "skills" / "own" / "SKILL.md").symlink_to(outside / "s" / "SKILL.md")
    (work / ".sigit").mkdir()
    (work / ".sigit" / "skills").symlink_to(outside)
    found = discover_skills(work, tmp_path / "config", home=tmp_path / "home")
    assert found.skills == []
    assert sum("leads outside the project" in w for w in found.warnings) == 2
