"""The `task` tool against the scripted model: a subagent that reads, answers, and stays read-only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from onde import ChatEngine
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.agent.events import ToolFinished, TurnFinished
from sigit.agent.subagent import ANSWER_LIMIT, DEFAULT_SUBAGENT_PROMPT, make_task_tool
from sigit.app import SessionHost
from sigit.extensions.agent_types import discover_agent_types
from sigit.options import HostOptions
from sigit.tools import ToolContext, default_registry

if TYPE_CHECKING:
    from conftest import Layout  # the fixture's type; conftest is not importable at run time


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def task_args(prompt: str = "What is the answer in notes.txt?", **extra: Any) -> dict[str, Any]:
    return {"description": "find the answer", "prompt": prompt, **extra}


def offered(runtime: ScriptedRuntime, index: int) -> set[str]:
    return {spec.name for spec in runtime.requests[index].tools}


async def test_subagent_reads_a_file_and_its_answer_is_the_result(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    runtime = ScriptedRuntime([call("read_file", path="notes.txt"), "notes.txt says the answer is 42."])
    tool = make_task_tool(lambda: ChatEngine(runtime), None, default_registry())
    out = await tool.invoke(task_args(), ToolContext(cwd=tmp_path))
    assert not out.is_error and out.text == "notes.txt says the answer is 42."
    first, second = runtime.requests
    assert first.messages[0].role == "system" and DEFAULT_SUBAGENT_PROMPT[:40] in first.messages[0].content
    assert str(tmp_path) in first.messages[0].content
    assert first.messages[-1].content == "What is the answer in notes.txt?"  # fresh history
    assert "the answer is 42" in second.messages[-1].content  # the file really was read
    runtime.assert_consumed()


async def test_subagent_has_only_read_only_tools_and_cannot_write(tmp_path: Path) -> None:
    runtime = ScriptedRuntime([call("create_file", path="x.txt", content="boom"), "I could not write."])
    tool = make_task_tool(lambda: ChatEngine(runtime), None, default_registry())
    out = await tool.invoke(task_args("write x.txt"), ToolContext(cwd=tmp_path))
    assert not (tmp_path / "x.txt").exists()
    names = offered(runtime, 0)
    assert names == {"read_file", "list_directory", "search_files", "glob", "read_website", "command_output"}
    refusal = runtime.requests[1].messages[-1].content
    assert "Unknown tool 'create_file'" in refusal and "Available tools: read_file" in refusal
    assert out.text == "I could not write."


async def test_agent_type_gives_prompt_and_tool_subset(layout: Layout) -> None:
    layout.write(
        layout.repo / ".sigit" / "agents" / "finder.md",
        "---\nname: finder\ndescription: Finds files\ntools: Glob, Bash\n---\nYou find files by name.\n",
    )
    types = discover_agent_types(layout.cwd, layout.config)
    runtime = ScriptedRuntime(["found nothing"])
    tool = make_task_tool(lambda: ChatEngine(runtime), types, default_registry())
    assert "- finder: Finds files" in tool.description
    out = await tool.invoke(task_args(subagent_type="finder"), ToolContext(cwd=layout.cwd))
    assert out.text == "found nothing"
    assert runtime.requests[0].messages[0].content.startswith("You find files by name.")
    assert offered(runtime, 0) == {"glob"}


async def test_unknown_type_is_a_clear_error(layout: Layout) -> None:
    layout.write(layout.repo / ".claude" / "agents" / "explorer.md", "---\nname: explorer\n---\nExplore.")
    layout.write(layout.repo / ".claude" / "agents" / "reviewer.md", "---\nname: reviewer\n---\nReview.")
    runtime = ScriptedRuntime([])
    types = discover_agent_types(layout.cwd, layout.config)
    tool = make_task_tool(lambda: ChatEngine(runtime), types, default_registry())
    out = await tool.invoke(task_args(subagent_type="planner"), ToolContext(cwd=layout.cwd))
    assert out.is_error
    assert "Unknown subagent_type 'planner'" in out.text and "explorer, reviewer" in out.text
    assert runtime.requests == []


async def test_long_answer_is_capped(tmp_path: Path) -> None:
    long_answer = "".join(f"line {i}: finding\n" for i in range(2000))[:20_000]  # varied, not a loop
    runtime = ScriptedRuntime([long_answer])
    out = await make_task_tool(lambda: ChatEngine(runtime), None, default_registry()).invoke(
        task_args(), ToolContext(cwd=tmp_path)
    )
    assert len(out.text) <= ANSWER_LIMIT and "truncated" in out.text and "20000" in out.text


async def test_empty_reply_and_model_failure_are_reported(tmp_path: Path) -> None:
    runtime = ScriptedRuntime([""])
    out = await make_task_tool(lambda: ChatEngine(runtime), None, default_registry()).invoke(
        task_args(), ToolContext(cwd=tmp_path)
    )
    assert out.is_error and "without an answer" in out.text
    broken = ScriptedRuntime([])  # the model errors on its first request
    out = await make_task_tool(lambda: ChatEngine(broken), None, default_registry()).invoke(
        task_args(), ToolContext(cwd=tmp_path)
    )
    assert out.is_error and out.text.startswith("The subagent failed:")
    out = await make_task_tool(ChatEngine, None, default_registry()).invoke(task_args(), ToolContext(cwd=tmp_path))
    assert out.is_error and "no model is loaded" in out.text


async def test_round_limit_forces_a_text_answer(tmp_path: Path) -> None:
    turns: list[Any] = [call("glob", pattern=f"*.{i}") for i in range(7)] + ["gave up looking"]
    runtime = ScriptedRuntime(turns)
    out = await make_task_tool(lambda: ChatEngine(runtime), None, default_registry()).invoke(
        task_args(), ToolContext(cwd=tmp_path)
    )
    assert out.text == "gave up looking" and len(runtime.requests) == 8
    assert runtime.requests[-1].tool_choice == "none"


async def test_parent_agent_uses_task_end_to_end(tmp_path: Path, monkeypatch: Any) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the answer is 42\n")
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "config"))
    runtime = ScriptedRuntime([
        call("task", description="read notes", prompt="Read notes.txt and report the answer."),
        call("read_file", path="notes.txt"),  # subagent
        "The answer is 42.",  # subagent's answer
        "My subagent says 42.",  # parent
    ])
    registry = default_registry()
    registry.register(make_task_tool(lambda: ChatEngine(runtime), None, registry))
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=runtime)
    session = await host.open(work, tools=registry)
    events = [event async for event in session.prompt("what is the answer?")]
    task_done = next(e for e in events if isinstance(e, ToolFinished) and e.name == "task")
    assert task_done.output == "The answer is 42." and not task_done.is_error
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "My subagent says 42."
    # the parent's history never saw the subagent's turns
    assert "Read notes.txt and report" not in " ".join(m.content for m in runtime.requests[3].messages[1:2])
    assert len(session.messages) == 4
    runtime.assert_consumed()


async def test_cancelling_the_parent_stops_the_subagent(tmp_path: Path) -> None:
    import asyncio
    import threading

    runtime = ScriptedRuntime(["word " * 400], chunk_size=4, chunk_delay=0.05)  # 25 s, were it not cancelled
    ctx = ToolContext(cwd=tmp_path, cancel=asyncio.Event())
    tool = make_task_tool(lambda: ChatEngine(runtime), None, default_registry())
    running = asyncio.ensure_future(tool.invoke(task_args(), ctx))
    await asyncio.sleep(0.1)
    ctx.cancel.set()  # type: ignore[union-attr]
    out = await asyncio.wait_for(running, 20)  # a guard against a hang, not a clock on the cancel
    assert out.is_error and "cancelled" in out.text
    # let the runtime's generation thread post its last event before the loop closes
    for _ in range(200):
        if not any(t.name == "scripted-generate" for t in threading.enumerate()):
            break
        await asyncio.sleep(0.01)
