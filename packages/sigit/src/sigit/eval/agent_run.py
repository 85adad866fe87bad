"""One attempt's agent: the same `AgentSession` a user gets, prompted once in the task's copy, watched.

Nothing here is agent code: the session comes from `SessionHost.open` as `sigit -p` gets it, and
its event stream is read for what a report needs (rounds, calls, edits, tokens, decode speed). The
time limit cancels the turn the way Ctrl-C does, and waits a little for it to wind down.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..app import SessionHost
from ..events import (
    AgentEvent,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    UsageUpdated,
)
from .results import AgentFacts

UNPARSED_NOTICE = "Your tool call could not be used:"
"""How the agent's loop tells the model (and the stream) that a reply held calls it could not parse."""
REPEAT_NOTICE = "Repetition guard:"
CANCEL_GRACE_S = 15.0
"""How long a cancelled turn may take to end before the attempt stops waiting for it."""
EDIT_KINDS = ("edit", "delete")
COMPACTED_NOTICE = "Compacted "
"""How the compactor says it summarised a conversation that filled the context window."""
CONTEXT_WORDS = "context window"
"""In the error a turn ends with when its prompt no longer fits (`agent.compaction.too_long`)."""


@dataclass
class AgentStats:
    """What the event stream of one attempt said."""

    stop_reason: str | None = None
    turns: int = 0
    text: str = ""
    error: str | None = None
    timed_out: bool = False
    tool_calls: int = 0
    invalid_calls: int = 0
    unparsed_calls: int = 0
    repeated_calls: int = 0
    calls_run: int = 0
    loop_guard: bool = False
    edits_attempted: int = 0
    edits_landed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decode_tokens: int = 0
    decode_seconds: float = 0.0
    seconds: float = 0.0
    context_exhaustions: int = 0
    """Times the conversation filled the context window: each compaction, and a turn that ended on it."""
    temperature: float | None = None
    seed: int | None = None
    sandbox: str = ""
    _requested: dict[str, ToolCallRequested] = field(default_factory=dict)
    _started: set[str] = field(default_factory=set)
    _repeat_next: bool = False
    _first_token: float | None = None

    def handle(self, event: AgentEvent, now: float) -> None:
        if isinstance(event, TextDelta | ReasoningDelta):
            if self._first_token is None:
                self._first_token = now
        elif isinstance(event, UsageUpdated):
            if self._first_token is not None:  # a round that streamed: its decode time and tokens
                self.decode_seconds += now - self._first_token
                self.decode_tokens += event.completion_tokens
            self._first_token = None
            # the running totals: all a turn stopped at the time limit leaves (it may never finish)
            self.prompt_tokens = max(self.prompt_tokens, event.total_prompt_tokens)
            self.completion_tokens = max(self.completion_tokens, event.total_completion_tokens)
        elif isinstance(event, ToolCallRequested):
            self._requested[event.call_id] = event
            self.tool_calls += 1
            if event.kind in EDIT_KINDS:
                self.edits_attempted += 1
        elif isinstance(event, ToolStarted):
            self._started.add(event.call_id)
        elif isinstance(event, ToolFinished):
            self._finished(event)
        elif isinstance(event, Notice):
            if event.message.startswith(UNPARSED_NOTICE):
                self.unparsed_calls += max(1, sum(1 for line in event.message.splitlines() if line.startswith("- ")))
            elif event.message.startswith(REPEAT_NOTICE):
                self._repeat_next = True
            elif event.message.startswith(COMPACTED_NOTICE):
                self.context_exhaustions += 1
        elif isinstance(event, TurnFinished):
            self.stop_reason, self.turns, self.text = event.stop_reason, event.rounds, event.text
            self.prompt_tokens = max(self.prompt_tokens, event.usage.prompt_tokens)
            self.completion_tokens = max(self.completion_tokens, event.usage.completion_tokens)
            if event.stop_reason == "error":
                self.error = event.error or "the turn ended with an error"
                if CONTEXT_WORDS in self.error:
                    self.context_exhaustions += 1

    def _finished(self, event: ToolFinished) -> None:
        requested = self._requested.get(event.call_id)
        if requested is None:  # never judged: refused by the repetition guard, or not a valid call
            self.tool_calls += 1
            if self._repeat_next:
                self.repeated_calls += 1
                self.loop_guard = True
                self._repeat_next = False
            else:
                self.invalid_calls += 1
            return
        if event.call_id in self._started:
            self.calls_run += 1
            if requested.kind in EDIT_KINDS and not event.is_error:
                self.edits_landed += 1

    @property
    def decode_tokens_per_s(self) -> float | None:
        return self.decode_tokens / self.decode_seconds if self.decode_seconds > 0 and self.decode_tokens else None

    def facts(self) -> AgentFacts:
        return AgentFacts(
            self.stop_reason,
            self.timed_out,
            self.error,
            self.loop_guard,
            self.invalid_calls,
            self.unparsed_calls,
            self.calls_run,
        )


async def run_agent(
    host: SessionHost, cwd: Path, prompt: str, *, timeout_s: float, temperature: float | None, seed: int | None
) -> AgentStats:
    """Open a session in `cwd` on `host` (the task's repository is untrusted: its project files' hooks,
    MCP servers and model do not apply), send `prompt`, and read the turn to its end or the time limit.
    The model is loaded before the run starts, so whatever fails here is this attempt's crash."""
    stats = AgentStats()
    started = time.perf_counter()
    try:
        session = await host.open(cwd, trusted=False)
    except Exception as exc:
        stats.error = f"the session did not open: {type(exc).__name__}: {exc}"
        stats.seconds = time.perf_counter() - started
        return stats
    try:
        sampling = session.set_sampling(temperature=temperature, seed=seed)
        stats.temperature, stats.seed = sampling.temperature, sampling.seed
        stats.sandbox = session.sandbox.describe() if session.sandbox is not None else "off"

        async def consume() -> None:
            async for event in session.prompt(prompt):
                stats.handle(event, time.perf_counter())

        turn = asyncio.ensure_future(consume())
        try:
            await asyncio.wait_for(asyncio.shield(turn), timeout_s)
        except TimeoutError:
            stats.timed_out = True
            session.cancel()  # as Ctrl-C: the model and any running command stop, the turn ends
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(turn, CANCEL_GRACE_S)
    except Exception as exc:  # the agent itself broke: recorded, and the run goes on
        stats.error = f"{type(exc).__name__}: {exc}"
        session.cancel()
    finally:
        try:
            await asyncio.wait_for(session.close(), CANCEL_GRACE_S)
        except Exception as exc:
            stats.error = stats.error or f"closing the session failed: {type(exc).__name__}: {exc}"
    stats.seconds = time.perf_counter() - started
    return stats


def peak_rss_mb() -> float:
    """This process's high-water mark of resident memory, in MB (the model's, when it is loaded here)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
