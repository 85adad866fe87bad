"""The agent loop, whole: ask the model, run the tools it calls, send results back, until it answers.

Every frontend (headless, ACP, TUI) consumes `Agent.run(prompt)`'s event stream; none re-implements
any of this. Permission prompts are injected as an `Approver`.
"""

from __future__ import annotations

import asyncio
import difflib
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from onde import (
    ChatEngine,
    ChatMessage,
    Done,
    GuardNotice,
    InferenceError,
    StreamEvent,
    ToolAwareResult,
    ToolCallRequest,
    ToolResult,
    ToolSpec,
)

from ..checkpoints import CheckpointStore, paths_touched
from ..permissions import PermissionPolicy
from ..tools import ToolContext, ToolOutput, ToolRegistry
from .compaction import Compactor
from .events import (
    AgentEvent,
    Notice,
    PermissionAnswered,
    PermissionAsked,
    PermissionReply,
    ReasoningDelta,
    StopReason,
    TextDelta,
    TodosUpdated,
    ToolCallRequested,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)

MAX_ROUNDS = 24
REPEAT_LIMIT = 3  # the 3rd identical call in one prompt is not run


Approver = Callable[[PermissionAsked], Awaitable[PermissionReply]]


async def deny_all(request: PermissionAsked) -> PermissionReply:
    """The approver when nobody can be asked (headless): "ask" becomes a denial the model is told."""
    return PermissionReply(
        False,
        reason=f"{request.name} needs permission; allow it with --allow-tool {request.suggested_rule!r}",
    )


# A hook point for pre-tool checks (settings hooks plug in here): returns a refusal message or None.
PreToolHook = Callable[[str, dict[str, Any]], Awaitable[str | None]]
# Called after a tool ran (settings hooks: post_tool_use) with the tool's output text.
PostToolHook = Callable[[str, dict[str, Any], str], Awaitable[object]]


