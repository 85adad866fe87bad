"""Wiring: settings, model, tools, permissions and a saved session into one `AgentSession`.

Frontends call `SessionHost.open(...)` and then `AgentSession.prompt(text)`; they never assemble the
agent themselves. One host serves many sessions (ACP) and shares one loaded model between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from onde import (
    BadModelName,
    ChatEngine,
    Image,
    InferenceError,
    Runtime,
    SamplingConfig,
    ToolSpec,
    download_needed,
    load_runtime,
)

from .agent.compaction import Compactor
from .agent.events import AgentEvent, Notice, TurnFinished, TurnStarted
from .agent.loop import Agent, Approver, deny_all
from .agent.subagent import make_task_tool
from .checkpoints import CheckpointStore
from .config.paths import config_dir as default_config_dir
from .config.paths import project_root, prompt_cache_dir
from .config.settings import PermissionMode, Settings, load_settings
from .config.trust import ProjectRequests, is_trusted, project_requests, record_trust
from .errors import (
    BadValueError,
    ModelError,
    ModelNotDownloadedError,
    SessionBusyError,
    UsageError,
    WorkingDirectoryError,
)
from .extensions import CommandSet, discover_agent_types, discover_commands, discover_skills
from .extensions.hooks import HookRunner
from .extensions.skill_tool import make_skill_tool
from .options import HostOptions
from .permissions import PermissionPolicy, parse_mode
from .prompt import build_system_prompt
from .prompt.init_prompt import INIT_PROMPT
from .sandbox import MODES as SANDBOX_MODES
from .sandbox import Sandbox, SandboxPolicy, open_sandbox
from .sessions import Session, SessionStore
from .status import SessionStatus
from .tools import FileSystem, ProcessManager, Todo, Tool, ToolContext, ToolRegistry, default_registry

if TYPE_CHECKING:
    from onde import ModelDownload

    from .extensions.mcp_client import McpManager

log = logging.getLogger(__name__)

INIT_RULES = ("create_file(AGENTS.md)", "edit_file(AGENTS.md)", "multi_edit(AGENTS.md)")
"""What `/init` and `sigit init` allow without asking: the user asked for AGENTS.md to be written."""

AskTrust = Callable[[Path, ProjectRequests], Awaitable[bool]]
"""How a frontend asks whether to trust a folder (the project root and what it wants): True to trust."""


@dataclass(frozen=True)
class OpenArgs:
    """What a frontend opened a session with, so switching models reopens it the same way."""

    approver: Approver = deny_all
    tools: tuple[Tool[Any], ...] | None = None
    mcp_servers: tuple[Any, ...] = ()
    fs: FileSystem | None = None
    replace_tools: tuple[Tool[Any], ...] = ()
    trusted: bool | None = None


class SessionHost:
    """Loads models once by name and opens sessions on them."""

    def __init__(self, options: HostOptions | None = None, *, runtime: Runtime | None = None) -> None:
        self.options = options or HostOptions()
        self.config_dir = self.options.config_dir or default_config_dir()
        self.store = SessionStore(self.config_dir / "sessions")
        self._runtimes: dict[str, Runtime] = {}
        self._lock = threading.Lock()
        self._fixed_runtime = runtime
        self._prefills: set[asyncio.Future[int]] = set()
        self._users: dict[str, int] = {}
        self._download_allowed: set[str] = set()

    def settings(self, cwd: Path, *, trusted: bool = False) -> Settings:
        return load_settings(cwd, self.config_dir, trusted=trusted)

    def trust_question(self, cwd: Path) -> ProjectRequests | None:
        """What the folder wants, when opening a session there would ask about trust; else None
        (nothing to trust, trusted already with these parts, or `--trust`). Blocking: file reads."""
        load_settings(cwd, self.config_dir, trusted=True)  # a bad file is a SettingsError now, not after a yes
        requests = project_requests(cwd)
        if not requests or self.options.trust or is_trusted(requests, self.config_dir):
            return None
        return requests

    async def decide_trust(self, cwd: Path, ask_trust: AskTrust | None) -> bool:
        """Whether the project's own parts apply in `cwd`: asks (once, through `ask_trust`) when the
        folder wants something and was not trusted with it; a yes is recorded. No way to ask: no."""
        requests = await asyncio.to_thread(self.trust_question, cwd)
        if requests is None:
            return True
        if ask_trust is None or not await ask_trust(requests.root, requests):
            log.info("folder %s not trusted: its project hooks, MCP servers, model... are ignored", requests.root)
            return False
        await asyncio.to_thread(record_trust, requests, self.config_dir)
        return True

    def _load_settings(self, cwd: Path, trusted: bool) -> tuple[Settings, bool, str | None]:
        """The settings for a session, and whether the folder's parts are in them (and why not).

        What applies must be what was trusted: a project file that changed since the decision (while the
        user was being asked, or written by the last session's commands before a model switch) waits for
        the question again, as on the next open. Blocking: file reads.
        """
        settings = self.settings(cwd, trusted=trusted)
        if not trusted or self.options.trust:
            return settings, trusted, None
        now = project_requests(cwd)
        if not now or is_trusted(now, self.config_dir):
            return settings, True, None
        notice = (f"the project files of {now.root} changed after they were trusted, so their hooks, MCP servers, "
                  "model and permission settings are off for this session (open a session again to be asked)")
        return self.settings(cwd, trusted=False), False, notice

    def model_name(self, settings: Settings) -> str:
        return self.options.model or settings.model

    def runtime(self, name: str, settings: Settings) -> Runtime:
        """The loaded model for `name` (loading it on first use; blocking: call from a thread)."""
        if self._fixed_runtime is not None:
            return self._fixed_runtime
        with self._lock:
            if name not in self._runtimes:
                self._refuse_download(name, settings)
                try:
                    self._runtimes[name] = load_runtime(name, **self._load_options(name, settings))
                except BadModelName as exc:
                    raise BadValueError(str(exc)) from exc
                except InferenceError as exc:
                    raise ModelError(f"could not load model {name}: {exc}") from exc
            return self._runtimes[name]

    def allow_download(self, name: str) -> None:
        """The user chose `name` knowing it downloads (the TUI's picker): loading it may download."""
        self._download_allowed.add(name)

    def _refuse_download(self, name: str, settings: Settings) -> None:
        """Raise ModelNotDownloadedError when loading `name` would download a model nobody agreed to."""
        if self.options.download or settings.download == "auto" or name in self._download_allowed:
            return
        try:
            needed = download_needed(name)
        except BadModelName as exc:
            raise BadValueError(str(exc)) from exc
        if needed is not None:
            raise ModelNotDownloadedError(not_downloaded_message(needed, self.config_dir), needed)

    def _load_options(self, name: str, settings: Settings) -> dict[str, Any]:
        options = dict(self.options.runtime_options)
        report = self.options.on_download
        if report is not None:
            options["progress"] = lambda done, total: report(name, done, total)
        options.setdefault("draft", settings.draft)
        if settings.n_ctx:  # pinned; else a local GGUF's window is sized to the model and the machine
            options.setdefault("n_ctx", settings.n_ctx)
        if settings.prompt_cache:  # only llama.cpp takes these; servers keep their own prefix caches
            options.setdefault("prompt_cache_dir", str(prompt_cache_dir()))
            options.setdefault("prompt_cache_max_bytes", int(settings.prompt_cache_max_gb * 1024**3))
        if settings.gpu_layers is not None:  # else llama.cpp's GPU, when it has one, takes every layer
            options.setdefault("n_gpu_layers", settings.gpu_layers)
        if settings.mmproj:
            mmproj = settings.mmproj
            options.setdefault("mmproj", mmproj if mmproj == "none" else str(Path(mmproj).expanduser()))
        elif settings.download == "auto" or self.options.download:  # consent to fetch what seeing needs
            options.setdefault("vision", True)
        return options

    async def open(
        self,
        cwd: Path,
        *,
        session: Session | None = None,
        approver: Approver = deny_all,
        tools: ToolRegistry | None = None,
        mcp_servers: Sequence[Any] = (),
        model: str | None = None,
        fs: FileSystem | None = None,
        replace_tools: Sequence[Tool[Any]] = (),
        ask_trust: AskTrust | None = None,
        trusted: bool | None = None,
    ) -> AgentSession:
        """Open (or resume) a session in `cwd`.

        `mcp_servers` are extra servers an ACP client passed; `model` overrides the host's and the
        settings' model for this session. `fs` is how tools read and write files (ACP: through the
        editor); `replace_tools` take the place of the tools of the same name (ACP: `run_command` in
        the editor's terminal), where the session has such a tool. `ask_trust` is asked, before
        anything runs, when the folder's project files want to run code or loosen safety and the
        folder is not trusted yet; `trusted` is a decision already taken (no question).
        """
        cwd = Path(cwd).resolve()
        if not cwd.is_dir():
            raise WorkingDirectoryError(f"working directory does not exist: {cwd}")
        if trusted is None:
            trusted = await self.decide_trust(cwd, ask_trust)
        # reads TOML files: not on the event loop
        settings, folder_trusted, trust_notice = await asyncio.to_thread(self._load_settings, cwd, bool(trusted))
        args = OpenArgs(approver, tuple(tools) if tools is not None else None, tuple(mcp_servers), fs,
                        tuple(replace_tools), folder_trusted)
        sandbox_policy = self.sandbox_policy(settings, cwd)  # a bad [sandbox] table fails before the model loads
        name = model or self.model_name(settings)
        runtime = await asyncio.to_thread(self.runtime, name, settings)
        session = session or Session.create(cwd, name)
        session.model = name
        registry = tools or default_registry()
        replacements = {tool.name: tool for tool in replace_tools}
        if replacements.keys() & set(registry.names()):
            registry = ToolRegistry([replacements.get(tool.name, tool) for tool in registry])
        thinking = self.options.thinking if self.options.thinking is not None else settings.thinking
        max_tokens = self.options.max_tokens or settings.max_tokens
        preset = SamplingConfig.qwen3_thinking if thinking else SamplingConfig.qwen3_non_thinking
        budget = settings.thinking_budget or max(1, max_tokens // 2)
        engine = ChatEngine(runtime, sampling=preset(max_tokens=max_tokens, thinking_budget=budget,
                                                     preserve_thinking=settings.preserve_thinking,
                                                     reasoning_effort=settings.reasoning_effort))
        mode = self.options.permission_mode
        policy = PermissionPolicy(settings, cwd, parse_mode(mode) if mode else None,
                                  config_dir=self.config_dir, add_dirs=self.options.add_dirs)
        notices = [f"settings: {w}" for w in settings.warnings]
        if trust_notice is not None:
            notices.insert(0, trust_notice)
        if not runtime.supports_tools:
            registry = ToolRegistry([])
        else:
            notices += await self._register_extensions(cwd, registry, engine, policy)
        sandbox = await asyncio.to_thread(open_sandbox, sandbox_policy)  # probes the OS once per process
        notices += list(sandbox.warnings)
        system_prompt = await asyncio.to_thread(  # runs git (in the sandbox): not in the event loop
            build_system_prompt, cwd, tools=registry.tools(), config_dir=self.config_dir,
            attribution=settings.attribution_trailer, sandbox=sandbox,
        )
        engine.set_system_prompt(system_prompt)
        engine.set_history(session.messages)
        for rule in [*session.grants, *self.options.allow_tools]:
            policy.add_session_rule(rule, "allow")
        for rule in self.options.deny_tools:
            policy.add_session_rule(rule, "deny")
        hooks = HookRunner(settings.hooks, cwd=cwd, session_id=session.id, on_warning=notices.append)
        notices += hooks.config_warnings
        mcp = None
        # an untrusted folder's .mcp.json starts nothing (and expands no environment variable)
        has_mcp_json = folder_trusted and await asyncio.to_thread(lambda: (project_root(cwd) / ".mcp.json").is_file())
        if mcp_servers or settings.mcp or has_mcp_json:
            from .extensions.mcp_client import McpManager  # the mcp SDK loads only when used

            mcp = McpManager(
                handshake_timeout=settings.mcp.get("handshake_timeout_secs", 8.0),
                call_timeout=settings.mcp.get("call_timeout_secs", 120.0),
            )
            notices += await mcp.start(cwd, settings.mcp, project_file=folder_trusted)
            if mcp_servers:
                notices += await mcp.add_servers(list(mcp_servers))
            for mcp_tool in mcp.tools():
                registry.register(mcp_tool)
        context = ToolContext(cwd=cwd, attribution=settings.attribution_trailer, todos=_todos(session.todos),
                              host_named=policy.names_host, sandbox=sandbox, can_see=engine.can_see)
        if fs is not None:
            context.fs = fs
        checkpoints = (
            CheckpointStore.from_json(session.checkpoints, cwd) if session.checkpoints else CheckpointStore(cwd)
        )
        agent = Agent(
            engine=engine, tools=registry, context=context, policy=policy, approver=approver,
            session_id=session.id, checkpoints=checkpoints,
            compactor=Compactor(settings.compaction_threshold), max_rounds=self.options.max_rounds,
            pre_tool_hook=hooks.pre_tool_use if hooks.has("pre_tool_use") else None,
            post_tool_hook=hooks.post_tool_use if hooks.has("post_tool_use") else None,
        )
        if hooks.has("session_start"):
            await hooks.session_start()
        if registry.names():
            # evaluate the system prompt and tool schemas now, while the user types: the first turn
            # then starts from the KV cache (a no-op for servers and scripted models)
            task = asyncio.ensure_future(asyncio.to_thread(_prefill, engine, registry.to_specs()))
            self._prefills.add(task)  # a reference, so the task is not collected mid-way
            task.add_done_callback(self._prefills.discard)
        commands = await asyncio.to_thread(discover_commands, cwd, self.config_dir)
        notices += [str(w) for w in commands.warnings]
        opened = AgentSession(
            session, agent, self.store, settings, hooks=hooks, mcp=mcp, notices=notices, commands=commands,
            opened_with=args, trusted=folder_trusted,
        )
        self._users[name] = self._users.get(name, 0) + 1  # counted once the session really exists
        opened.on_close = lambda: self.release(name)
        opened.flag_rules = set(self.options.allow_tools) - set(session.grants)
        return opened

    def sandbox_policy(self, settings: Settings, cwd: Path) -> SandboxPolicy:
        """The session's sandbox: `[sandbox]` settings, `--sandbox` and `--add-dir` (UsageError if bad)."""
        return SandboxPolicy.from_settings(settings.sandbox, workspace=cwd, mode=self.options.sandbox_mode,
                                           add_dirs=tuple(Path(d) for d in self.options.add_dirs))

    async def switch_model(self, old: AgentSession, name: str) -> AgentSession:
        """`old`'s conversation reopened on model `name`, `old` closed; the one way frontends switch.

        The new session keeps the conversation, the todos and the checkpoints (through the saved
        session), the permission mode, the session's grants and rejections, the thinking switch and
        the background commands, and is opened the way `old` was (approver, file system, tools).
        If the model cannot be loaded the error is raised and `old` stays as it was.
        """
        if name == old.session.model:
            return old
        if old.running:
            raise SessionBusyError("a turn is running: wait for it (or cancel it) before switching models")
        old.save()
        saved = old.session
        previous = saved.model
        args = old.opened_with
        try:
            new = await self.open(
                old.cwd, session=saved, approver=args.approver, mcp_servers=args.mcp_servers, model=name,
                tools=ToolRegistry(args.tools) if args.tools is not None else None, fs=args.fs,
                replace_tools=args.replace_tools, trusted=old.trusted,
            )
        except BaseException:
            saved.model = previous
            raise
        new.take_over(old)
        new.save()
        try:
            await old.close()
        except Exception:
            log.exception("closing session %s on model %s failed", old.id, previous)
        log.info("session %s switched from %s to %s", new.id, previous, name)
        return new

    @property
    def loaded_models(self) -> list[str]:
        """Names of the models loaded now."""
        with self._lock:
            return list(self._runtimes)

    def release(self, name: str) -> None:
        """A session on model `name` closed: when none is left, free the model's memory."""
        left = self._users.get(name, 0) - 1
        self._users[name] = max(left, 0)
        if left > 0:
            return
        with self._lock:
            runtime = self._runtimes.pop(name, None)
        if runtime is not None:
            log.info("unloading %s: no session uses it", name)
            runtime.close()

    async def _register_extensions(
        self, cwd: Path, registry: ToolRegistry, engine: ChatEngine, policy: PermissionPolicy
    ) -> list[str]:
        """Skills (the `skill` tool) and agent types (the `task` tool) from .sigit/, .claude/, the user dir."""
        skills, agent_types = await asyncio.gather(
            asyncio.to_thread(discover_skills, cwd, self.config_dir),
            asyncio.to_thread(discover_agent_types, cwd, self.config_dir),
        )
        offered: list[Tool[Any]] = [make_skill_tool(skills)] if skills.skills else []
        offered.append(make_task_tool(lambda: engine, agent_types, registry, sampling=lambda: engine.sampling,
                                      policy=policy))
        for tool in offered:
            if tool.name not in registry:  # a caller's own registry may bring its own
                registry.register(tool)
        return [str(w) for w in [*skills.warnings, *agent_types.warnings]]


def not_downloaded_message(needed: ModelDownload, config_dir: Path) -> str:
    """Why the model does not load, and the three ways to say it may be downloaded."""
    from .config.paths import user_settings_path

    return (f"the model {needed.name} ({needed.display_name}, {needed.size_display}) is not downloaded yet, "
            f"and siGit downloads nothing that big without being asked: run `{needed.pull_command}` to download "
            f"it now, pass --download to download it for this run, or set `download = \"auto\"` in "
            f"{user_settings_path(config_dir)}")


def _todos(saved: list[dict[str, str]]) -> list[Todo]:
    """The saved plan, so a resumed session shows it again (entries that no longer validate are dropped)."""
    todos = []
    for entry in saved:
        with contextlib.suppress(ValueError):
            todos.append(Todo.model_validate(entry))
    return todos


def _prefill(engine: ChatEngine, tools: Sequence[ToolSpec]) -> int:
    try:
        return engine.prefill(tools)
    except Exception:  # a warm-up that fails costs only speed; the real turn reports real errors
        log.debug("prefill failed", exc_info=True)
        return 0


class AgentSession:
    """A session with its agent: prompt it, cancel it, rewind it; saved after every turn."""

    def __init__(
        self,
        session: Session,
        agent: Agent,
        store: SessionStore,
        settings: Settings,
        *,
        hooks: HookRunner | None = None,
        mcp: McpManager | None = None,
        notices: Sequence[str] = (),
        commands: CommandSet | None = None,
        opened_with: OpenArgs | None = None,
        trusted: bool = True,
    ) -> None:
        self.session = session
        self.agent = agent
        self.store = store
        self.settings = settings
        self.hooks = hooks
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
        self._retired_sandboxes: list[Sandbox] = []
        """Sandboxes replaced by `/sandbox`: background commands may still run in them (and their temp dirs)."""

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

    async def prompt(self, text: str, images: Sequence[Image] = ()) -> AsyncIterator[AgentEvent]:
        """One user turn; `images` go with the text (the model refuses them if it cannot see)."""
        self.running = True
        try:
            for message in self._pending_notices:
                yield Notice(message, "warning")
            self._pending_notices.clear()
            if self.hooks is not None and self.hooks.has("user_prompt_submit"):
                refusal = await self.hooks.user_prompt_submit(text)
                if refusal is not None:
                    yield TurnStarted(text, self.id)
                    yield Notice(f"Prompt blocked by a hook: {refusal}", "error")
                    yield TurnFinished("refusal", "", 0, f"blocked by a user_prompt_submit hook: {refusal}")
                    return
            async for event in self.agent.run(self.expand_command(text), images=tuple(images)):
                yield event
            if self.hooks is not None and self.hooks.has("stop"):
                await self.hooks.stop()
        finally:
            self.running = False
            await asyncio.to_thread(self.save)  # once a turn, an fsync'd write: not on the event loop

    def cancel(self) -> None:
        self.agent.cancel()

    # ------------------------------------------------------------------ what frontends may change

    @property
    def tools(self) -> ToolRegistry:
        """The tools the model is offered (frontends read them to show calls; they never change them)."""
        return self.agent.tools

    @property
    def mode(self) -> PermissionMode:
        mode: PermissionMode = self.agent.policy.mode
        return mode

    def set_mode(self, mode: str) -> PermissionMode:
        """Set the permission mode (Claude Code's names accepted); ValueError for an unknown one."""
        parsed = parse_mode(mode)
        if parsed == "plan" and self.mode != "plan":
            self.mode_before_plan = self.mode
        self.agent.policy.mode = parsed
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
        return self.agent.engine.sampling.enable_thinking is not False

    def set_thinking(self, on: bool) -> None:
        engine = self.agent.engine
        engine.set_sampling(dataclasses.replace(engine.sampling, enable_thinking=on))

    @property
    def sandbox(self) -> Sandbox | None:
        return self.agent.context.sandbox

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
        self.agent.context.sandbox = sandbox
        return sandbox

    @property
    def session_grants(self) -> list[str]:
        grants: list[str] = self.agent.policy.session_grants
        return grants

    def grant(self, rule: str) -> None:
        """Allow calls matching `rule` for the rest of the session (saved with it)."""
        self.agent.policy.add_session_rule(rule, "allow")

    def deny(self, rule: str) -> None:
        """Refuse calls matching `rule` for the rest of the session, without asking."""
        self.agent.policy.add_session_rule(rule, "deny")
        if rule not in self.denials:
            self.denials.append(rule)

    def init(self) -> str:
        """The `/init` prompt, with writing AGENTS.md allowed: the user asked for exactly that."""
        for rule in INIT_RULES:
            self.grant(rule)
        return INIT_PROMPT

    def status(self) -> SessionStatus:
        agent, perms = self.agent, self.settings.permissions
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
        )

    def take_over(self, old: AgentSession) -> None:
        """Carry what the user set in `old` (same conversation, another model) into this session."""
        self.agent.policy.mode = old.mode
        self.mode_before_plan = old.mode_before_plan
        for rule in old.session_grants:
            self.grant(rule)
        for rule in old.denials:
            self.deny(rule)
        self.flag_rules = set(old.flag_rules)
        self.set_thinking(old.thinking)
        # background commands keep running under the new session, and so does their sandbox (its mode too)
        self.agent.context.processes, old.agent.context.processes = old.agent.context.processes, ProcessManager()
        if old.sandbox is not None:
            if self.sandbox is not None:
                self.sandbox.close()
            self.agent.context.sandbox, old.agent.context.sandbox = old.sandbox, None
        self._retired_sandboxes, old._retired_sandboxes = old._retired_sandboxes, []

    def save(self) -> None:
        self.session.messages = list(self.agent.engine.history_messages())
        self.session.checkpoints = self.agent.checkpoints.to_json()
        self.session.todos = [{"content": t.content, "status": t.status} for t in self.agent.context.todos]
        self.session.grants = [g for g in self.agent.policy.session_grants if g not in self.flag_rules]
        if self.session.messages:
            self.store.save(self.session)

    def rewind(self) -> list[str]:
        """Undo the last turn's file changes (the conversation stays)."""
        restored = self.agent.checkpoints.rewind_last_turn()
        self.save()
        return restored

    async def compact(self) -> Notice:
        if self.agent.compactor is None:
            return Notice("Compaction is off.")
        notice = await self.agent.compactor.compact(self.agent.engine)
        self.save()
        return notice

    def clear(self, *, keep_id: bool = False) -> int:
        """Start a new conversation in this session's place; the old one stays saved (`/resume` brings it back).

        The new one has its own id and title, and none of the old one's checkpoints or todos. `keep_id`: an
        editor knows the session by its id (ACP), so the new conversation keeps it and the old one is saved
        under a new id instead.
        """
        self.save()
        removed = self.agent.engine.clear_history()
        old = self.session
        self.session = Session.create(old.cwd, old.model)
        self.session.grants = list(old.grants)  # "always allow for this session" still means this session
        if keep_id:
            if old.messages:
                self.store.save(dataclasses.replace(old, id=self.session.id))
                self.store.delete(old.id)
            self.session.id = old.id
        self.agent.session_id = self.session.id
        self.agent.checkpoints = CheckpointStore(old.cwd)
        self.agent.context.todos = []
        return removed

    def mcp_status(self) -> str:
        """The text of `/mcp`: servers, their state and tools."""
        if self.mcp is None:
            return "No MCP servers configured (add them to .mcp.json or [mcp.servers.NAME] in settings)."
        from .extensions.mcp_client import format_status

        return format_status(self.mcp.status())

    async def close(self) -> None:
        await self.agent.context.processes.kill_all()
        for sandbox in [*self._retired_sandboxes, self.sandbox]:
            if sandbox is not None:
                await asyncio.to_thread(sandbox.close)  # removes its temp dir
        self._retired_sandboxes = []
        if self.mcp is not None:
            await self.mcp.close()
        release, self.on_close = self.on_close, None
        if release is not None:
            await asyncio.to_thread(release)
