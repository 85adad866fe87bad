"""The agent loop, whole: ask the model, run the tools it calls, send results back, until it answers.

Every frontend (headless, ACP, TUI) consumes `Agent.run(prompt)`'s event stream; none re-implements
any of this. Permission prompts are injected as an `Approver`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from onde import (
    ChatEngine,
    ChatMessage,
    ContextOverflow,
    Done,
    GuardNotice,
    Image,
    InferenceError,
    StreamEvent,
    ToolAwareResult,
    ToolCallRequest,
    ToolResult,
    ToolSpec,
)

from ..checkpoints import CheckpointStore, paths_touched
from ..events import (
    AgentEvent,
    CutOffCall,
    FileChange,
    Notice,
    PermissionAnswered,
    PermissionAsked,
    PermissionDenial,
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
    Usage,
    UsageUpdated,
)
from ..permissions import PermissionPolicy
from ..tools import ToolContext, ToolOutput, ToolRegistry
from ..tools.base import PreparedCall
from ..tools.shell import unsandboxed_hint
from ..tools.subjects import Preview, Subjects
from .compaction import Compactor, too_long
from .hooks import HookPipeline

log = logging.getLogger(__name__)

MAX_ROUNDS = 24
REPEAT_LIMIT = 3  # the 3rd identical call in one prompt is not run


Approver = Callable[[PermissionAsked], Awaitable[PermissionReply]]


async def deny_all(request: PermissionAsked) -> PermissionReply:
    """The approver when nobody can be asked (headless): "ask" becomes a denial the model is told,
    with the flag that would allow it (and why it asked, when that names another flag). A command
    the sandbox refused is never rerun outside it."""
    if request.purpose == "leave_sandbox":
        return PermissionReply(False, reason="Not rerun without the sandbox: nobody can be asked in this run. "
                                             f"The user can allow such commands with {request.suggested_rule}.")
    names_a_flag = "--add-dir" in request.reason or "--permission-mode" in request.reason
    why = f": {request.reason}; or" if names_a_flag else ";"
    return PermissionReply(
        False,
        reason=f"{request.name} needs permission{why} allow it with --allow-tool {request.suggested_rule!r}",
    )


# The old single-hook form (before `HookPipeline`): still accepted by `Agent`, added to its pipeline.
PreToolHook = Callable[[PreparedCall], Awaitable[str | None]]
PostToolHook = Callable[[PreparedCall, str], Awaitable[object]]


Outcome: TypeAlias = Literal["answer", "retry", "calls"]


@dataclass
class _Turn:
    """What the rounds of one prompt share: the tools offered, the guards' state, the latest reply."""

    specs: list[ToolSpec]
    next_round: AsyncIterator[Any]
    """The model's next reply, streaming."""
    offered: list[ToolSpec] | None
    """The tools that round offers (None: none, answer in text); a retry after compaction offers the same."""
    rounds: int = 0
    text: str = ""
    outcome: Outcome = "answer"
    reply: ToolAwareResult | None = None
    finished: TurnFinished | None = None
    force_text: bool = False
    """The repetition guard fired: the next round offers no tools."""
    seen: Counter[str] = field(default_factory=Counter)
    compacted: bool = False
    """The context overflowed once in this prompt and the conversation was compacted."""
    denials: list[PermissionDenial] = field(default_factory=list)
    """Calls permission refused in this prompt."""
    changed: bool = False
    """A call that may change something (not read-only) ran in this prompt."""
    cut_off: list[CutOffCall] = field(default_factory=list)
    """Calls a reply at max_tokens left unclosed in this prompt (never run)."""

    def repeated(self, call: ToolCallRequest) -> str | None:
        """The refusal for the REPEAT_LIMIT-th identical call of this prompt (it is not run), else None."""
        key = f"{call.name}:{json.dumps(call.parsed_arguments, sort_keys=True, ensure_ascii=False)}"
        self.seen[key] += 1
        if self.seen[key] < REPEAT_LIMIT:
            return None
        self.force_text = True
        return (
            f"Not run: this exact {call.name} call was already made {self.seen[key] - 1} times "
            "in this turn with the same result. Do not repeat it; answer the user in text with what you have."
        )


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
        hooks: HookPipeline | None = None,
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
        self.hooks = hooks if hooks is not None else HookPipeline()
        """pre_tool and post_tool run here; the session runs prompt_submit and stop on the same pipeline."""
        if pre_tool_hook is not None:
            pre = pre_tool_hook
            self.hooks.on_pre_tool(lambda _id, call: pre(call))
        if post_tool_hook is not None:
            post = post_tool_hook
            self.hooks.on_post_tool(lambda _id, call, text: post(call, text))
        self.tools_enabled = True
        self._cancel = asyncio.Event()
        self.total_prompt_tokens = 0
        self.total_completion_tokens = 0
        self.total_cache_read_tokens = 0
        self.total_cache_creation_tokens = 0
        self.last_usage: UsageUpdated | None = None
        self.total_drafted_tokens = 0  # speculative decoding: drafted tokens, and those the model confirmed
        self.total_accepted_draft_tokens = 0
        #: what the runtime's draft length controller decided in the last model call (`events.Usage`'s fields)
        self.draft_length = 0
        self.draft_verify_cost = 0.0
        self.draft_acceptance = 0.0
        self.draft_backed_off = False

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

    async def run(self, prompt: str, images: tuple[Image, ...] = ()) -> AsyncIterator[AgentEvent]:
        """One prompt: model rounds until the model answers in text, the round limit, a cancel or an error."""
        self._cancel = asyncio.Event()
        self.context.cancel = asyncio.Event()
        self.checkpoints.begin_turn()
        yield TurnStarted(prompt, self.session_id)
        specs = self.tool_specs()
        turn = _Turn(specs, self.engine.astream_message_with_tools(prompt, specs, images=images), specs)
        while turn.finished is None:
            async for event in self.step(turn):
                yield event
            if turn.outcome == "calls":
                async for event in self.run_calls(turn):
                    yield event
        yield turn.finished

    async def step(self, turn: _Turn) -> AsyncIterator[AgentEvent]:
        """One model round, then its outcome: "answer" (the turn ends), "retry" (a malformed call was
        explained to the model) or "calls" (tool calls for `run_calls`)."""
        turn.rounds += 1
        turn.outcome = "answer"
        reply: ToolAwareResult | None = None
        try:
            async for item in self._model_round(turn.next_round):
                if isinstance(item, ToolAwareResult):
                    reply = item
                else:
                    yield item
        except ContextOverflow as exc:
            if self.cancelled:
                self._end(turn, "cancelled")
                return
            if turn.compacted or self.compactor is None or not self.compactor.can_compact(self.engine):
                # nothing (more) to compact: the prompt itself is over the window; say by how much
                self._end(turn, "error", too_long(exc, compacted=turn.compacted))
                return
            async for event in self._compact_and_retry(turn, exc):
                yield event
            return
        except InferenceError as exc:
            self._end(turn, "cancelled" if self.cancelled else "error", None if self.cancelled else str(exc))
            return
        if self.cancelled or reply is None:
            if reply is not None:  # the tokens a cancelled reply took were spent all the same: counted
                yield self._usage(reply)
            self._end(turn, "cancelled")
            return
        yield self._usage(reply)
        if not reply.tool_calls:  # (with calls to run, after them: in the order the model wrote them)
            for event in _report_cut_off(turn, reply):
                yield event
        turn.text = reply.text
        if self.compactor is not None and self.last_usage is not None:
            async for notice in self.compactor.maybe_compact(self.engine, self.last_usage):
                yield notice
        if reply.tool_calls and turn.rounds >= self.max_rounds:
            rounds = f"{self.max_rounds} round{'' if self.max_rounds == 1 else 's'}"
            yield Notice(f"Stopped after {rounds} of tool calls.", "warning")
            self._answer_unrun(reply.tool_calls, "not run: the round limit was reached")
            self._end(turn, "max_rounds")
        elif reply.tool_calls:
            turn.outcome, turn.reply = "calls", reply
        elif reply.tool_call_errors and turn.rounds < self.max_rounds and not turn.force_text:
            # the model tried to call a tool but the call could not be parsed: tell it, let it retry
            explanation = _format_call_errors(reply)
            yield Notice(explanation, "warning")
            turn.outcome, turn.offered = "retry", turn.specs
            turn.next_round = self.engine.astream_message_with_tools(explanation, turn.specs)
        else:
            if reply.empty_reason:
                yield Notice(f"The model returned an empty reply: {reply.empty_reason}", "warning")
            if reply.repetition_stopped:
                self._end(turn, "loop_guard")
            elif reply.finish_reason == "length":
                self._end(turn, "max_tokens")
            else:
                self._end(turn, "permission_denied" if turn.denials and not turn.changed else "end_turn")

    async def run_calls(self, turn: _Turn) -> AsyncIterator[AgentEvent]:
        """Run the reply's tool calls in order, then send their results back as the next round."""
        assert turn.reply is not None
        reply, results = turn.reply, []
        for call in reply.tool_calls:
            if self.cancelled:
                results.append(ToolResult(call.id, "Cancelled by the user.", call.name))
                continue
            refusal = turn.repeated(call)
            if refusal is not None:
                yield Notice(f"Repetition guard: {call.name} called again with the same arguments; "
                             "the model must now answer in text.", "warning")
                yield ToolFinished(call.id, call.name, refusal, is_error=True)
                results.append(ToolResult(call.id, refusal, call.name))
                continue
            output: ToolOutput | None = None
            requested: ToolCallRequested | None = None
            async for item in self._run_tool(call):
                if isinstance(item, ToolOutput):
                    output = item
                    continue
                if isinstance(item, ToolCallRequested):
                    requested = item
                elif isinstance(item, PermissionAnswered) and not item.allowed and requested is not None:
                    turn.denials.append(PermissionDenial(call.name, call.id, requested.arguments, item.reason))
                elif isinstance(item, ToolStarted) and requested is not None and not requested.read_only:
                    turn.changed = True
                yield item
            assert output is not None
            content = output.text
            for note in call.notes:  # e.g. a value the runtime cut to fit the token limit: the model must know
                content += f"\n\nnote: {note}."
            if reply.tool_call_errors:  # some calls parsed, others did not: the model hears of both
                content += "\n\n" + _format_call_errors(reply)
            results.append(ToolResult(call.id, content, call.name, images=output.images))
        for event in _report_cut_off(turn, reply):
            yield event
        if self.cancelled:
            self._push_results(results)
            self._end(turn, "cancelled")
            return
        last_round = turn.force_text or turn.rounds >= self.max_rounds - 1
        turn.offered = None if last_round else turn.specs
        turn.next_round = self.engine.astream_tool_results(results, turn.offered)

    async def _compact_and_retry(self, turn: _Turn, overflow: ContextOverflow) -> AsyncIterator[AgentEvent]:
        """The prompt no longer fits the context: compact the conversation once, then ask again."""
        assert self.compactor is not None
        turn.compacted = True
        yield Notice(f"The conversation no longer fits the model's context ({overflow}); compacting it.", "warning")
        try:
            yield await self.compactor.compact(self.engine)
        except InferenceError as exc:
            self._end(turn, "error", f"{overflow}; compacting the conversation failed too: {exc}")
            return
        turn.rounds -= 1  # the round that overflowed produced nothing: it does not count
        turn.outcome = "retry"
        turn.next_round = self.engine.astream_continue_reply(turn.offered)

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
        """One call: prepared once (validated, its subjects declared), judged, run."""
        name = call.name
        # the runtime parsed the model's JSON once; that object, validated into the tool's typed
        # parameters here, is what the policy, hooks, preview and the tool itself read from now on
        prepared = self.tools.prepare(name, call.parsed_arguments, self.context)
        if isinstance(prepared, ToolOutput):  # an unknown tool or invalid arguments: nothing to judge
            yield ToolFinished(call.id, name, prepared.text, is_error=True)
            yield prepared
            return
        tool, subjects = prepared.tool, prepared.subjects
        locations = tuple(str(path) for path in subjects.paths)
        yield ToolCallRequested(
            call.id, name, prepared.arguments, prepared.title, prepared.read_only, tool.kind, locations,
            command=subjects.command,
        )
        decision = self.policy.decide(prepared)
        allowed = decision.kind == "allow"
        if decision.kind == "ask":
            preview = await tool.preview(prepared, self.context)  # may read the file (through ctx.fs)
            asked = PermissionAsked(
                call.id, name, prepared.arguments, prepared.title, decision.reason,
                self.policy.suggested_rule(prepared), preview.text if preview is not None else None,
                kind=tool.kind, command=subjects.command, change=_change(preview), locations=locations,
            )
            yield asked
            reply = await self._ask(asked)
            allowed = reply.allowed
            if allowed and reply.arguments is not None and reply.arguments != prepared.arguments:
                edited = self._edited(name, reply.arguments)
                if isinstance(edited, str):
                    allowed, reply = False, PermissionReply(False, reason=edited)
                else:
                    prepared, tool, subjects = edited, edited.tool, edited.subjects
            if allowed and reply.scope == "session":
                self.policy.grant_session(prepared)
            elif allowed and reply.scope == "project":
                try:  # writes .sigit/settings.toml: not on the event loop
                    await asyncio.to_thread(self.policy.grant_project, prepared)
                except (OSError, ValueError) as exc:  # a broken settings file must not end the turn
                    self.policy.grant_session(prepared)
                    yield Notice(f"Could not save the rule for the project ({exc}); allowed for this session.",
                                 "warning")
            reason = reply.reason or ("allowed" if allowed else "denied by the user")
            yield PermissionAnswered(call.id, allowed, reply.scope, reason)
            if not allowed:
                reason = reply.reason or f"The user denied permission to run {name}."
        else:
            yield PermissionAnswered(call.id, allowed, "rule", decision.reason)
            reason = decision.reason
        if allowed:
            refusal = await self.hooks.pre_tool(call.id, prepared)
            if refusal is not None:
                allowed, reason = False, f"Blocked by a hook: {refusal.reason}"
        if not allowed:
            output = ToolOutput(f"Not run: {reason}", is_error=True)
            yield ToolFinished(call.id, name, output.text, is_error=True)
            yield output
            return
        await asyncio.to_thread(self._checkpoint, subjects)  # reads the files: not on the event loop
        yield ToolStarted(call.id, name, prepared.title)
        output = await tool.execute(prepared, self.context)
        if output.sandbox_denial is not None and not self.cancelled:
            async for item in self._offer_unsandboxed(call, prepared, output):
                if isinstance(item, ToolOutput):
                    output = item
                else:
                    yield item
        if not prepared.read_only or tool.kind == "execute":  # a write, or a command (a background one ending)
            disarmed = await self._disarm_repositories()
            if disarmed is not None:
                yield Notice(disarmed, "warning")
                output = dataclasses.replace(output, text=f"{output.text}\n\n{disarmed}")
        await self.hooks.post_tool(call.id, prepared, output.text)
        yield ToolFinished(
            call.id, name, output.text, output.is_error, output.diff,
            tuple(str(p) for p in output.locations),
        )
        if output.todos is not None:
            yield TodosUpdated(output.todos)
        yield output

    def _edited(self, name: str, arguments: dict[str, Any]) -> PreparedCall | str:
        """The call with the arguments the approver edited, or why it cannot run: they must validate,
        and a deny rule (or the mode) still refuses them; an "ask" is answered by the edit itself."""
        prepared = self.tools.prepare(name, arguments, self.context)
        if isinstance(prepared, ToolOutput):
            return f"the edited arguments are not valid: {prepared.text}"
        decision = self.policy.decide(prepared)
        if decision.kind == "deny":
            return f"the edited call is refused: {decision.reason}"
        return prepared

    async def _offer_unsandboxed(
        self, call: ToolCallRequest, prepared: PreparedCall, output: ToolOutput
    ) -> AsyncIterator[AgentEvent | ToolOutput]:
        """The sandbox refused the command: ask the user whether to run it once without the sandbox.

        Yields the request, the answer and then the output the model reads: the unconfined rerun's,
        or the refused one with the answer (and, where nobody can be asked, the flag that allows it).
        The permission mode (even bypass) plays no part: only the user, asked here, lets it out.
        """
        denial = output.sandbox_denial
        assert denial is not None
        command = prepared.subjects.command
        shown = prepared.title if command is None else command if len(command) <= 200 else command[:197] + "..."
        asked = PermissionAsked(
            call.id, call.name, prepared.arguments, f"Run `{shown}` once without the sandbox?",
            denial.sentence, unsandboxed_hint(denial), command, kind=prepared.tool.kind, command=command,
            locations=tuple(str(path) for path in prepared.subjects.paths), purpose="leave_sandbox",
        )
        yield asked
        reply = await self._ask(asked)
        reason = reply.reason or ("run once without the sandbox" if reply.allowed else "kept in the sandbox")
        yield PermissionAnswered(call.id, reply.allowed, "once", reason)
        if not reply.allowed:
            note = reply.reason or "The user chose to keep it in the sandbox; do not retry it."
            yield dataclasses.replace(output, text=f"{output.text}\n{note}")
            return
        unconfined = dataclasses.replace(self.context, sandbox=None)
        rerun = await prepared.tool.execute(prepared, unconfined)
        yield dataclasses.replace(rerun, text="The user let this command run once without the sandbox.\n"
                                              + rerun.text)

    async def _disarm_repositories(self) -> str | None:
        """Remove what the step left in the workspace's repositories that would make git run programs
        (the user's next `git status` must not run it); the sentence for the model and the user."""
        guard = self.context.repo_guard
        if guard is None:
            return None
        sentences = await asyncio.to_thread(guard.check)
        if not sentences:
            return None
        text = ". ".join(sentences) + "."
        log.warning("%s", text)
        return text

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

    async def run_one(self, call_id: str, name: str, arguments: dict[str, Any]) -> AsyncIterator[AgentEvent]:
        """One tool call that a frontend makes for its caller, not the model (`sigit mcp`'s plain tools):
        prepared, judged, asked about, hooked, checkpointed and sandboxed exactly as a model's call."""
        if self._cancel.is_set():  # a cancel before this call is not this call's
            self._cancel = asyncio.Event()
        if self.context.cancel is None or self.context.cancel.is_set():
            self.context.cancel = asyncio.Event()
        self.checkpoints.begin_turn()
        call = ToolCallRequest(call_id, name, json.dumps(arguments, ensure_ascii=False))
        async for item in self._run_tool(call):
            if not isinstance(item, ToolOutput):
                yield item

    # ------------------------------------------------------------------ helpers

    def _checkpoint(self, subjects: Subjects) -> None:
        for path in paths_touched(subjects):
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
        self.total_cache_read_tokens += usage.cache_read_tokens
        self.total_cache_creation_tokens += usage.evaluated_prompt_tokens
        self.total_drafted_tokens += usage.drafted_tokens
        self.total_accepted_draft_tokens += usage.accepted_draft_tokens
        self.draft_length, self.draft_verify_cost = usage.draft_length, usage.draft_verify_cost
        self.draft_acceptance, self.draft_backed_off = usage.draft_acceptance, usage.draft_backed_off
        runtime = self.engine.runtime
        context = usage.context_size or (runtime.context_size if runtime is not None else 0)
        self.last_usage = UsageUpdated(
            usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens, context,
            self.total_prompt_tokens, self.total_completion_tokens,
            cache_read_tokens=usage.cache_read_tokens, cache_creation_tokens=usage.evaluated_prompt_tokens,
            total_cache_read_tokens=self.total_cache_read_tokens,
            total_cache_creation_tokens=self.total_cache_creation_tokens,
        )
        return self.last_usage

    def _end(self, turn: _Turn, reason: StopReason, error: str | None = None) -> None:
        usage = Usage(
            self.total_prompt_tokens, self.total_completion_tokens,
            cache_read_tokens=self.total_cache_read_tokens, cache_creation_tokens=self.total_cache_creation_tokens,
            drafted_tokens=self.total_drafted_tokens, accepted_draft_tokens=self.total_accepted_draft_tokens,
            draft_length=self.draft_length, draft_verify_cost=self.draft_verify_cost,
            draft_acceptance=self.draft_acceptance, draft_backed_off=self.draft_backed_off,
        )
        turn.outcome = "answer"
        turn.finished = TurnFinished(reason, turn.text, turn.rounds, error, usage,
                                     permission_denials=tuple(turn.denials), cut_off_calls=tuple(turn.cut_off))


