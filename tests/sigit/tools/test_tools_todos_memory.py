"""write_todos keeps the list on the session; remember writes notes into AGENTS.md / CLAUDE.md."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sigit.tools import ToolContext, ToolRegistry


async def test_write_todos_marks_and_keeps_the_list(registry: ToolRegistry, ctx: ToolContext) -> None:
    todos = [
        {"content": "read the code", "status": "completed"},
        {"content": "fix the bug", "status": "in_progress"},
        {"content": "run the tests"},
    ]
    out = await registry.invoke("write_todos", {"todos": todos}, ctx)
    assert out.text == "Todos (1/3 completed):\n[x] read the code\n[~] fix the bug\n[ ] run the tests"
    assert [(t.content, t.status) for t in ctx.todos] == [
        ("read the code", "completed"),
        ("fix the bug", "in_progress"),
        ("run the tests", "pending"),
    ]


async def test_write_todos_accepts_common_status_words(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("write_todos", {"todos": '[{"content": "a", "status": "done"}]'}, ctx)
    assert out.text.endswith("[x] a")
    bad = await registry.invoke("write_todos", {"todos": [{"content": "a", "status": "someday"}]}, ctx)
    assert bad.is_error and "`todos.0.status`" in bad.text


async def test_remember_creates_agents_md_at_the_repo_root(registry: ToolRegistry, ctx: ToolContext) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ctx.cwd, check=True)
    sub = ctx.cwd / "pkg"
    sub.mkdir()
    inner = ToolContext(cwd=sub)
    out = await registry.invoke("remember", {"note": "run tests with make test"}, inner)
    assert not out.is_error
    assert (ctx.cwd / "AGENTS.md").read_text() == "## Remembered notes\n\n- run tests with make test\n"
    assert out.diff is not None and "+- run tests with make test" in out.diff
    await registry.invoke("remember", {"note": "use  ruff\nfor lint"}, inner)
    assert (ctx.cwd / "AGENTS.md").read_text().endswith("- run tests with make test\n- use ruff for lint\n")


async def test_remember_uses_the_nearest_file_and_its_section(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    (ctx.cwd / ".git").mkdir()
    claude = ctx.cwd / "CLAUDE.md"
    claude.write_text("# Project\n\n## Remembered notes\n\n- old note\n\n## Style\n\nBe terse.\n")
    out = await registry.invoke("remember", {"note": "new note"}, ctx)
    assert out.locations == [claude]
    assert claude.read_text() == (
        "# Project\n\n## Remembered notes\n\n- old note\n- new note\n\n## Style\n\nBe terse.\n"
    )
    assert not (ctx.cwd / "AGENTS.md").exists()


async def test_remember_appends_a_section_when_missing(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / ".git").mkdir()
    agents: Path = ctx.cwd / "AGENTS.md"
    agents.write_bytes(b"# Rules\r\n\r\nBe nice.\r\n")
    await registry.invoke("remember", {"note": "x"}, ctx)
    assert agents.read_bytes() == b"# Rules\r\n\r\nBe nice.\r\n\r\n## Remembered notes\r\n\r\n- x\r\n"
