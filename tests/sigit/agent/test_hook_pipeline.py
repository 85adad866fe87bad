"""The session's one hook pipeline: settings hooks first, a frontend's after them, in order; the first
refusal stops the rest and names the hook that refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sigit.app import AgentSession, HookPipeline, PreparedCall
from sigit.events import AgentEvent, Notice, ToolFinished, TurnFinished, TurnStarted

BASH = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ran"}}]}


async def collect(session: AgentSession, prompt: str) -> list[AgentEvent]:
    return [event async for event in session.prompt(prompt)]


def project_hooks(workdir: Path, text: str) -> None:
    (workdir / ".sigit").mkdir(exist_ok=True)
    (workdir / ".sigit" / "settings.toml").write_text(text)


async def test_hooks_run_in_order_and_the_first_refusal_stops_the_rest() -> None:
    pipeline, heard = HookPipeline(), []

    async def first(prompt: str) -> str | None:
        heard.append(("first", prompt))
        return None

    async def refuses(prompt: str) -> str | None:
        heard.append(("refuses", prompt))
        return "not today"

    async def never(prompt: str) -> str | None:
        heard.append(("never", prompt))
        return None

    for hook, name in ((first, "a"), (refuses, "b"), (never, "c")):
        pipeline.on_prompt_submit(hook, name=name)
    refusal = await pipeline.prompt_submit("hi")
    assert refusal is not None and (refusal.reason, refusal.hook) == ("not today", "b")
    assert heard == [("first", "hi"), ("refuses", "hi")]
    assert pipeline.names("prompt_submit") == ["a", "b", "c"]
    assert pipeline.remove("b") == 1 and await pipeline.prompt_submit("again") is None
    assert not pipeline.has("pre_tool") and pipeline.has("prompt_submit")


async def test_a_frontend_hook_runs_after_the_settings_hook_on_every_point(open_session: Any, workdir: Path) -> None:
    project_hooks(
        workdir,
        """
[[hooks.pre_tool_use]]
command = "echo settings >> order.txt"
[[hooks.post_tool_use]]
command = "echo settings-post >> order.txt"
[[hooks.stop]]
command = "echo settings-stop >> order.txt"
""",
    )
    session, _ = await open_session([BASH, "done"], permission_mode="bypass", trust=True)
    log: list[str] = []

    async def pre(call_id: str, call: PreparedCall) -> str | None:
        log.append(f"pre {call.name} {call_id} after:{(workdir / 'order.txt').read_text().split()}")
        return None

    async def post(call_id: str, call: PreparedCall, output: str) -> None:
        log.append(f"post {call.name} after:{(workdir / 'order.txt').read_text().split()}")

    async def stop(finished: TurnFinished) -> None:
        log.append(f"stop {finished.text} after:{(workdir / 'order.txt').read_text().split()}")

    session.hooks.on_pre_tool(pre, name="frontend")
    session.hooks.on_post_tool(post, name="frontend")
    session.hooks.on_stop(stop, name="frontend")
    assert session.hooks.names("pre_tool") == ["pre_tool_use", "frontend"]
    events = await collect(session, "touch it")
    call_id = next(e for e in events if isinstance(e, ToolFinished)).call_id
    assert (workdir / "ran").exists()
    assert log == [
        f"pre run_command {call_id} after:['settings']",
        "post run_command after:['settings', 'settings-post']",
        "stop done after:['settings', 'settings-post', 'settings-stop']",
    ]


async def test_a_frontend_pre_tool_refusal_blocks_the_call_and_the_model_hears_why(
    open_session: Any, workdir: Path
) -> None:
    session, runtime = await open_session([BASH, "ok"], permission_mode="bypass")

    async def guard(call_id: str, call: PreparedCall) -> str | None:
        return "no commands on Fridays" if call.name == "run_command" else None

    session.hooks.on_pre_tool(guard, name="PreToolUse")
    events = await collect(session, "touch it")
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert finished.is_error and finished.output == "Not run: Blocked by a hook: no commands on Fridays"
    assert not (workdir / "ran").exists()
    assert "Blocked by a hook: no commands on Fridays" in runtime.requests[1].messages[-1].content


async def test_a_refused_prompt_names_the_hook_and_runs_no_model_and_no_stop_hook(
    open_session: Any, workdir: Path
) -> None:
    session, runtime = await open_session([])
    stopped: list[TurnFinished] = []

    async def refuse(prompt: str) -> str | None:
        return f"{prompt!r} is not allowed"

    async def stop(finished: TurnFinished) -> None:
        stopped.append(finished)

    session.hooks.on_prompt_submit(refuse, name="UserPromptSubmit")
    session.hooks.on_stop(stop)
    events = await collect(session, "hello")
    assert isinstance(events[0], TurnStarted)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert notices == ["Prompt blocked by a hook: 'hello' is not allowed"]
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "refusal"
    assert finished.error == "blocked by a UserPromptSubmit hook: 'hello' is not allowed"
    assert runtime.requests == [] and stopped == []
