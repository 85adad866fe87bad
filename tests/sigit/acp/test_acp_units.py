"""Fast checks of the pure pieces: the handshake JSON, line ranges, diff parsing."""

from __future__ import annotations

import acp
import pytest
from acp.schema import InitializeResponse
from hypothesis import given
from hypothesis import strategies as st
from sigit.frontends.acp.content import line_range
from sigit.frontends.acp.handshake import PROTOCOL_VERSION, fast_initialize, initialize_result
from sigit.frontends.acp.transport import check_message
from sigit.frontends.acp.updates import parse_unified_diff
from sigit.tools.files import unified_diff


def test_handshake_matches_the_sdk() -> None:
    assert PROTOCOL_VERSION == acp.PROTOCOL_VERSION
    result = initialize_result(5)
    validated = InitializeResponse.model_validate(result).model_dump(by_alias=True, exclude_none=True)
    assert validated["protocolVersion"] == PROTOCOL_VERSION
    assert validated["agentCapabilities"]["promptCapabilities"]["embeddedContext"] is True
    assert fast_initialize({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}) is None


@pytest.mark.parametrize(("fragment", "span"), [("L207:219", (207, 219)), ("L207-219", (207, 219)),
                                                 ("L5", (5, 5)), ("section-2", None)])
def test_line_ranges(fragment: str, span: tuple[int, int] | None) -> None:
    assert line_range(fragment) == span


def test_backwards_range_is_an_error() -> None:
    with pytest.raises(ValueError, match="L9:3"):
        line_range("L9:3")


def test_bad_lines_are_classified() -> None:
    assert check_message(b"{oops")[1]["error"]["code"] == -32700  # type: ignore[index]
    assert check_message(b'{"jsonrpc": "2.0", "id": true, "method": "x"}')[1]["error"]["code"] == -32600  # type: ignore[index]
    assert check_message(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')[0] is not None


lines = st.lists(st.text(alphabet="ab -+\\x", max_size=6), max_size=4)  # 3 context lines: whole file


@given(lines, lines)
def test_whole_file_diff_round_trips(before: list[str], after: list[str]) -> None:
    old = "".join(f"{line}\n" for line in before)
    new = "".join(f"{line}\n" for line in after)
    if old == new:
        return
    diff = unified_diff(old, new, "f.txt")
    (path, got_old, got_new), = parse_unified_diff(diff)
    assert path == "f.txt"
    assert got_new == new
    assert got_old == (None if old == "" else old)
