"""`terminal_safe`: the one function that makes untrusted text safe for a terminal (issue 49, family 9)."""

from __future__ import annotations

import json

import pytest
from sigit.frontends.terminal_text import terminal_safe, terminal_safe_json


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain\ttext\nnext", "plain\ttext\nnext"),
        ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),  # OSC 52: a clipboard write
        ("\x1b[6n", "\\x1b[6n"),  # a query the terminal would answer on siGit's input
        ("\x1bP+q\x1b\\", "\\x1bP+q\\x1b\\"),  # DCS
        ("\x9b2J", "\\x9b2J"),  # C1 CSI
        ("\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m"),  # plain SGR colour stays
        ("\x1b[38:2::1:2:3m", "\\x1b[38:2::1:2:3m"),  # not plain
        ("a\r\nb\rc", "a\nb\\x0dc"),  # CRLF is a newline; a lone CR would redraw the line
        ("\u202eevil", "\\u202eevil"),  # bidi override
        ("del\x7f", "del\\x7f"),
    ],
)
def test_what_a_terminal_would_act_on_is_shown_as_an_escape(text: str, shown: str) -> None:
    assert terminal_safe(text) == shown


def test_a_screen_that_draws_itself_gets_no_escape_at_all() -> None:
    assert terminal_safe("\x1b[31mred\nx", keep_sgr=False, newlines=False) == "\\x1b[31mred\\nx"


def test_json_keeps_its_value_and_loses_raw_c1_controls() -> None:
    value = {"result": "a\x9b2J\u202eb\x7f"}
    text = terminal_safe_json(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value and not any(0x7f <= ord(c) <= 0x9f or c == "\u202e" for c in text)
