"""A streamed reply cut into pieces: the pieces are the reply, stay small, and draw what the whole draws."""

from __future__ import annotations

import random

import pytest
from markdown_it import MarkdownIt
from sigit.frontends.tui.reply_pieces import MAX_TAIL, TAIL_CHARS, Piece, ReplyPieces

PARSER = MarkdownIt("gfm-like")


def long_code(lines: int = 200) -> str:
    body = "".join(f"    value_{i} = compute({i}, 'padding text to make the line longer')\n" for i in range(lines))
    return f"Here is the module:\n\n```python\ndef main():\n{body}```\n"


def long_list(items: int = 200, ordered: bool = False) -> str:
    return "".join(f"{i + 1}. item {i} with a few words\n" if ordered else f"- item {i} with a few words\n"
                   for i in range(items))


def mixed_prose() -> str:
    parts = []
    for i in range(20):
        parts.append(f"## Part {i}\n\nA paragraph about part {i}, with *some* `code` and a [link](http://x/{i}).\n"
                     f"It goes on a second line.\n\n- a point\n- another point\n\n> a quote {i}\n\n"
                     f"```sh\necho {i}\n\nls\n```\nAfter the fence.\n\n| a | b |\n|---|---|\n| {i} | x |\n\n")
    return "".join(parts)


def streamed(text: str, seed: int = 0, most: int = 40) -> tuple[list[Piece], list[Piece]]:
    """Feed `text` in chunks of random size: (the pieces, in order; the tail after each chunk)."""
    chunks, rng, at = ReplyPieces(), random.Random(seed), 0
    pieces: list[Piece] = []
    tails: list[Piece] = []
    while at < len(text):
        size = rng.randint(1, most)
        pieces += chunks.feed(text[at:at + size])
        tails.append(chunks.tail)
        at += size
    pieces.append(chunks.close())
    return pieces, tails


def tokens(markdown: str) -> list[tuple[str, str, str, str]]:
    return [(t.type, t.tag, t.content, t.info) for t in PARSER.parse(markdown)]


@pytest.mark.parametrize("text", [long_code(), long_list(), long_list(ordered=True), mixed_prose(),
                                  "word " * 5000, "no newline at the end", "", "\n\n\n"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_pieces_are_the_reply_and_none_grows_with_it(text: str, seed: int) -> None:
    pieces, tails = streamed(text, seed)
    assert "".join(piece.source for piece in pieces) == text
    assert max(len(piece.markdown) for piece in pieces + tails) <= MAX_TAIL


def test_pieces_cut_between_blocks_draw_what_the_whole_draws() -> None:
    text = mixed_prose()
    pieces, _ = streamed(text)
    assert len(pieces) > 20 and not any(piece.continues or piece.opener or piece.closer for piece in pieces)
    assert [token for piece in pieces for token in tokens(piece.markdown)] == tokens(text)


def test_a_long_fence_is_cut_into_fences_of_the_same_language() -> None:
    text = long_code()
    pieces, _ = streamed(text)
    fences = [token for piece in pieces for token in PARSER.parse(piece.markdown) if token.type == "fence"]
    assert len(fences) > 10
    assert {fence.info for fence in fences} == {"python"}
    whole = next(token for token in PARSER.parse(text) if token.type == "fence")
    assert "".join(fence.content for fence in fences) == whole.content
    assert all(piece.continues for piece in pieces[2:])  # drawn whole once the reply is done


def test_a_long_list_is_cut_between_items_and_its_numbers_go_on() -> None:
    pieces, _ = streamed(long_list(ordered=True))
    assert len(pieces) > 5
    starts = [PARSER.parse(piece.markdown)[0] for piece in pieces]
    assert all(token.type == "ordered_list_open" for token in starts)
    numbers = [int(token.attrs.get("start", 1)) for token in starts]
    lengths = [sum(1 for t in PARSER.parse(piece.markdown) if t.type == "list_item_open") for piece in pieces]
    assert numbers == [1 + sum(lengths[:i]) for i in range(len(pieces))]  # each piece goes on counting


def test_a_line_longer_than_the_bound_is_cut_at_a_space() -> None:
    text = "word " * 2000
    pieces, _ = streamed(text, most=5000)
    assert len(pieces) > 5
    assert all(piece.source.endswith(" ") for piece in pieces[:-1])
    assert all(len(piece.source) <= TAIL_CHARS for piece in pieces)


def test_blank_lines_inside_a_fence_or_a_comment_cut_nothing() -> None:
    text = "```\na\n\nb\n```\n\n<!--\n\nhidden\n-->\n\nafter\n"
    pieces = ReplyPieces().feed(text)
    assert [piece.source for piece in pieces] == ["```\na\n\nb\n```\n\n", "<!--\n\nhidden\n-->\n\n"]
