"""Frontmatter: what a skill or command author writes, and how mistakes are reported."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sigit.extensions.frontmatter import (
    Document,
    ExtensionWarning,
    FrontmatterError,
    parse_frontmatter,
    read_document,
)


def test_splits_metadata_from_body() -> None:
    doc = parse_frontmatter("---\nname: x\ndescription: Does x\n---\n# Title\nbody\n")
    assert doc.metadata == {"name": "x", "description": "Does x"}
    assert doc.body == "# Title\nbody\n"


def test_no_frontmatter_is_all_body() -> None:
    assert parse_frontmatter("just text\n---\nmore") == Document({}, "just text\n---\nmore")


def test_crlf_and_bom_are_accepted() -> None:
    doc = parse_frontmatter("\ufeff---\r\nname: x\r\n---\r\nbody")
    assert doc.metadata == {"name": "x"} and doc.body == "body"


def test_claude_code_values_that_strict_yaml_rejects_still_read() -> None:
    doc = parse_frontmatter(
        "---\nname: reviewer\n"
        "description: Use this agent when asked. Examples: <example>Context: x</example>\n"
        "argument-hint: [pr-number] [priority]\n---\nbody"
    )
    assert doc.metadata["description"].startswith("Use this agent when asked. Examples: <example>Context")
    assert doc.metadata["argument-hint"] == "[pr-number] [priority]"


def test_unclosed_frontmatter_is_an_error() -> None:
    with pytest.raises(FrontmatterError, match="no closing '---'"):
        parse_frontmatter("---\nname: x\nbody without end\n")


def test_non_mapping_frontmatter_is_an_error() -> None:
    with pytest.raises(FrontmatterError, match="mapping"):
        parse_frontmatter("---\n- a\n- b\n---\nbody")


def test_bad_file_becomes_a_warning_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_text("---\nname: {unclosed\n  : : [\n---\nbody")
    result = read_document(path)
    assert isinstance(result, ExtensionWarning)
    assert result.path == path and str(path) in result and "invalid YAML" in result.message


def test_binary_file_becomes_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_bytes(b"\xff\xfe\x00garbage")
    result = read_document(path)
    assert isinstance(result, ExtensionWarning) and "UTF-8" in result.message


_keys = st.from_regex(r"[a-z][a-z_-]{0,10}", fullmatch=True)
_values = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)


@given(st.dictionaries(_keys, _values, max_size=4), st.text(max_size=200))
def test_round_trips_any_metadata_and_body(metadata: dict[str, str], body: str) -> None:
    import yaml

    head = yaml.safe_dump(metadata, allow_unicode=True) if metadata else ""
    doc = parse_frontmatter(f"---\n{head}---\n{body}")
    assert doc.metadata == metadata
    assert doc.body == body


@given(st.text(max_size=300))
def test_never_raises_anything_but_frontmatter_error(text: str) -> None:
    with contextlib.suppress(FrontmatterError):
        parse_frontmatter(text)