class Agent:
    """One session's agent: an engine with history, the tools, the permission policy."""

    def __init__(
        self,
        *,
        engine: ChatEngine,
        tools: ToolRegistry,
        context: ToolContext,
        policy: PermissionPolicy,
        approver: Approver = deny_all,
        session_id: str = "",
        checkpoints: CheckpointStore | None = None,
        compactor: Compactor | None = None,
        max_rounds: int = MAX_ROUNDS,
        pre_tool_hook: PreToolHook | None = None,
        post_tool_hook: PostToolHook | None = None,
    ) -> None:
        self.engine = engine
        self.tools = tools
        self.context = context
        self.policy = policy
        self.approver = approver
        self.session_id = session_id
        self.checkpoints = checkpoints or CheckpointStore()
        self.compactor = compactor
        self.max_rounds = max_rounds
        self.pre_tool_hook = pre_tool_hook
        self.post_tool_hook = post_tool_hook
        self.tools_enabled = True
        self._cancel = asyncio.Event()
        self.total_prompt_tokens = 0
        self.total_completion_tokens = 0
        self.last_usage: UsageUpdated | None = None

    # ------------------------------------------------------------------ control

    def cancel(self) -> None:
        """Stop the running turn: the model, any running tool, and pending permission prompts."""
        self._cancel.set()
        self.engine.cancel()
        if self.context.cancel is not None:
            self.context.cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def tool_specs(self) -> list[ToolSpec]:
        return self.tools.to_specs() if self.tools_enabled else []

    # ------------------------------------------------------------------ the loop

    async def run(self, prompt: str) -> AsyncIterator[AgentEvent]:
        self._cancel = asyncio.Event()
        self.context.cancel = asyncio.Event()
        self.checkpoints.begin_turn()
        yield TurnStarted(prompt, self.session_id)
        specs = self.tool_specs()
        seen: Counter[str] = Counter()
        force_text = False
        stream = self.engine.astream_message_with_tools(prompt, specs)
        rounds = 0
        text = ""
        try:
            while True:
                rounds += 1
                result: ToolAwareResult | None = None
                async for event in self._model_round(stream):
                    if isinstance(event, ToolAwareResult):
                        result = event
                    else:
                        yield event
                if self.cancelled or result is None:
                    yield self._finished("cancelled", text, rounds)
                    return
                yield self._usage(result)
                text = result.text
                if self.compactor is not None and self.last_usage is not None:
                    async for notice in self.compactor.maybe_compact(self.engine, self.last_usage):
                        yield notice
                if not result.tool_calls:
                    if result.tool_call_errors and rounds < self.max_rounds and not force_text:
                        # the model tried to call a tool but it could not be parsed: tell it, retry
                        stream = self.engine.astream_message_with_tools(
                            _format_call_errors(result), specs
                        )
                        yield Notice(_format_call_errors(result), "warning")
                        continue
                    if result.empty_reason:
                        yield Notice(f"The model returned an empty reply: {result.empty_reason}", "warning")
                    reason: StopReason = "max_tokens" if result.finish_reason == "length" else "end_turn"
                    yield self._finished(reason, text, rounds)
                    return
                if rounds >= self.max_rounds:
                    yield Notice(f"Stopped after {self.max_rounds} rounds of tool calls.", "warning")
                    self._answer_unrun(result.tool_calls, "not run: the round limit was reached")
                    yield self._finished("max_turns", text, rounds)
                    return
                results: list[ToolResult] = []
                for call in result.tool_calls:
                    if self.cancelled:
                        results.append(ToolResult(call.id, "Cancelled by the user.", call.name))
                        continue
                    key = f"{call.name}:{_canonical(call.arguments)}"
                    seen[key] += 1
                    if seen[key] >= REPEAT_LIMIT:
                        force_text = True
                        message = (
                            f"Not run: this exact {call.name} call was already made "
                            f"{seen[key] - 1} times in this turn with the same result. Do not repeat it; "
                            "answer the user in text with what you have."
                        )
                        yield Notice(f"Repetition guard: {call.name} called again with the "
                                     "same arguments; the model must now answer in text.", "warning")
                        yield ToolFinished(call.id, call.name, message, is_error=True)
                        results.append(ToolResult(call.id, message, call.name))
                        continue
                    output: ToolOutput | None = None
                    async for item in self._run_tool(call):
                        if isinstance(item, ToolOutput):
                            output = item
                        else:
                            yield item
                    assert output is not None
                    content = output.text
                    if result.tool_call_errors:
                        content += "\n\n" + _format_call_errors(result)
                    results.append(ToolResult(call.id, content, call.name))
                if self.cancelled:
                    self._push_results(results)
                    yield self._finished("cancelled", text, rounds)
                    return
                last_round = force_text or rounds >= self.max_rounds - 1
                stream = self.engine.astream_tool_results(results, None if last_round else specs)
        except InferenceError as exc:
            if self.cancelled:
                yield self._finished("cancelled", text, rounds)
            else:
                yield self._finished("error", text, rounds, error=str(exc))

    async def _model_round(
        self, stream: AsyncIterator[StreamEvent]
    ) -> AsyncIterator[AgentEvent | ToolAwareResult]:
        async for event in stream:
            if isinstance(event, ReasoningDelta | TextDelta):
                yield event
            elif isinstance(event, GuardNotice):
                yield Notice(event.message, "warning")
            elif isinstance(event, Done):
                if event.finish_reason == "cancelled":
                    self._cancel.set()
                yield event.result

    async def _run_tool(self, call: ToolCallRequest) -> AsyncIterator[AgentEvent | ToolOutput]:
        name = call.name
        try:
            args = call.parsed_arguments
        except ValueError as exc:
            output = ToolOutput(f"Invalid arguments for {name}: {exc}", is_error=True)
            yield ToolFinished(call.id, name, output.text, is_error=True)
            yield output
            return
        tool = self.tools.get(name)
        read_only = tool.read_only if tool is not None else False
        title = tool.title_for(args) if tool is not None else name
        yield ToolCallRequested(call.id, name, args, title, read_only)
        decision = self.policy.decide(name, read_only, args)
        allowed = decision.kind == "allow"
        if decision.kind == "ask":
            preview = await asyncio.to_thread(_preview, name, args, self.context.cwd)  # may read the file
            asked = PermissionAsked(
                call.id, name, args, title, decision.reason, self.policy.suggested_rule(name, args), preview
            )
            yield asked
            reply = await self._ask(asked)
            allowed = reply.allowed
            if allowed and reply.scope == "session":
                self.policy.grant_session(name, args)
            elif allowed and reply.scope == "project":
                try:  # writes .sigit/settings.toml: not on the event loop
                    await asyncio.to_thread(self.policy.grant_project, name, args)
                except (OSError, ValueError) as exc:  # a broken settings file must not end the turn
                    self.policy.grant_session(name, args)
                    yield Notice(f"Could not save the rule for the project ({exc}); allowed for this session.",
                                 "warning")
            reason = reply.reason or ("allowed" if allowed else "denied by the user")
            yield PermissionAnswered(call.id, allowed, reply.scope, reason)
            if not allowed:
                reason = reply.reason or f"The user denied permission to run {name}."
        else:
            yield PermissionAnswered(call.id, allowed, "rule", decision.reason)
            reason = decision.reason
        if allowed and self.pre_tool_hook is not None:
            refusal = await self.pre_tool_hook(name, args)
            if refusal is not None:
                allowed, reason = False, f"Blocked by a hook: {refusal}"
        if not allowed:
            output = ToolOutput(f"Not run: {reason}", is_error=True)
            yield ToolFinished(call.id, name, output.text, is_error=True)
            yield output
            return
        await asyncio.to_thread(self._checkpoint, name, args)  # reads the files: not on the event loop
        yield ToolStarted(call.id, name, title)
        output = await self.tools.invoke(name, args, self.context)
        if self.post_tool_hook is not None:
            await self.post_tool_hook(name, args, output.text)
        yield ToolFinished(
            call.id, name, output.text, output.is_error, output.diff,
            tuple(str(p) for p in output.locations),
        )
        if name == "write_todos":
            yield TodosUpdated(tuple((t.content, t.status) for t in self.context.todos))
        yield output

    async def _ask(self, request: PermissionAsked) -> PermissionReply:
        """Ask the approver, but give up at once if the turn is cancelled meanwhile."""
        ask = asyncio.ensure_future(self.approver(request))
        stop = asyncio.ensure_future(self._cancel.wait())
        done, _ = await asyncio.wait({ask, stop}, return_when=asyncio.FIRST_COMPLETED)
        if ask in done:
            stop.cancel()
            return ask.result()
        ask.cancel()
        return PermissionReply(False, reason="cancelled by the user")

    # ------------------------------------------------------------------ helpers

    def _checkpoint(self, name: str, args: dict[str, Any]) -> None:
        for path in paths_touched(name, args, self.context.cwd):
            self.checkpoints.snapshot(path)

    def _push_results(self, results: Sequence[ToolResult]) -> None:
        """Keep history consistent after a cancel: every call the model made gets an answer."""
        for res in results:
            self.engine.push_history(ChatMessage.tool(res.tool_call_id, res.content, res.name))

    def _answer_unrun(self, calls: Sequence[ToolCallRequest], why: str) -> None:
        self._push_results([ToolResult(c.id, f"Not run: {why}.", c.name) for c in calls])

    def _usage(self, result: ToolAwareResult) -> UsageUpdated:
        usage = result.usage
        self.total_prompt_tokens += usage.prompt_tokens
        self.total_completion_tokens += usage.completion_tokens
        runtime = self.engine.runtime
        context = usage.context_size or (runtime.context_size if runtime is not None else 0)
        self.last_usage = UsageUpdated(
            usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens, context,
            self.total_prompt_tokens, self.total_completion_tokens,
        )
        return self.last_usage

    def _finished(self, reason: StopReason, text: str, rounds: int, error: str | None = None) -> TurnFinished:
        usage = {
            "input_tokens": self.total_prompt_tokens,
            "output_tokens": self.total_completion_tokens,
            "cache_read_input_tokens": self.last_usage.cached_prompt_tokens if self.last_usage else 0,
        }
        return TurnFinished(reason, text, rounds, error, usage)


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True, ensure_ascii=False)
    except ValueError:
        return arguments


