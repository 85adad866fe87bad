"""`AgentSession`: a running session, and the only way a frontend touches its agent.

`SessionHost.open` (sigit/app.py) builds one; frontends prompt it, cancel it and change it through
its methods (mode, tools offered, system prompt, hooks, thinking, sandbox). The agent itself stays
private: `sigit.frontends` may not import `sigit.agent` (an import-linter contract).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import warnings
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent.hooks import HookPipeline
from .agent.loop import Agent, Approver, deny_all
from .checkpoints import CheckpointStore
from .config.settings import PermissionMode, Settings
from .errors import UsageError
from .events import AgentEvent, Notice, PermissionAsked, PermissionReply, TurnFinished, TurnStarted
from .extensions import CommandSet
from .permissions import parse_mode
from .prompt.init_prompt import INIT_PROMPT
from .sandbox import MODES as SANDBOX_MODES
from .sandbox import Sandbox, open_sandbox
from .sessions import Session, SessionStore
from .status import SessionStatus
from .tools import FileSystem, ProcessManager, Todo, Tool, ToolRegistry, file_write_rules

if TYPE_CHECKING:
    from onde import Image, Message, SamplingConfig

    from .extensions.mcp_client import McpManager

log = logging.getLogger(__name__)

INIT_RULES = file_write_rules("AGENTS.md")
"""What `/init` and `sigit init` allow without asking: the user asked for AGENTS.md to be written."""

DONT_ASK = "dontAsk"
"""Claude Code's mode that refuses whatever would ask (`AgentSession.set_mode`)."""


@dataclass(frozen=True)
class OpenArgs:
    """What a frontend opened a session with, so switching models reopens it the same way."""

    approver: Approver = deny_all
    tools: tuple[Tool[Any], ...] | None = None
    mcp_servers: tuple[Any, ...] = ()
    fs: FileSystem | None = None
    replace_tools: tuple[Tool[Any], ...] = ()
    trusted: bool | None = None


