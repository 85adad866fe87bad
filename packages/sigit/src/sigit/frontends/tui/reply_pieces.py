"""A streamed reply cut into pieces of Markdown: closed ones, drawn once, and a live tail of bounded size.

Why: re-parsing the whole reply, or only its last and growing block, on every chunk makes a long reply
slower to stream the longer it gets. A piece closes where a one-shot parse starts a new top-level block
(a line at the margin after a blank line, a fence or a heading), so the pieces drawn one after another
show what the whole reply drawn at once shows. A block longer than the bound (a long code fence, list or
paragraph) is cut at a line anyway; a fence cut so is closed, and reopened with its info string so the
next piece is highlighted as the same language. Such pieces are marked `continues`, so that the block
can be drawn whole once the reply is done.

No Textual here: this is text in, pieces out, and tested as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TAIL_CHARS = 800
"""A tail longer than this is cut at its next line (a list at its next item, up to twice this)."""
TAIL_LINES = 12
"""A tail of this many lines is cut at its next line (a list at its next item, up to twice this): each
line of a list is a few widgets, mounted again with every update of the tail."""
MAX_TAIL = 5 * TAIL_CHARS
"""The most Markdown a tail (or a closed piece) holds whatever the reply: up to twice `TAIL_CHARS` in a
list waiting for an item, the line taken before the cut and the unfinished one (each at most
`TAIL_CHARS`, longer ones are cut), and the fence line reopening a code block."""

_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)")
_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_HTML_BLOCKS = (  # CommonMark's HTML blocks that may hold blank lines: where they start, what ends them
    (re.compile(r"<(?:script|pre|style|textarea)(?:[\s>]|$)", re.IGNORECASE), ("</script>", "</pre>", "</style>",
                                                                                "</textarea>")),
    (re.compile(r"<!--"), ("-->",)),
    (re.compile(r"<\?"), ("?>",)),
    (re.compile(r"<!\[CDATA\["), ("]]>",)),
    (re.compile(r"<![A-Za-z]"), (">",)),
)


@dataclass
class Piece:
    """Consecutive text of the reply, and the Markdown that draws it."""

    source: str
    """The reply's own text: the pieces' sources joined are the reply."""
    opener: str = ""
    """A fence line put before `source`: the piece goes on with a code block cut in the piece before."""
    closer: str = ""
    """A fence line put after `source`: the code block goes on in the next piece."""
    continues: bool = False
    """Cut from the previous piece's block, not at a block boundary: drawn with it once the reply is done."""
    goes_on: bool = False
    """Its last block goes on in the next piece (which `continues`)."""

    @property
    def markdown(self) -> str:
        return self.opener + self.source + self.closer


@dataclass(frozen=True)
class _Fence:
    indent: str
    marker: str
    info: str

    def closed_by(self, line: str) -> bool:
        bare = line.strip()
        return len(bare) >= len(self.marker) and bare == self.marker[0] * len(bare)

    @property
    def opener(self) -> str:
        return f"{self.indent}{self.marker}{self.info}\n"

    @property
    def closer(self) -> str:
        return f"{self.indent}{self.marker}\n"


def _fence_opened_by(line: str, nested: bool) -> _Fence | None:
    found = _FENCE.fullmatch(line)
    if found is None or (found["marker"][0] == "`" and "`" in found["info"]):
        return None
    if len(found["indent"].expandtabs(4)) > 3 and not nested:  # an indented code block, not a fence
        return None
    return _Fence(found["indent"], found["marker"], found["info"])


def _html_end(line: str) -> tuple[str, ...] | None:
    for start, ends in _HTML_BLOCKS:
        if start.match(line):
            return None if any(end in line.lower() for end in ends) else ends
    return None


