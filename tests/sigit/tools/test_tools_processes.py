"""The bounded output buffer: head and tail kept, UTF-8 never split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from sigit.tools.processes import OutputBuffer


def test_short_output_is_kept_whole() -> None:
    buf = OutputBuffer(limit=100)
    buf.feed(b"hello ")
    buf.feed(b"world")
    assert buf.render() == "hello world"


def test_long_output_keeps_head_and_tail_with_a_note() -> None:
    buf = OutputBuffer(limit=20)
    for i in range(100):
        buf.feed(f"{i:03d}\n".encode())
    text = buf.render()
    assert text.startswith("000\n001\n")
    assert text.endswith("098\n099\n")
    assert "bytes of output omitted" in text


def test_take_returns_only_new_output() -> None:
    buf = OutputBuffer(limit=100)
    buf.feed(b"one")
    assert buf.take() == "one"
    buf.feed(b"two")
    assert buf.take() == "two"
    assert buf.take() == ""


@given(
    st.text(alphabet=st.sampled_from(["a", "é", "€", "😀", "\n"]), min_size=0, max_size=400),
    st.integers(min_value=4, max_value=64),
    st.integers(min_value=1, max_value=17),
)
def test_truncation_never_splits_a_utf8_character(text: str, limit: int, chunk: int) -> None:
    data = text.encode()
    buf = OutputBuffer(limit=limit)
    for i in range(0, len(data), chunk):
        buf.feed(data[i : i + chunk])
    out = buf.render()
    assert "\ufffd" not in out
    if len(data) <= limit:
        assert out == text
    else:
        head, _, tail = out.partition("\n\n... [")
        tail = tail.split("] ...\n\n", 1)[1]
        assert text.startswith(head) and text.endswith(tail)
        assert len(head.encode()) + len(tail.encode()) <= limit
