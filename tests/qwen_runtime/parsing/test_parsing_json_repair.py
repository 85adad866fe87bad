"""repair_json: fixes what a small model's intent makes unambiguous, and names everything else."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qwen_runtime.parsing import JsonRepairError, repair_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def test_valid_json_is_returned_unchanged_with_no_repairs() -> None:
    assert repair_json('{"a": [1, 2.5, "x"], "b": null}') == ({"a": [1, 2.5, "x"], "b": None}, [])


@pytest.mark.parametrize(
    ("text", "value", "repair"),
    [
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}, "removed trailing comma"),
        ("{'path': 'a.py', 'n': 'say \"hi\"'}", {"path": "a.py", "n": 'say "hi"'}, "single-quoted string"),
        ('{"content": "line 1\nline 2\tend"}', {"content": "line 1\nline 2\tend"}, "escaped raw control"),
        ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}, "Python literal True"),
        ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}, "added missing ']'"),
        ('{"a": 1,', {"a": 1}, "added missing '}'"),
        ('```json\n{"a": 1}\n```', {"a": 1}, "removed code fence"),
        ('```\n{"a": 1}\n```\n', {"a": 1}, "removed code fence"),
        ('{"pattern": "\\d+\\.py"}', {"pattern": "\\d+\\.py"}, "kept invalid escape"),
    ],
)
def test_unambiguous_damage_is_repaired_and_named(text: str, value: Any, repair: str) -> None:
    got, repairs = repair_json(text)
    assert got == value
    assert any(r.startswith(repair) for r in repairs), repairs


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1}}', "unexpected '}' after the JSON value at line 1 column 9"),
        ('{"a": 1 "b": 2}', "unexpected '\"', expected ',' or '}' at line 1 column 9"),
        ("{path: 'x'}", "expected a string key or '}' at line 1 column 2"),
        ("please read the file", "expected a value at line 1 column 1"),
        ('{"a": "unterminated', "unterminated string (the input ends inside it) at line 1 column 7"),
        ('{"a": 1,\n "b": }', "unexpected '}', expected a value at line 2 column 7"),
        ('{"a"', "expected ':' after key 'a' at line 1 column 5"),
        ("", "empty input"),
        ("[" * 500, "nesting deeper than"),
    ],
)
def test_ambiguous_damage_is_an_error_saying_what_and_where(text: str, message: str) -> None:
    with pytest.raises(JsonRepairError) as info:
        repair_json(text)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_unicode_escapes_and_surrogate_pairs_decode_in_repaired_text() -> None:
    assert repair_json("{'a': '\\u00e9\\ud83d\\ude00',}")[0] == {"a": "é😀"}


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_json_dumps_round_trips_unchanged(value: Any) -> None:
    assert repair_json(json.dumps(value)) == (value, [])
    assert repair_json(json.dumps(value, indent=2, ensure_ascii=False))[0] == value


def _single_quoted(text: str) -> str:
    escaped = json.dumps(text)[1:-1].replace('\\"', '"').replace("'", "\\'")
    return f"'{escaped}'"


def _damaged(value: Any) -> str:
    """`value` written the way a small model might: single quotes, trailing commas, Python literals."""
    if isinstance(value, dict):
        items = "".join(f"{_single_quoted(k)}: {_damaged(v)}, " for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + "".join(f"{_damaged(v)}," for v in value) + "]"
    if isinstance(value, str):
        return _single_quoted(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    return json.dumps(value)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(max_size=10), json_values, max_size=5))
def test_trailing_commas_single_quotes_and_python_literals_repair_to_the_right_value(
    value: dict[str, Any],
) -> None:
    assert repair_json(_damaged(value))[0] == value


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_parses_or_raises_json_repair_error(text: str) -> None:
    with contextlib.suppress(JsonRepairError):
        repair_json(text)