class ReplyPieces:
    """Text in as it streams (`feed`), closed pieces out; `tail` is what is not closed yet."""

    def __init__(self, tail_chars: int = TAIL_CHARS, tail_lines: int = TAIL_LINES) -> None:
        self.tail_chars = tail_chars
        self.tail_lines = tail_lines
        self._lines: list[str] = []
        """The tail's complete lines."""
        self._chars = 0
        self._partial = ""
        """The tail's last line, not ended yet."""
        self._opener = ""
        self._continues = False
        self._fence: _Fence | None = None
        self._html_ends: tuple[str, ...] | None = None
        self._in_list = False
        self._boundary = True
        """A line at the margin starts a new block: the reply's start, after a blank line, after a fence."""
        self._midline = False
        """The line going on began in the previous piece (a line longer than the bound was cut)."""

    @property
    def tail(self) -> Piece:
        """The live piece: drawn again as text arrives, never longer than `MAX_TAIL`."""
        return Piece("".join(self._lines) + self._partial, self._opener, continues=self._continues)

    def feed(self, text: str) -> list[Piece]:
        """The pieces `text` closes (often none)."""
        closed: list[Piece] = []
        buffer, start, self._partial = self._partial + text, 0, ""
        while True:
            end = buffer.find("\n", start)
            stop = len(buffer) if end < 0 else end + 1
            if stop - start > self.tail_chars:  # a line too long to wait for its end
                cut = self._inside_line(buffer, start)
                self._take(buffer[start:cut])
                closed.append(self._cut(continues=True))
                self._midline, start = True, cut
                continue
            if end < 0:
                break
            closed.extend(self._line(buffer[start:stop]))
            start = stop
        self._partial = buffer[start:]
        return closed

    def close(self) -> Piece:
        """The last piece, once the reply is done."""
        last = self.tail
        self._lines, self._chars, self._partial = [], 0, ""
        return last

    def _inside_line(self, buffer: str, start: int) -> int:
        """Where to cut a line longer than the bound: after its last space in the bound's second half."""
        limit = start + self.tail_chars
        space = buffer.rfind(" ", start + self.tail_chars // 2, limit)
        return space + 1 if space >= 0 and self._fence is None else limit

    def _line(self, line: str) -> list[Piece]:
        text = line.rstrip("\n").rstrip("\r")
        closed: list[Piece] = []
        if self._midline:  # the end of a line cut in two: it starts nothing
            self._midline = False
            self._take(line)
            return closed
        if self._fence is not None or self._html_ends is not None:
            if self._fence is not None and self._fence.closed_by(text):
                self._fence, self._boundary = None, True
            elif self._html_ends is not None and any(end in text.lower() for end in self._html_ends):
                self._html_ends = None
            elif self._over():
                closed.append(self._cut(continues=True))
            self._take(line)
            return closed
        if not text.strip():
            if self._over():
                closed.append(self._cut(continues=True))
            self._boundary = True
            self._take(line)
            return closed
        at_margin = text[0] not in " \t"
        fence = _fence_opened_by(text, nested=self._in_list)
        item = at_margin and _LIST_ITEM.match(text) is not None
        starts = at_margin and (self._boundary or fence is not None or _HEADING.match(text) is not None)
        if starts and self._lines and not (item and self._in_list):
            closed.append(self._cut(continues=False))
        elif self._over() and (not self._in_list or item or self._over(twice=True)):
            closed.append(self._cut(continues=True))
        if item:
            self._in_list = True
        elif starts:
            self._in_list = False
        if fence is not None:
            self._fence = fence
        elif at_margin:
            self._html_ends = _html_end(text)
        self._boundary = False
        self._take(line)
        return closed

    def _over(self, *, twice: bool = False) -> bool:
        """The tail is past the bound (or twice the bound: a list waits that long for an item to cut at)."""
        times = 2 if twice else 1
        return self._chars > times * self.tail_chars or len(self._lines) >= times * self.tail_lines

    def _take(self, text: str) -> None:
        self._lines.append(text)
        self._chars += len(text)

    def _cut(self, *, continues: bool) -> Piece:
        piece = Piece("".join(self._lines), self._opener, continues=self._continues)
        self._opener = ""
        piece.goes_on = continues
        if continues and self._fence is not None:
            piece.closer = ("" if piece.source.endswith("\n") else "\n") + self._fence.closer
            self._opener = self._fence.opener
        self._lines, self._chars, self._continues = [], 0, continues
        return piece
