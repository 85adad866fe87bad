"""search_files and glob: ripgrep underneath, .gitignore respected, hidden and binary files skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sigit.tools import ToolContext, ToolRegistry


@pytest.fixture
def tree(ctx: ToolContext) -> Path:
    root = ctx.cwd
    (root / "src").mkdir()
    (root / "src/app.py").write_text("def main():\n    return find_me()\n")
    (root / "src/util.ts").write_text("export const find_me = 1;\n")
    (root / "build").mkdir()
    (root / "build/out.py").write_text("find_me = 'generated'\n")
    (root / ".hidden").mkdir()
    (root / ".hidden/secret.py").write_text("find_me\n")
    (root / "blob.bin").write_bytes(b"find_me\x00\x01\x02")
    (root / ".gitignore").write_text("build/\n")
    return root


async def test_search_finds_lines_relative_to_cwd(
    registry: ToolRegistry, ctx: ToolContext, tree: Path
) -> None:
    out = await registry.invoke("search_files", {"pattern": r"find_me\(\)"}, ctx)
    assert out.text == "src/app.py:2:     return find_me()"


async def test_search_skips_gitignored_hidden_and_binary(
    registry: ToolRegistry, ctx: ToolContext, tree: Path
) -> None:
    out = await registry.invoke("search_files", {"pattern": "find_me"}, ctx)
    files = {line.split(":")[0] for line in out.text.splitlines()}
    assert files == {"src/app.py", "src/util.ts"}


async def test_search_with_path_and_file_glob(registry: ToolRegistry, ctx: ToolContext, tree: Path) -> None:
    out = await registry.invoke(
        "search_files", {"pattern": "find_me", "path": "src", "file_glob": "*.ts"}, ctx
    )
    assert out.text == "src/util.ts:1: export const find_me = 1;"
    none = await registry.invoke("search_files", {"pattern": "absent_word"}, ctx)
    assert not none.is_error and "No matches" in none.text


async def test_search_caps_results_and_says_so(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "many.txt").write_text("hit\n" * 30)
    out = await registry.invoke("search_files", {"pattern": "hit", "max_results": 5}, ctx)
    lines = out.text.splitlines()
    assert lines[:5] == [f"many.txt:{i}: hit" for i in range(1, 6)]
    assert "first 5 matches" in lines[5]


async def test_an_invalid_regex_reports_the_regex_error(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("x\n")
    out = await registry.invoke("search_files", {"pattern": "foo(bar"}, ctx)
    assert out.is_error and "regex parse error" in out.text and "unclosed group" in out.text


async def test_search_in_a_missing_path_is_an_error(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("search_files", {"pattern": "x", "path": "nowhere"}, ctx)
    assert out.is_error and "not found" in out.text


async def test_glob_newest_first_respecting_gitignore(
    registry: ToolRegistry, ctx: ToolContext, tree: Path
) -> None:
    os.utime(tree / "src/app.py", (1_000_000, 1_000_000))
    out = await registry.invoke("glob", {"pattern": "**/*.{py,ts}"}, ctx)
    assert out.text.splitlines() == ["src/util.ts", "src/app.py"]


async def test_glob_patterns(registry: ToolRegistry, ctx: ToolContext, tree: Path) -> None:
    (tree / "src/a1.py").write_text("")
    (tree / "src/a22.py").write_text("")
    assert (await registry.invoke("glob", {"pattern": "src/a?.py"}, ctx)).text == "src/a1.py"
    anywhere = await registry.invoke("glob", {"pattern": "*.ts"}, ctx)
    assert anywhere.text == "src/util.ts"
    top_only = await registry.invoke("glob", {"pattern": "src/*.ts"}, ctx)
    assert top_only.text == "src/util.ts"
    in_path = await registry.invoke("glob", {"pattern": "*.py", "path": "src"}, ctx)
    assert set(in_path.text.splitlines()) == {"src/app.py", "src/a1.py", "src/a22.py"}
    none = await registry.invoke("glob", {"pattern": "*.rs"}, ctx)
    assert not none.is_error and "No files match" in none.text
