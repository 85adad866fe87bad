"""Agent types for `task`: discovery and the read-only limit on their tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigit.extensions.agent_types import discover_agent_types

if TYPE_CHECKING:
    from conftest import Layout  # the fixture's type; conftest is not importable at run time


def test_found_in_every_location_nearest_first(layout: Layout) -> None:
    layout.write(layout.home / ".claude" / "agents" / "a.md", "---\nname: a\ndescription: home\n---\nA")
    layout.write(layout.config / "agents" / "b.md", "---\nname: b\ndescription: user\n---\nB")
    layout.write(layout.repo / ".claude" / "agents" / "c.md", "---\nname: c\n---\nC")
    layout.write(layout.cwd / ".sigit" / "agents" / "a.md", "---\nname: a\ndescription: near\n---\nnear A")
    found = discover_agent_types(layout.cwd, layout.config)
    assert found.names() == ["a", "b", "c"]
    assert found.get("a").description == "near" and found.get("a").system_prompt == "near A"  # type: ignore[union-attr]
    assert found.get("b").tools is None  # type: ignore[union-attr]


def test_tools_as_string_or_list_keep_only_read_only_ones(layout: Layout) -> None:
    agents = layout.repo / ".sigit" / "agents"
    layout.write(agents / "s.md", "---\nname: s\ntools: read_file, Grep, run_command, teleport\n---\nS")
    layout.write(agents / "l.md", "---\nname: l\ntools: [glob, edit_file, write_todos]\n---\nL")
    found = discover_agent_types(layout.cwd, layout.config)
    assert found.get("s").tools == ("read_file", "search_files")  # type: ignore[union-attr]
    assert found.get("l").tools == ("glob",)  # type: ignore[union-attr]
    text = "\n".join(found.warnings)
    assert "'run_command' dropped: subagents may only use read-only tools" in text
    assert "'teleport' dropped: no such tool" in text
    assert "'edit_file' dropped" in text and "'write_todos' dropped" in text
    assert all(w.startswith(str(agents)) for w in found.warnings)


def test_bad_tools_field_is_reported(layout: Layout) -> None:
    path = layout.write(layout.repo / ".sigit" / "agents" / "x.md", "---\nname: x\ntools: {a: 1}\n---\nX")
    found = discover_agent_types(layout.cwd, layout.config)
    assert found.names() == [] and found.warnings[0].startswith(str(path)) and "'tools'" in found.warnings[0]