def _format_call_errors(result: ToolAwareResult) -> str:
    lines = ["Your tool call could not be used:"]
    for err in result.tool_call_errors:
        lines.append(f"- {err.message}")
    lines.append("Fix the call (valid JSON inside <tool_call>, a known tool name, the required arguments) "
                 "and try again, or answer in text.")
    return "\n".join(lines)


def _preview(name: str, args: dict[str, Any], cwd: Path) -> str | None:
    """What the user is asked to approve: the command, or the text about to be written."""
    if name == "create_file" and args.get("overwrite"):
        target = cwd / str(args.get("path", ""))
        try:
            old = target.read_text(encoding="utf-8") if target.is_file() else ""
        except (OSError, UnicodeDecodeError):
            old = ""
        new = str(args.get("content", ""))
        return "".join(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            f"a/{args.get('path')}", f"b/{args.get('path')}",
        )) or f"(no change to {args.get('path')})"
    if name == "run_command":
        return str(args.get("command", ""))
    if name == "edit_file":
        return f"--- {args.get('path')}\n-{args.get('old_text', '')}\n+{args.get('new_text', '')}"
    if name == "create_file":
        return f"+++ {args.get('path')}\n{args.get('content', '')}"
    if name == "delete_file":
        return f"delete {args.get('path')}"
    return json.dumps(args, ensure_ascii=False)[:2000] if args else None
