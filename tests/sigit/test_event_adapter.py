"""One adapter base for every frontend: a `handle_<event>` per event type, the rest no-ops."""

from __future__ import annotations

from typing import get_args

from sigit.events import AgentEvent, Notice, TextDelta, ToolStarted, TurnFinished, Usage
from sigit.frontends.adapter import AsyncAdapter, EventAdapter, Printer


class Recorder(Printer):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def handle_text_delta(self, event: TextDelta) -> None:
        self.seen.append(f"text {event.text}")

    def handle_turn_finished(self, event: TurnFinished) -> None:
        self.seen.append(f"finished {event.stop_reason} {event.usage.total_tokens}")


def test_each_event_type_has_its_own_handler_and_the_base_defaults_to_unhandled() -> None:
    for kind in get_args(AgentEvent):
        name = "handle_" + "".join("_" + c.lower() if c.isupper() else c for c in kind.__name__).lstrip("_")
        assert callable(getattr(EventAdapter, name, None)), name


def test_a_printer_handles_what_it_overrides_and_ignores_the_rest() -> None:
    recorder = Recorder()
    for event in (TextDelta("hi"), ToolStarted("c1", "read_file", "read_file a"), Notice("note"),
                  TurnFinished("end_turn", "hi", 1, usage=Usage(3, 4))):
        assert recorder.handle(event) is None
    assert recorder.seen == ["text hi", "finished end_turn 7"]


async def test_an_async_adapter_awaits_its_handlers_and_no_ops_the_rest() -> None:
    seen: list[str] = []

    class Screen(AsyncAdapter):
        async def handle_notice(self, event: Notice) -> None:
            seen.append(event.message)

    screen = Screen()
    await screen.handle(Notice("shown"))
    await screen.handle(TextDelta("ignored"))
    assert seen == ["shown"]
