"""The one way a frontend walks the agent's event stream: a `handle_<event>` method per event type.

Each frontend (TUI, ACP, headless, Claude CLI) subclasses `EventAdapter` and overrides only the events
it shows; `handle(event)` is the one dispatch. What an unhandled event returns is the adapter's
`unhandled`: nothing for a printer, an empty list of updates for ACP, an awaitable for the TUI.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_args

if TYPE_CHECKING:  # loaded on the first event: the TUI imports its adapter before any model (or onde) loads
    from ..events import (
        AgentEvent,
        Notice,
        PermissionAnswered,
        PermissionAsked,
        ReasoningDelta,
        TextDelta,
        TodosUpdated,
        ToolCallRequested,
        ToolFinished,
        ToolStarted,
        TurnFinished,
        TurnStarted,
        UsageUpdated,
    )

R = TypeVar("R")


@cache
def _methods() -> dict[type[Any], str]:
    """Each event type's handler: `handle_` and the type's name in snake case."""
    from .. import events

    return {
        kind: "handle_" + "".join("_" + c.lower() if c.isupper() else c for c in kind.__name__).lstrip("_")
        for kind in get_args(events.AgentEvent)  # the stream's one list of event types
    }


class EventAdapter(ABC, Generic[R]):
    """Maps each agent event to its `handle_<event>` method; every method defaults to `unhandled`."""

    def handle(self, event: AgentEvent) -> R:
        methods = _methods()
        method = methods.get(type(event))
        if method is None:  # a subclass of an event type (never in the stream, but cheap to allow)
            method = next((name for kind, name in methods.items() if isinstance(event, kind)), None)
        if method is None:
            return self.unhandled(event)
        result: R = getattr(self, method)(event)
        return result

    @abstractmethod
    def unhandled(self, event: AgentEvent) -> R:
        """What an event this adapter does not show gives (None, [], a no-op awaitable...)."""

    def handle_turn_started(self, event: TurnStarted) -> R:
        return self.unhandled(event)

    def handle_reasoning_delta(self, event: ReasoningDelta) -> R:
        return self.unhandled(event)

    def handle_text_delta(self, event: TextDelta) -> R:
        return self.unhandled(event)

    def handle_tool_call_requested(self, event: ToolCallRequested) -> R:
        return self.unhandled(event)

    def handle_permission_asked(self, event: PermissionAsked) -> R:
        return self.unhandled(event)

    def handle_permission_answered(self, event: PermissionAnswered) -> R:
        return self.unhandled(event)

    def handle_tool_started(self, event: ToolStarted) -> R:
        return self.unhandled(event)

    def handle_tool_finished(self, event: ToolFinished) -> R:
        return self.unhandled(event)

    def handle_todos_updated(self, event: TodosUpdated) -> R:
        return self.unhandled(event)

    def handle_usage_updated(self, event: UsageUpdated) -> R:
        return self.unhandled(event)

    def handle_notice(self, event: Notice) -> R:
        return self.unhandled(event)

    def handle_turn_finished(self, event: TurnFinished) -> R:
        return self.unhandled(event)


class Printer(EventAdapter[None]):
    """An adapter that writes as events come (headless, the Claude CLI): unhandled events do nothing."""

    def unhandled(self, event: AgentEvent) -> None:
        return None


class AsyncAdapter(EventAdapter[Awaitable[None]]):
    """An adapter whose handlers await (the TUI mounts widgets): `await adapter.handle(event)`."""

    async def unhandled(self, event: AgentEvent) -> None:
        return None