class AgentSession:
    """A session with its agent: prompt it, cancel it, rewind it; saved after every turn.

    The only way a frontend touches a running agent: the agent itself is private (`sigit.frontends`
    may not import `sigit.agent`, an import-linter contract), and what a frontend may change, it
    changes through the methods below (mode, tools offered, system prompt, hooks, thinking, sandbox).
    """

    def __init__(
        self,
        session: Session,
        agent: Agent,
        store: SessionStore,
        settings: Settings,
        *,
        mcp: McpManager | None = None,
        notices: Sequence[str] = (),
        commands: CommandSet | None = None,
        opened_with: OpenArgs | None = None,
        trusted: bool = True,
    ) -> None:
        self.session = session
        self._agent = agent
        self.store = store
        self.settings = settings
        self.mcp = mcp
        self.running = False
        self._pending_notices = list(notices)
        self.on_close: Callable[[], None] | None = None
        self.flag_rules: set[str] = set()
        """--allow-tool rules: they last one run and are not saved with the session's own grants."""
        self.commands = commands if commands is not None else CommandSet([], [])
        self.opened_with = opened_with or OpenArgs(approver=agent.approver)
        self.trusted = trusted
        """Whether the project's own hooks, MCP servers, model and loosening settings apply."""
        self.denials: list[str] = []
        """Rules the user rejected for the rest of the session ("always reject")."""
        self.mode_before_plan: PermissionMode = "default"
        self._dont_ask = False
        self.refuse_unasked: Approver = deny_all
        """How this session words the refusal of a call that would ask, in dontAsk mode (a frontend's
        vocabulary: the Claude CLI names `--allowedTools`)."""
        self._approver = agent.approver
        agent.approver = self._approve
        self._retired_sandboxes: list[Sandbox] = []
        """Sandboxes replaced by `/sandbox`: background commands may still run in them (and their temp dirs)."""
        self.prefill_after_turn = False
        """After a turn that ended normally, evaluate the conversation as the next message will find it,
        in the background (`ChatEngine.aprefill_next_turn`): on when the session's host prefills
        (`HostOptions.prefill`: the TUI, ACP), off for a one-shot `sigit -p`."""
        self._settling: asyncio.Task[int] | None = None

    @property
    def agent(self) -> Agent:
        """Deprecated: the agent itself. Use the session's operations (`messages`, `todos`, `processes`,
        `system_prompt`, `status()`, ...); this alias warns and goes in a later release."""
        warnings.warn(
            "AgentSession.agent is deprecated: use the session's operations (messages, todos, processes, "
            "system_prompt, status(), ...)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._agent

    @property
    def messages(self) -> tuple[Message, ...]:
        """The conversation so far, as the model sees it (what a saved session holds and `/resume` replays)."""
        return self._agent.engine.history_messages()

    @property
    def todos(self) -> tuple[Todo, ...]:
        """The model's todo list (`write_todos`), as it stands."""
        return tuple(self._agent.context.todos)

    @property
    def processes(self) -> ProcessManager:
        """This session's background commands (a frontend lists them, reads their output, stops them);
        they outlive a model switch and end when the session closes."""
        return self._agent.context.processes

    @property
    def hooks(self) -> HookPipeline:
        """The session's one hook pipeline: the settings hooks first, then what a frontend adds
        (`session.hooks.on_pre_tool(...)`)."""
        return self._agent.hooks

    def expand_command(self, text: str) -> str:
        """`/name args` of a custom command (markdown in .sigit/commands, .claude/commands, ...) becomes
        its prompt; any other text is returned as it is."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            return text
        name, _, arguments = stripped[1:].partition(" ")
        command = self.commands.get(name)
        return command.expand(arguments.strip()) if command is not None else text

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def cwd(self) -> Path:
        return self.session.cwd

    @property
    def can_see(self) -> bool:
        """Whether the session's model takes images (a projector is loaded, or the server says so)."""
        return self._agent.context.can_see

    async def prompt(self, text: str, images: Sequence[Image] = ()) -> AsyncIterator[AgentEvent]:
        """One turn: the prompt_submit hooks (which may refuse it), the agent's events, the stop hooks.
        `images` go with the text (the model refuses them if it cannot see)."""
        self.running = True
        try:
            for message in self._pending_notices:
                yield Notice(message, "warning")
            self._pending_notices.clear()
            refusal = await self.hooks.prompt_submit(text)
            if refusal is not None:
                yield TurnStarted(text, self.id)
                yield Notice(f"Prompt blocked by a hook: {refusal.reason}", "error")
                yield TurnFinished("refusal", "", 0, f"blocked by a {refusal.hook} hook: {refusal.reason}")
                return
            finished: TurnFinished | None = None
            async for event in self._agent.run(self.expand_command(text), images=tuple(images)):
                if isinstance(event, TurnFinished):
                    finished = event
                yield event
            if finished is not None:
                await self.hooks.stop(finished)
            if finished is not None and finished.stop_reason in _SETTLED:
                self._settle_soon()
        finally:
            self.running = False
            await asyncio.to_thread(self.save)  # once a turn, an fsync'd write: not on the event loop

    async def next_turn_ready(self) -> int:
        """Wait for the turn-end prefill, if one runs: the tokens of the conversation now ready for the
        next message (0: none ran, or it did nothing). Frontends need not wait: the next turn does."""
        settling = self._settling
        if settling is None:
            return 0
        with contextlib.suppress(Exception):
            return await asyncio.shield(settling)
        return 0

    def _settle_soon(self) -> None:
        """Start the turn-end prefill (see `prefill_after_turn`); the next turn waits for it on the model,
        which is what it would evaluate itself."""
        if not self.prefill_after_turn or (self._settling is not None and not self._settling.done()):
            return
        engine = self._agent.engine
        self._settling = asyncio.ensure_future(engine.aprefill_next_turn(self._agent.tool_specs()))
        self._settling.add_done_callback(_settled)

    def cancel(self) -> None:
        self._agent.cancel()

    async def run_tool(self, call_id: str, name: str, arguments: dict[str, Any]) -> AsyncIterator[AgentEvent]:
        """One call of one of the session's tools made for the frontend's caller rather than the model
        (`sigit mcp` offers them): the same rules, questions, hooks and sandbox as a model's call, with
        its events (`ToolFinished` carries the result). The conversation is not touched."""
        async for event in self._agent.run_one(call_id, name, arguments):
            yield event

    def turn_diff(self) -> str:
        """A unified diff of the files the last turn (or `run_tool` call) changed through the file tools,
        from before it to now; "" when it changed none. Blocking: it reads the files."""
        return self._agent.checkpoints.turn_diff()

    @property
    def max_rounds(self) -> int:
        """Rounds of tool calls a prompt may take before the turn stops (`--max-turns`)."""
        return self._agent.max_rounds

    @max_rounds.setter
    def max_rounds(self, rounds: int) -> None:
        if rounds < 1:
            raise UsageError(f"the round limit must be at least 1, not {rounds}")
        self._agent.max_rounds = rounds

    async def _approve(self, request: PermissionAsked) -> PermissionReply:
        """The agent's approver: in dontAsk mode nobody is asked; otherwise the frontend's."""
        if self._dont_ask:
            return await self.refuse_unasked(request)
        return await self._approver(request)

    # ------------------------------------------------------------------ what frontends may change

    @property
    def tools(self) -> ToolRegistry:
        """The tools the model is offered (frontends read them to show calls; `offer_tools` narrows them)."""
        return self._agent.tools

    def offer_tools(self, allowed: Collection[str] | None = None, disallowed: Collection[str] = ()) -> list[str]:
        """Offer the model only the `allowed` built-in tools (None: all of them) and none of `disallowed`;
        names may be ours or Claude Code's. MCP tools stay unless `disallowed` names them. The names
        of the tools taken away."""
        removed = []
        for tool in list(self._agent.tools):
            kept = allowed is None or tool.name.startswith("mcp__") or any(tool.known_as(n) for n in allowed)
            if not kept or any(tool.known_as(n) for n in disallowed):
                self._agent.tools.unregister(tool.name)
                removed.append(tool.name)
        return removed

    @property
    def system_prompt(self) -> str:
        return self._agent.engine.system_prompt or ""

    def set_system_prompt(self, text: str | None = None, *, append: str = "") -> str:
        """Replace the system prompt (None keeps ours) and add `append` after it; the prompt now."""
        base = text if text is not None else self.system_prompt
        prompt = "\n\n".join(part for part in (base, append) if part)
        self._agent.engine.set_system_prompt(prompt)
        return prompt

    @property
    def auto_compact(self) -> bool:
        """Whether the conversation is compacted when it nears the context's end."""
        return self._agent.compactor is not None

    @property
    def mode(self) -> PermissionMode:
        mode: PermissionMode = self._agent.policy.mode
        return mode

    @property
    def dont_ask(self) -> bool:
        """dontAsk (Claude Code's mode): what the policy would ask about is refused, nobody is asked."""
        return self._dont_ask

    def set_mode(self, mode: str) -> PermissionMode:
        """Set the permission mode (Claude Code's names accepted, `dontAsk` too: the default mode's
        rules with every question refused); BadValueError for an unknown one."""
        if mode == DONT_ASK:
            self.set_mode("default")
            self._dont_ask = True
            return self.mode
        parsed = parse_mode(mode)
        if parsed == "plan" and self.mode != "plan":
            self.mode_before_plan = self.mode
        self._agent.policy.mode = parsed
        self._dont_ask = False
        return parsed

    def set_plan(self, on: bool | None = None) -> PermissionMode:
        """Plan mode on, off (back to the mode before it), or toggled (None)."""
        if on is None:
            on = self.mode != "plan"
        if on:
            return self.set_mode("plan")
        return self.set_mode(self.mode_before_plan) if self.mode == "plan" else self.mode

    @property
    def thinking(self) -> bool:
        return self._agent.engine.sampling.enable_thinking is not False

    def set_thinking(self, on: bool) -> None:
        engine = self._agent.engine
        engine.set_sampling(dataclasses.replace(engine.sampling, enable_thinking=on))

    @property
    def sampling(self) -> SamplingConfig:
        """How the session's model samples (temperature, seed, max_tokens...): what a report records."""
        return self._agent.engine.sampling

    def set_sampling(self, *, temperature: float | None = None, seed: int | None = None) -> SamplingConfig:
        """Sample at `temperature` and/or with `seed` from the next reply on (None keeps the one in force);
        `sigit eval` fixes them per attempt. ValueError for a negative temperature."""
        engine = self._agent.engine
        changes: dict[str, Any] = {}
        if temperature is not None:
            changes["temperature"] = temperature
        if seed is not None:
            changes["seed"] = seed
        engine.set_sampling(dataclasses.replace(engine.sampling, **changes))
        return engine.sampling

    @property
    def sandbox(self) -> Sandbox | None:
        return self._agent.context.sandbox

    @property
    def sandbox_mode(self) -> str:
        """The sandbox mode in force (`off` also where this OS cannot enforce the chosen one)."""
        return self.sandbox.mode if self.sandbox is not None else "off"

    async def set_sandbox_mode(self, mode: str) -> Sandbox:
        """Run this session's next commands in `mode` (same settings otherwise); UsageError if unknown.

        The sandbox it replaces stays open until the session closes, for background commands still in it.
        """
        current = self.sandbox
        if current is None:
            raise RuntimeError("this session has no sandbox")
        if mode not in SANDBOX_MODES:
            raise UsageError(f"sandbox mode must be one of {', '.join(SANDBOX_MODES)}, not {mode!r}")
        policy = dataclasses.replace(current.policy, mode=mode, temp_dir=None)
        sandbox = await asyncio.to_thread(open_sandbox, policy)
        self._retired_sandboxes.append(current)
        self._agent.context.sandbox = sandbox
        return sandbox

    @property
    def session_grants(self) -> list[str]:
        grants: list[str] = self._agent.policy.session_grants
        return grants

    def grant(self, rule: str) -> None:
        """Allow calls matching `rule` for the rest of the session (saved with it)."""
        self._agent.policy.add_session_rule(rule, "allow")

    def deny(self, rule: str) -> None:
        """Refuse calls matching `rule` for the rest of the session, without asking."""
        self._agent.policy.add_session_rule(rule, "deny")
        if rule not in self.denials:
            self.denials.append(rule)

    def init(self) -> str:
        """The `/init` prompt, with writing AGENTS.md allowed: the user asked for exactly that."""
        for rule in INIT_RULES:
            self.grant(rule)
        return INIT_PROMPT

    def status(self) -> SessionStatus:
        agent, perms = self._agent, self.settings.permissions
        info = agent.engine.info()
        usage = agent.last_usage
        servers = list(self.settings.mcp.get("servers", {}))
        if self.mcp is not None:
            servers = [s.name for s in self.mcp.status()]
        return SessionStatus(
            session_id=self.id, cwd=self.cwd, model=self.session.model, runtime=info.runtime or "?",
            runtime_state=info.status, context_size=info.context_size, tool_capable=info.tool_capable,
            messages=info.history_length, mode=self.mode, default_answer=perms.default,
            allow_rules=tuple(perms.allow), deny_rules=tuple(perms.deny),
            tool_answers=tuple(perms.tools.items()), session_grants=tuple(self.session_grants),
            session_denials=tuple(self.denials), tools=tuple(agent.tools.names()),
            mcp_servers=tuple(sorted(servers or ())), thinking=self.thinking,
            context_used=usage.prompt_tokens + usage.completion_tokens if usage is not None else None,
            prompt_tokens=agent.total_prompt_tokens, completion_tokens=agent.total_completion_tokens,
            warnings=tuple(self.settings.warnings),
            sandbox=self.sandbox.describe() if self.sandbox is not None else "off",
            cache_read_tokens=agent.total_cache_read_tokens,
            cache_creation_tokens=agent.total_cache_creation_tokens,
            model_details=info.model_details,
            drafted_tokens=agent.total_drafted_tokens, accepted_draft_tokens=agent.total_accepted_draft_tokens,
            draft_length=agent.draft_length, draft_verify_cost=agent.draft_verify_cost,
            draft_acceptance=agent.draft_acceptance, draft_backed_off=agent.draft_backed_off,
        )

    def take_over(self, old: AgentSession) -> None:
        """Carry what the user set in `old` (same conversation, another model) into this session."""
        self._agent.policy.mode = old.mode
        self._dont_ask = old.dont_ask
        self.refuse_unasked = old.refuse_unasked
        self.mode_before_plan = old.mode_before_plan
        for rule in old.session_grants:
            self.grant(rule)
        for rule in old.denials:
            self.deny(rule)
        self.flag_rules = set(old.flag_rules)
        self.set_thinking(old.thinking)
        # background commands keep running under the new session, and so does their sandbox (its mode too)
        self._agent.context.processes, old._agent.context.processes = old._agent.context.processes, ProcessManager()
        if old.sandbox is not None:
            if self.sandbox is not None:
                self.sandbox.close()
            self._agent.context.sandbox, old._agent.context.sandbox = old.sandbox, None
        self._retired_sandboxes, old._retired_sandboxes = old._retired_sandboxes, []
        if old._agent.context.repo_guard is not None:  # what the first session found stays the approved state
            self._agent.context.repo_guard = old._agent.context.repo_guard

    def save(self) -> None:
        self.session.messages = list(self._agent.engine.history_messages())
        self.session.checkpoints = self._agent.checkpoints.to_json()
        self.session.todos = [{"content": t.content, "status": t.status} for t in self._agent.context.todos]
        self.session.grants = [g for g in self._agent.policy.session_grants if g not in self.flag_rules]
        if self.session.messages:
            self.store.save(self.session)

    def rewind(self) -> list[str]:
        """Undo the last turn's file changes (the conversation stays)."""
        restored = self._agent.checkpoints.rewind_last_turn(self._agent.context.confinement)
        self.save()
        return restored

    async def compact(self) -> Notice:
        if self._agent.compactor is None:
            return Notice("Compaction is off.")
        notice = await self._agent.compactor.compact(self._agent.engine)
        self.save()
        return notice

    def clear(self, *, keep_id: bool = False) -> int:
        """Start a new conversation in this session's place; the old one stays saved (`/resume` brings it back).

        The new one has its own id and title, and none of the old one's checkpoints or todos. `keep_id`: an
        editor knows the session by its id (ACP), so the new conversation keeps it and the old one is saved
        under a new id instead.
        """
        self.save()
        removed = self._agent.engine.clear_history()
        old = self.session
        self.session = Session.create(old.cwd, old.model)
        self.session.grants = list(old.grants)  # "always allow for this session" still means this session
        if keep_id:
            if old.messages:
                self.store.save(dataclasses.replace(old, id=self.session.id))
                self.store.delete(old.id)
            self.session.id = old.id
        self._agent.session_id = self.session.id
        self._agent.checkpoints = CheckpointStore(old.cwd)
        self._agent.context.todos = []
        return removed

    def mcp_status(self) -> str:
        """The text of `/mcp`: servers, their state and tools."""
        if self.mcp is None:
            return "No MCP servers configured (add them to .mcp.json or [mcp.servers.NAME] in settings)."
        from .extensions.mcp_client import format_status

        return format_status(self.mcp.status())

    async def close(self) -> list[str]:
        """End the session: every process its commands started, then the repository guard's last look
        (after them: a process ended here may have written as it went), then the sandbox, MCP servers
        and the model. What the guard removed, in sentences for the user (also logged)."""
        if self._settling is not None and not self._settling.done():
            self._settling.cancel()  # it stops at its next batch, before the model is released below
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._settling
        await self._agent.context.processes.kill_all()  # returns once they are gone
        guard = self._agent.context.repo_guard
        removed: list[str] = []
        if guard is not None:  # a background command that wrote since the last step, or while it was ended
            removed = await asyncio.to_thread(guard.check)
            for sentence in removed:
                log.warning("%s", sentence)
        for sandbox in [*self._retired_sandboxes, self.sandbox]:
            if sandbox is not None:
                await asyncio.to_thread(sandbox.close)  # removes its temp dir
        self._retired_sandboxes = []
        if self.mcp is not None:
            await self.mcp.close()
        release, self.on_close = self.on_close, None
        if release is not None:
            await asyncio.to_thread(release)
        return removed


_SETTLED = frozenset({"end_turn", "permission_denied", "max_rounds", "max_tokens", "loop_guard"})
"""Turn endings after which the conversation stands as the next message finds it (not a cancel, an
error or a refused prompt: the history may then end half-way)."""


def _settled(task: asyncio.Task[int]) -> None:
    """A turn-end prefill that failed costs the next turn its head start only."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.debug("turn-end prefill failed: %s", exc)

