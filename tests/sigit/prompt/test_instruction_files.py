from pathlib import Path

import pytest
from sigit.prompt.instructions import (
    PER_FILE_LIMIT,
    TOTAL_LIMIT,
    find_instruction_files,
    load_instructions,
    render_instructions,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg" / "sub").mkdir(parents=True)
    return root


def test_order_is_global_then_root_down_to_cwd(repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "CLAUDE.md").write_text("global")
    (repo / "AGENTS.md").write_text("root")
    (repo / "pkg" / "CLAUDE.md").write_text("pkg")
    (repo / "pkg" / "sub" / "AGENTS.md").write_text("sub")
    (tmp_path / "AGENTS.md").write_text("above the repo: ignored")
    found = find_instruction_files(repo / "pkg" / "sub", config)
    assert [p.read_text() for p in found] == ["global", "root", "pkg", "sub"]


def test_agents_md_is_preferred_over_claude_md(repo: Path, tmp_path: Path) -> None:
    (repo / "AGENTS.md").write_text("agents")
    (repo / "CLAUDE.md").write_text("claude")
    assert [p.name for p in find_instruction_files(repo, tmp_path / "none")] == ["AGENTS.md"]


def test_outside_a_repo_only_cwd_is_searched(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "CLAUDE.md").write_text("here")
    assert find_instruction_files(cwd, tmp_path / "none") == [cwd / "CLAUDE.md"]


def test_big_file_is_truncated_with_a_note(repo: Path, tmp_path: Path) -> None:
    (repo / "AGENTS.md").write_text("é" * PER_FILE_LIMIT)  # 2 bytes each: cut mid-character
    loaded = load_instructions(repo, tmp_path / "none")
    [item] = loaded.files
    assert item.truncated
    assert item.text == "é" * (PER_FILE_LIMIT // 2)
    rendered = render_instructions(loaded, repo)
    assert "truncated" in rendered and f"{2 * PER_FILE_LIMIT:,} bytes" in rendered


def test_total_limit_drops_later_files_with_a_note(repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "AGENTS.md").write_text("g" * PER_FILE_LIMIT)
    (repo / "AGENTS.md").write_text("r" * PER_FILE_LIMIT)
    (repo / "pkg" / "AGENTS.md").write_text("p" * 10)
    (repo / "pkg" / "sub" / "AGENTS.md").write_text("s")
    loaded = load_instructions(repo / "pkg" / "sub", config)
    assert sum(len(f.text) for f in loaded.files) == TOTAL_LIMIT
    assert loaded.dropped == [repo / "pkg" / "AGENTS.md", repo / "pkg" / "sub" / "AGENTS.md"]
    rendered = render_instructions(loaded, repo / "pkg" / "sub")
    assert "Left out" in rendered and str(repo / "pkg" / "AGENTS.md") in rendered


def test_empty_files_and_no_files_render_nothing(repo: Path, tmp_path: Path) -> None:
    (repo / "AGENTS.md").write_text("  \n")
    assert render_instructions(load_instructions(repo, tmp_path / "none"), repo) == ""
