"""The reply being streamed: a Markdown widget (code highlighted by the widget), drawn piece by piece.

The reply is cut into pieces (`reply_pieces`): a closed piece is parsed and mounted once, and only the
tail, of bounded size, is parsed and mounted again as text arrives, at most once a frame
(`FRAME_S`): chunks that arrive meanwhile wait for the next frame together. So the work per update does
not grow with the reply. A block cut in pieces because it was long is drawn again whole once the reply
is done, so the finished reply looks as a one-shot render of its text does.

A module of its own so that markdown-it and Textual's Markdown widgets load with the first reply,
not before the first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from textual.widgets import Markdown

from ..terminal_text import terminal_safe
from .reply_pieces import Piece, ReplyPieces

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widgets._markdown import MarkdownBlock

FRAME_S = 0.05
"""The tail is drawn at most once in this time, however many chunks arrive."""


class AssistantMessage(Markdown):
    """A reply, streamed into Markdown as it arrives: closed pieces drawn once, the tail redrawn."""

    def __init__(self) -> None:
        super().__init__(classes="assistant-message")
        self._pieces = ReplyPieces()
        self._drawn_text: list[str] = []
        self._pending: list[str] = []
        self._drawn: list[tuple[Piece, list[MarkdownBlock]]] = []
        """Closed pieces and the blocks that draw them, in order."""
        self._tail: list[MarkdownBlock] = []
        self._timer: Timer | None = None
        self._parser: MarkdownIt | None = None
        self.stopped = False

    @property
    def content_text(self) -> str:
        """The reply as received (less what `stop` dropped)."""
        return "".join(self._drawn_text) + "".join(self._pending)

    @property
    def source(self) -> str:
        """The Markdown drawn so far."""
        return "".join(self._drawn_text)

    @property
    def pieces(self) -> list[Piece]:
        """The closed pieces, in order (the tail is not one of them until the reply is done)."""
        return [piece for piece, _ in self._drawn]

    def add(self, fragment: str) -> None:
        """Take a chunk; it is drawn with the next frame."""
        if self.stopped or not fragment:
            return
        self._pending.append(fragment)
        if self._timer is None:
            self._timer = self.set_timer(FRAME_S, self._frame)

    def stop(self) -> None:
        """The turn was cancelled: nothing more is drawn, and chunks not drawn yet are dropped."""
        self.stopped = True
        self._pending.clear()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    async def finish(self) -> None:
        """The reply is done: draw what is left, then each block that was cut in pieces whole."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not self.stopped:
            await self._draw(final=True)
            await self._join_cut_blocks()

    def _frame(self) -> None:
        self._timer = None
        self.call_later(self._draw)

    async def _draw(self, final: bool = False) -> None:
        async with self.lock:
            if self.stopped:
                return
            text = "".join(self._pending)
            self._pending.clear()
            self._drawn_text.append(text)
            closed = self._pieces.feed(text)
            if final:
                closed.append(self._pieces.close())
            new: list[MarkdownBlock] = []
            for piece in closed:
                blocks = self._seamed(piece, self._parse(piece.markdown))
                self._drawn.append((piece, blocks))
                new.extend(blocks)
            tail = self._pieces.tail
            old_tail, self._tail = self._tail, [] if final else self._seamed(tail, self._parse(tail.markdown))
            if final:  # drawn whole: a frame still queued has nothing to add
                self.stopped = True
            with self.app.batch_update():
                if old_tail:
                    await self.remove_children(old_tail)
                if new or self._tail:
                    await self.mount_all([*new, *self._tail])

    @staticmethod
    def _seamed(piece: Piece, blocks: list[MarkdownBlock]) -> list[MarkdownBlock]:
        """`blocks`, marked where a block cut in pieces goes on, so the cut shows no gap while it streams."""
        if blocks and piece.continues:
            blocks[0].add_class("cut-above")
        if blocks and piece.goes_on:
            blocks[-1].add_class("cut-below")
        return blocks

    def _parse(self, markdown: str) -> list[MarkdownBlock]:
        """The blocks that draw one piece: every parse while the reply streams comes through here."""
        return self._blocks(markdown)

    def _blocks(self, markdown: str) -> list[MarkdownBlock]:
        if self._parser is None:
            self._parser = MarkdownIt("gfm-like")
        tokens = self._parser.parse(terminal_safe(markdown, keep_sgr=False))  # the model's escapes do nothing
        return list(self._parse_markdown(tokens))

    async def _join_cut_blocks(self) -> None:
        """Each run of pieces cut from one long block, drawn again as the one block it is."""
        runs: list[list[tuple[Piece, list[MarkdownBlock]]]] = []
        for drawn in self._drawn:
            if runs and drawn[0].continues:
                runs[-1].append(drawn)
            else:
                runs.append([drawn])
        joined: list[tuple[Piece, list[MarkdownBlock]]] = []
        last: MarkdownBlock | None = None
        async with self.lock:
            with self.app.batch_update():
                for run in runs:
                    if len(run) > 1:
                        piece = Piece("".join(piece.source for piece, _ in run))
                        old = [block for _, blocks in run for block in blocks]
                        blocks = self._blocks(piece.markdown)
                        if blocks and old:
                            await self.mount_all(blocks, before=old[0])
                        elif blocks:  # the pieces drew nothing (blank lines) and the whole does: not seen
                            await self.mount_all(blocks, after=last) if last else await self.mount_all(blocks, before=0)
                        if old:
                            await self.remove_children(old)
                        run = [(piece, blocks)]
                    joined.extend(run)
                    last = next((blocks[-1] for _, blocks in reversed(joined) if blocks), last)
        self._drawn = joined