def _report_cut_off(turn: _Turn, result: ToolAwareResult) -> list[ToolFinished]:
    """The reply's calls that the token limit cut off (the runtime never made them calls), kept for the
    turn's result and shown as failed tool calls."""
    shown = []
    for err in result.tool_call_errors:
        if err.truncated:
            cut = CutOffCall(err.name or "tool call", err.id or f"cut_off_{len(turn.cut_off) + 1}", err.message)
            turn.cut_off.append(cut)
            shown.append(ToolFinished(cut.tool_use_id, cut.tool_name, cut.message, is_error=True))
    return shown


def _format_call_errors(result: ToolAwareResult) -> str:
    lines = ["Your tool call could not be used:"]
    for err in result.tool_call_errors:
        lines.append(f"- {err.message}")
    if any(not err.truncated for err in result.tool_call_errors):
        lines.append("Fix the call (valid JSON inside <tool_call>, a known tool name, the required arguments) "
                     "and try again, or answer in text.")
    if any(err.truncated for err in result.tool_call_errors):
        lines.append("Your reply reached the token limit (max_tokens) before that call closed, so nothing of it "
                     "ran. Make it again in pieces that fit: write a long file in parts (create it with the "
                     "first part, then add the rest with edits), or answer in text.")
    return "\n".join(lines)


def _change(preview: Preview | None) -> FileChange | None:
    if preview is None or preview.path is None or preview.new_text is None:
        return None
    return FileChange(str(preview.path), preview.new_text, preview.old_text)

