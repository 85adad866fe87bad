"""Pilot helpers shared by the TUI tests: wait for the session, for a turn, for a screen."""

from __future__ import annotations

from sigit.frontends.tui.app import SigitApp
from sigit.frontends.tui.chat import NoticeLine
from textual.pilot import Pilot
from textual.screen import Screen

SIZE = (120, 40)


async def ready(app: SigitApp, pilot: Pilot[int]) -> None:
    for _ in range(300):
        if app.agent_session is not None:
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError("session never opened")


async def idle(app: SigitApp, pilot: Pilot[int]) -> None:
    for _ in range(500):
        await pilot.pause(0.01)
        if not app.turn_running:
            await pilot.pause()
            return
    raise AssertionError("turn never finished")


async def wait_screen(app: SigitApp, pilot: Pilot[int], kind: type[Screen[object]]) -> None:
    for _ in range(300):
        if isinstance(app.screen, kind):
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError(f"{kind.__name__} never showed")


async def send(app: SigitApp, pilot: Pilot[int], text: str) -> None:
    app.prompt_input.load_text(text)
    await pilot.press("enter")


def notices(app: SigitApp) -> str:
    return "\n".join(n.message for n in app.query(NoticeLine))
