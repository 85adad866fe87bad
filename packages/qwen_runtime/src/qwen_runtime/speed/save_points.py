"""Where in a prompt a saved state will be worth the most: the parts the next prompts share.

An agent's prompts grow at the end, but not only there: Qwen's templates drop earlier turns'
thinking once a new user message comes, so what was generated is not what the next prompt renders.
Three prefixes survive: the system prompt with the tools (every session on this model starts with
it; only where there is a system prompt), the conversation up to the last user message (the next
turn starts with it) and the conversation without the generation prompt (the next round of this
turn starts with it). A fourth point only divides the evaluation: the conversation before the last
user message as that message found it, where a session's turn-end prefill (`prefill(next_turn=True)`)
stopped; the prompt is cut there with or without that prefill, so the reply does not depend on it.

A point is found in the prompt's own tokens where their bytes spell the prefix's text exactly
(`TokenText`): tokenizing each prefix again cost a few milliseconds per thousand tokens, several times
a request. Where the bytes do not line up (a prefix the template renders differently inside the whole,
a tokenizer whose pieces do not spell its text), the prefix is tokenized and compared as before.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Literal, Protocol

from ..runtime import CancelToken
from ..types import ChatRequest, SystemMessage, UserMessage

log = logging.getLogger(__name__)

PointKind = Literal["stable", "reply", "turn", "round"]


class PromptModel(Protocol):
    """What finding and evaluating save points needs of an in-process model (`LocalRuntime` has it):
    the template's prefixes rendered, text tokenized, tokens evaluated."""

    def prefix_text(self, request: ChatRequest) -> str: ...

    def next_turn_text(self, request: ChatRequest) -> str | None: ...

    def prompt_tokens(self, prompt: str) -> list[int]: ...

    def piece(self, token: int) -> bytes: ...

    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool: ...


@dataclasses.dataclass(frozen=True)
class SavePoint:
    position: int
    """Tokens before the point."""
    kind: PointKind
    """stable: system prompt and tools; reply: before the last user message (a boundary, nothing kept);
    turn: up to the last user message; round: the whole conversation."""


def save_points(rt: PromptModel, request: ChatRequest, tokens: Sequence[int]) -> list[SavePoint]:
    """The save points inside `tokens` (the rendered `request`), shortest first, one per position."""
    messages = request.messages
    prefixes: list[tuple[PointKind, tuple[object, ...]]] = []
    system = tuple(messages[:1]) if messages and isinstance(messages[0], SystemMessage) else ()
    if system:
        prefixes.append(("stable", system))
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    if last_user > len(system):
        prefixes.append(("reply", tuple(messages[:last_user])))
    if last_user >= 0:
        prefixes.append(("turn", tuple(messages[: last_user + 1])))
    prefixes.append(("round", tuple(messages)))
    points: dict[int, PointKind] = {}
    spelled = TokenText.of(rt, tokens)
    tokenized: dict[str, list[int]] = {}  # a turn's first round: "turn" and "round" are the same text
    for kind, part in prefixes:
        sub = dataclasses.replace(request, messages=part)  # type: ignore[arg-type]
        try:
            text = rt.next_turn_text(sub) if kind == "reply" else rt.prefix_text(sub)
            if text is None:
                continue
            n = spelled.position(text) if spelled is not None else None
            if n is None:
                rendered = tokenized.get(text)
                if rendered is None:
                    rendered = tokenized[text] = rt.prompt_tokens(text)
                n = _common(rendered, tokens)
        except Exception as exc:  # a template that cannot render a part costs a save point, not the request
            log.debug("no %s save point: %s", kind, exc)
            continue
        if n > 0 and n not in points:
            points[n] = kind
    return [SavePoint(n, kind) for n, kind in sorted(points.items())]


def eval_at_save_points(
    rt: PromptModel, request: ChatRequest, tokens: Sequence[int], start: int, cancel: CancelToken | None,
    keep: Callable[[Sequence[int], PointKind], None],
) -> bool:
    """Evaluate `tokens[start:]` in pieces that end at the prompt's save points, calling `keep(prefix,
    kind)` after each. The pieces are the same whether or not anything is kept: a batch boundary changes
    the logits a little, and output must not depend on the cache. False when cancelled."""
    done = start
    for point in save_points(rt, request, tokens):
        if point.position <= done:
            continue
        if not rt.eval_tokens(tokens[done : point.position], cancel):
            return False
        done = point.position
        keep(tokens[:done], point.kind)
    return rt.eval_tokens(tokens[done:], cancel)


@dataclasses.dataclass(frozen=True)
class TokenText:
    """The bytes a prompt's tokens spell, and where each token ends in them: a prefix of the prompt's text
    is found at the token whose end is exactly where the prefix's bytes end."""

    spelled: bytes
    ends: dict[int, int]
    """Byte offset where a token ends -> the number of tokens up to there."""
    skip: int
    """Bytes of a leading token the text does not hold (a BOS the runtime adds to the rendered prompt)."""

    @classmethod
    def of(cls, rt: PromptModel, tokens: Sequence[int]) -> TokenText | None:
        """None where a token has no bytes of its own (an image's place) or its piece cannot be had."""
        if not tokens or min(tokens) < 0:
            return None
        try:
            pieces = [rt.piece(t) for t in tokens]
        except Exception as exc:  # a backend without pieces for every id: the prefixes are tokenized instead
            log.debug("prompt pieces unavailable: %s", exc)
            return None
        ends = {end: i + 1 for i, end in enumerate(accumulate(len(p) for p in pieces))}
        return cls(b"".join(pieces), ends, len(pieces[0]))

    def position(self, text: str) -> int | None:
        """The number of tokens that spell exactly `text` from the prompt's start (after a leading token the
        text lacks, where it lacks it); None where no token boundary ends there."""
        wanted = text.encode("utf-8")
        for offset in (0, self.skip):
            end = offset + len(wanted)
            if self.spelled.startswith(wanted, offset) and end in self.ends:
                return self.ends[end]
        return None


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


__all__ = ["SavePoint", "TokenText", "save_points"]
