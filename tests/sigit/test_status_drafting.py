"""What the runtime decided about speculative decoding reaches the user: the turn's usage carries it, and
`/status` (and the TUI's Status tab) says it in one line, on a real local model."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.speed.draft_control import DraftController
from sigit.app import SessionHost
from sigit.commands import status_markdown
from sigit.events import TurnFinished
from sigit.frontends.tui.tabs import status_text
from sigit.frontends.usage import claude_usage
from sigit.options import HostOptions


def fast_machine(n: int) -> float:
    return 1 + 0.05 * (n - 1)


async def test_status_and_usage_say_what_the_draft_controller_chose(
    workdir: Path, tmp_path: Path, tiny_gguf: Path
) -> None:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=16384)
    runtime.draft_policy = DraftController(runtime.max_draft, cost_model=fast_machine)  # decides the same every run
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=runtime)
    session = await host.open(workdir)
    assert session.status().drafting() == "no drafts yet"
    finished = None
    async for event in session.prompt("Repeat exactly: alpha beta gamma delta alpha beta gamma delta alpha beta"):
        if isinstance(event, TurnFinished):
            finished = event
    assert finished is not None and finished.error is None, finished
    usage, status = finished.usage, session.status()
    assert usage.drafted_tokens > 0 and usage.draft_verify_cost == pytest.approx(
        fast_machine(1 + (usage.draft_length or runtime.max_draft)))
    assert (status.draft_length, status.draft_verify_cost, status.draft_acceptance, status.draft_backed_off) == (
        usage.draft_length, usage.draft_verify_cost, usage.draft_acceptance, usage.draft_backed_off)
    line = status.drafting()
    assert f"{status.draft_verify_cost:.2f} steps" in line and f"{status.draft_acceptance:.0%}" in line
    assert f"{usage.accepted_draft_tokens} of {usage.drafted_tokens} drafted tokens accepted this session" in line
    assert f"- Drafting: {line}" in status_markdown(status)
    assert "Drafting" in status_text(tmp_path / "config", status, "tiny").plain
    reported = claude_usage(usage)
    assert reported["draft_length"] == usage.draft_length and reported["draft_backed_off"] == usage.draft_backed_off
    await session.close()
    runtime.close()


async def test_status_says_drafting_is_off_on_a_runtime_that_does_not_draft(workdir: Path, tmp_path: Path) -> None:
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=ScriptedRuntime(["hello"]))
    session = await host.open(workdir)
    async for _ in session.prompt("hi"):
        pass
    status = session.status()
    assert status.drafting() == "off (the runtime does not draft)"
    drafting = dataclasses.replace(status, draft_length=8, draft_verify_cost=3.42, draft_acceptance=0.85,
                                   drafted_tokens=100, accepted_draft_tokens=80)
    assert drafting.drafting() == ("drafts of 8 tokens (verifying 1 + 8 costs 3.42 steps, 85% of drafted tokens "
                                   "right); 80 of 100 drafted tokens accepted this session")
    backed_off = dataclasses.replace(drafting, draft_length=0, draft_verify_cost=5.2, draft_acceptance=0.1,
                                     draft_backed_off=True)
    assert backed_off.drafting().startswith("backed off (not paying: 10% of drafted tokens right, a draft costs "
                                            "5.20 steps to verify; probes now and then)")
    await session.close()
