"""Compaction: when the real token count nears the model's real context, summarize the history.

The history becomes its system messages, a `[Conversation summary]` user message written by the
model, and the last few messages (never starting on an orphaned tool result).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from onde import ChatEngine, ChatMessage, ChatRole, ContextOverflow

from ..events import Notice, UsageUpdated

SUMMARY_PROMPT = (
    "Summarize this conversation so far so that the work can continue from the summary alone. "
    "Include: the user's goal and requests; decisions made; files created, read or modified (with "
    "paths); commands run and their outcome; the current state; open items and next steps. Be "
    "factual and concise; use bullet points."
)
KEEP_LAST = 6


class Compactor:
    def __init__(self, threshold: float = 0.8, keep_last: int = KEEP_LAST) -> None:
        self.threshold = threshold
        self.keep_last = keep_last

    def needed(self, usage: UsageUpdated) -> bool:
        return usage.context_size > 0 and usage.context_fill >= self.threshold

    async def maybe_compact(self, engine: ChatEngine, usage: UsageUpdated) -> AsyncIterator[Notice]:
        if self.needed(usage):
            yield Notice(
                f"Context {usage.context_fill:.0%} full ({usage.prompt_tokens + usage.completion_tokens} of "
                f"{usage.context_size} tokens): compacting the conversation."
            )
            yield await self.compact(engine)

    def can_compact(self, engine: ChatEngine) -> bool:
        """Whether the history holds more than the messages compaction keeps (else it has nothing to do)."""
        return sum(m.role is not ChatRole.SYSTEM for m in engine.history()) > self.keep_last

    async def compact(self, engine: ChatEngine) -> Notice:
        history = engine.history()
        system = [m for m in history if m.role is ChatRole.SYSTEM]
        rest = [m for m in history if m.role is not ChatRole.SYSTEM]
        if len(rest) <= self.keep_last:
            return Notice("Nothing to compact yet.")
        tail_start = len(rest) - self.keep_last
        # never start the kept tail on tool results whose calls were summarized away
        while tail_start < len(rest) and rest[tail_start].role is ChatRole.TOOL:
            tail_start += 1
        kept = rest[tail_start:]
        summary = await self._summarize(engine, system, rest[:tail_start])
        engine.set_history([*system, ChatMessage.user(f"[Conversation summary]\n{summary}"), *kept])
        dropped = len(rest) - len(kept)
        return Notice(f"Compacted {dropped} messages into a summary; kept the last {len(kept)}.")

    async def _summarize(self, engine: ChatEngine, system: list[ChatMessage], older: list[ChatMessage]) -> str:
        """The model's summary of `older`. When even that does not fit the context (compaction after a
        `ContextOverflow`), the oldest half is left out, and the summary says so, until it fits."""
        left_out = 0
        while older:
            try:
                result = await engine.agenerate([*system, *older, ChatMessage.user(SUMMARY_PROMPT)])
            except ContextOverflow:
                cut = max(1, len(older) // 2)
                while cut < len(older) and older[cut].role is ChatRole.TOOL:  # no orphaned tool results
                    cut += 1
                left_out, older = left_out + cut, older[cut:]
                continue
            summary = result.text.strip() or "(the model returned no summary)"
            return f"({left_out} earlier messages did not fit and were left out.)\n{summary}" if left_out else summary
        return f"({left_out} earlier messages did not fit the context and were left out.)"


def too_long(overflow: ContextOverflow, *, compacted: bool) -> str:
    """Why a prompt cannot be sent: its size against the window, and what to do about it."""
    fix = ("give a shorter prompt, or load the model with a larger context window (--n-ctx N, or `n_ctx` "
           "in settings)")
    after = " after compacting the conversation" if compacted else ""
    if overflow.prompt_tokens is None or overflow.context_size is None:
        return f"the prompt does not fit the model's context window{after}: {fix}"
    return (f"the prompt is {overflow.prompt_tokens:,} tokens{after} (with the system prompt and tool "
            f"definitions); the context window is {overflow.context_size:,} tokens: {fix}")
