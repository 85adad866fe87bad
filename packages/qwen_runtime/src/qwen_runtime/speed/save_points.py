"""Where in a prompt a saved state will be worth the most: the parts the next prompts share.

An agent's prompts grow at the end, but not only there: Qwen's templates drop earlier turns'
thinking once a new user message comes, so what was generated is not what the next prompt renders.
Three prefixes survive: the system prompt with the tools (every session on this model starts with
it; only where there is a system prompt), the conversation up to the last user message (the next
turn starts with it) and the conversation without the generation prompt (the next round of this
turn starts with it). A fourth point only divides the evaluation: the conversation before the last
user message as that message found it, where a session's turn-end prefill (`prefill(next_turn=True)`)
stopped; the prompt is cut there with or without that prefill, so the reply does not depend on it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
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
    tokenized: dict[str, list[int]] = {}  # a turn's first round: "turn" and "round" are the same text
    for kind, part in prefixes:
        sub = dataclasses.replace(request, messages=part)  # type: ignore[arg-type]
        try:
            text = rt.next_turn_text(sub) if kind == "reply" else rt.prefix_text(sub)
            if text is None:
                continue
            rendered = tokenized.get(text)
            if rendered is None:
                rendered = tokenized[text] = rt.prompt_tokens(text)
        except Exception as exc:  # a template that cannot render a part costs a save point, not the request
            log.debug("no %s save point: %s", kind, exc)
            continue
        n = _common(rendered, tokens)
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


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


__all__ = ["SavePoint", "save_points"]
