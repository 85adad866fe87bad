"""The `task` tool: hands a self-contained question to a subagent and returns its answer.

The subagent is a fork of the parent's `ChatEngine` (the same model, its own history), so it never
sees the parent's conversation. It gets read-only tools only and a few rounds. Sharing one local
model is safe because the parent awaits the tool: the two never generate at the same time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from onde import ChatEngine, NoModelLoaded, SamplingConfig

from sigit.agent.loop import Agent, Approver
from sigit.config.settings import Settings
from sigit.events import AgentEvent, PermissionAsked, PermissionReply, TurnFinished
from sigit.extensions.agent_types import AgentType, AgentTypeSet, subagent_tools
from sigit.permissions import PermissionPolicy
from sigit.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolRegistry, truncate
from sigit.tools.task import TASK_NAME, TaskArgs, task_tool

SUBAGENT_MAX_ROUNDS = 8
# what models trained on other agents call the default type
GENERAL_NAMES = frozenset({"general", "general-purpose", "default", "explore", "explorer"})
ANSWER_LIMIT = 8000

DEFAULT_SUBAGENT_PROMPT = """\
You are a research subagent of a coding assistant. Another agent gave you one task; do it with \
your read-only tools (read, list and search files) and then answer.

- Explore efficiently: search first, then read only the parts that matter.
- You cannot change anything: no edits, no commands. Do not ask the user questions.
- Your final reply is all the other agent will see. Make it self-contained and concise: the \
findings, with file paths (and line numbers where useful), and say what you could not find."""

EngineProvider = Callable[[], ChatEngine]
SamplingProvider = Callable[[], SamplingConfig]
EventSink = Callable[[AgentEvent], None]


def default_subagent_sampling() -> SamplingConfig:
    return SamplingConfig.qwen3_thinking(max_tokens=4096, thinking_budget=2048)


def make_task_tool(
    engine_provider: EngineProvider,
    agent_types: AgentTypeSet | None,
    base_registry: ToolRegistry,
    *,
    sampling: SamplingProvider | None = None,
    policy: PermissionPolicy | None = None,
    on_event: EventSink | None = None,
    max_rounds: int = SUBAGENT_MAX_ROUNDS,
    answer_limit: int = ANSWER_LIMIT,
) -> Tool[TaskArgs]:
    """The `task` tool (declared in `sigit.tools.task`), running a subagent.

    `engine_provider` returns the parent's engine (the subagent is its `fork()`);
    `base_registry` is read when a task starts, so tools registered later count; `sampling`
    returns the sampling to use (default: Qwen 3 thinking, 4096 tokens); `policy` is the parent's
    (its deny rules then bind the subagent too); `on_event` sees the subagent's events (progress).
    """
    types = agent_types or AgentTypeSet()

    async def run(args: TaskArgs, ctx: ToolContext) -> ToolOutput:
        agent_type = _resolve_type(args.subagent_type, types)
        tools = _registry_for(agent_type, base_registry)
        try:
            engine = engine_provider().fork(
                _system_prompt(agent_type, ctx.cwd, tools, max_rounds),
                sampling=sampling() if sampling is not None else default_subagent_sampling(),
            )
        except NoModelLoaded:
            raise ToolError("task cannot run: no model is loaded.") from None
        sub_context = ToolContext(
            cwd=ctx.cwd, processes=ctx.processes, todos=[], attribution=ctx.attribution, fs=ctx.fs,
            command_timeout=ctx.command_timeout, host_named=ctx.host_named, sandbox=ctx.sandbox,
            repo_guard=ctx.repo_guard,
        )
        agent = Agent(
            engine=engine, tools=tools, context=sub_context,
            policy=policy if policy is not None else _read_only_policy(ctx.cwd),
            approver=_refuse_for(tools), max_rounds=max_rounds,
        )
        if not engine.info().tool_capable:
            agent.tools_enabled = False
        finished = await _drive(agent, args.prompt, ctx.cancel, on_event)
        return _output(finished, args.description.strip(), answer_limit)

    return task_tool(run, [(agent.name, agent.description) for agent in types.agent_types])


def _resolve_type(name: str | None, types: AgentTypeSet) -> AgentType | None:
    if name is None or not name.strip():
        return None
    found = types.get(name)
    if found is not None:
        return found
    if name.strip().lower() in GENERAL_NAMES:
        return None
    available = ", ".join(types.names()) if types else "none are defined"
    raise ToolError(
        f"Unknown subagent_type {name!r}. Available agent types: {available}. "
        "Leave subagent_type out for a general explorer."
    )


def _registry_for(agent_type: AgentType | None, base: ToolRegistry) -> ToolRegistry:
    allowed = subagent_tools(base)
    if agent_type is not None and agent_type.tools is not None:
        wanted = set(agent_type.tools)
        allowed = [tool for tool in allowed if tool.name in wanted]
    return ToolRegistry(allowed)


def _system_prompt(agent_type: AgentType | None, cwd: Path, tools: ToolRegistry, rounds: int) -> str:
    base = agent_type.system_prompt if agent_type is not None else DEFAULT_SUBAGENT_PROMPT
    names = ", ".join(tools.names()) or "none"
    return (
        f"{base}\n\nWorking directory: {cwd} (relative paths resolve there).\n"
        f"Your tools: {names}. You have at most {rounds} rounds of tool calls; "
        "then answer in text."
    )


def _refuse_for(tools: ToolRegistry) -> Approver:
    """Nobody is asked on a subagent's behalf: anything needing permission is refused, with why."""

    async def refuse(request: PermissionAsked) -> PermissionReply:
        names = ", ".join(tools.names()) or "none"
        return PermissionReply(
            False,
            reason=f"{request.name} is not available to a subagent, which may only use read-only tools "
            f"({names}). Report what should be changed in your answer instead.",
        )

    return refuse


def _read_only_policy(cwd: Path) -> PermissionPolicy:
    return PermissionPolicy(Settings(), cwd)


async def _drive(
    agent: Agent, prompt: str, parent_cancel: asyncio.Event | None, on_event: EventSink | None
) -> TurnFinished | None:
    """Run the subagent to its end, stopping it if the parent's turn is cancelled."""
    watcher: asyncio.Task[None] | None = None
    if parent_cancel is not None:
        if parent_cancel.is_set():
            return None

        async def watch() -> None:
            await parent_cancel.wait()
            agent.cancel()

        watcher = asyncio.ensure_future(watch())
    finished: TurnFinished | None = None
    try:
        async for event in agent.run(prompt):
            if on_event is not None:
                on_event(event)
            if isinstance(event, TurnFinished):
                finished = event
    finally:
        if watcher is not None:
            watcher.cancel()
    return finished


def _output(finished: TurnFinished | None, label: str, limit: int) -> ToolOutput:
    title = f"{TASK_NAME} {label}" if label else TASK_NAME
    if finished is None or finished.stop_reason == "cancelled":
        return ToolOutput("The subagent was cancelled before it answered.", True, title=title)
    text = finished.text.strip()
    if finished.stop_reason == "error":
        detail = f"The subagent failed: {finished.error or 'unknown error'}."
        if text:
            detail += f"\nIts partial answer:\n{_cap(text, limit - len(detail) - 20)}"
        return ToolOutput(detail, True, title=title)
    if not text:
        why = {
            "max_rounds": f"it used all {finished.rounds} rounds without answering",
            "max_tokens": "it ran out of tokens (probably while thinking)",
        }.get(finished.stop_reason, "its reply was empty")
        return ToolOutput(
            f"The subagent finished without an answer: {why}. Try a narrower task, or do it yourself.",
            True, title=title,
        )
    return ToolOutput(_cap(text, limit), title=title)


def _cap(text: str, limit: int) -> str:
    def note(_kept: int) -> str:
        return f"\n[answer truncated: {limit} of {len(text)} characters shown]"

    return truncate(text, limit, note, note_inside=True)
