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
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from onde import BadModelName, ChatEngine, InferenceError, Runtime, SamplingConfig, ToolSpec, load_runtime

from .agent.compaction import Compactor
from .agent.hooks import HookPipeline, Refusal
from .agent.loop import Agent, Approver, deny_all
from .agent.subagent import make_task_tool
from .checkpoints import CheckpointStore
from .config.paths import config_dir as default_config_dir
from .config.paths import project_root
from .config.protected import ProtectedPlaces
from .config.settings import Settings, load_settings
from .config.trust import ProjectRequests, record_trust
from .errors import (
    BadValueError,
    ModelError,
    SessionBusyError,
    WorkingDirectoryError,
)
from .extensions import CommandSet, discover_agent_types, discover_commands, discover_skills
from .extensions.hooks import HookRunner
from .extensions.skill_tool import make_skill_tool
from .live_session import DONT_ASK, INIT_RULES, AgentSession, OpenArgs
from .model_choice import (
    is_offline,
    load_options,
    model_name,
    not_downloaded_message,
    refuse_download,
    session_settings,
    trust_question,
)
from .options import HostOptions
from .permissions import PermissionPolicy, parse_mode
from .prompt import build_system_prompt
from .sandbox import RepositoryGuard, Sandbox, SandboxPolicy, open_sandbox
from .sessions import Session, SessionStore
from .tools import (
    FileSystem,
    LocalFileSystem,
    Todo,
    Tool,
    ToolContext,
    ToolRegistry,
    default_registry,
)
from .tools.base import PreparedCall

if TYPE_CHECKING:
    from .early_load import EarlyLoad
    from .extensions.mcp_client import McpManager

__all__ = [
    "DONT_ASK",
    "INIT_RULES",
    "AgentSession",
    "Approver",
    "AskTrust",
    "HookPipeline",
    "OpenArgs",
    "PreparedCall",
    "Refusal",
    "SessionHost",
    "deny_all",
    "not_downloaded_message",
    "settings_hook_pipeline",
]
"""What frontends import: sessions, and the few agent-side types they hand to one (an approver, hooks)."""

log = logging.getLogger(__name__)


AskTrust = Callable[[Path, ProjectRequests], Awaitable[bool]]
"""How a frontend asks whether to trust a folder (the project root and what it wants): True to trust."""


class SessionHost:
    """Loads models once by name and opens sessions on them."""

    def __init__(self, options: HostOptions | None = None, *, runtime: Runtime | None = None,
                 early: EarlyLoad | None = None) -> None:
        """`runtime`: every session runs on this model (tests, the eval harness); `early`: a load
        `sigit -p` started before the host existed, used when it is the model a session loads."""
        self.options = options or HostOptions()
        self.config_dir = self.options.config_dir or default_config_dir()
        self.store = SessionStore(self.config_dir / "sessions")
        self.places = ProtectedPlaces.default(self.config_dir)  # one list: policy, file tools, sandbox
        for hidden in self.options.hidden_paths:  # an eval task's checks and solutions: no tool reads them
            self.places.add(hidden, "no_read", "an eval task's hidden checks and solution")
        self._runtimes: dict[str, Runtime] = {}
        self._lock = threading.Lock()
        self._fixed_runtime = runtime
        self._early = early
        self._left_loaded: list[Runtime] = []
        self._prefills: set[asyncio.Future[int]] = set()
        self._users: dict[str, int] = {}
        """Sessions on each model, counted from the start of their open (so a load in progress is kept)."""
        self._count_lock = threading.Lock()  # _users: changed on the event loop, read in the loading thread
        self._download_allowed: set[str] = set()

    def settings(self, cwd: Path, *, trusted: bool = False) -> Settings:
        return load_settings(cwd, self.config_dir, trusted=trusted)

    def trust_question(self, cwd: Path) -> ProjectRequests | None:
        """What the folder wants, when opening a session there would ask about trust; else None
        (nothing to trust, trusted already with these parts, or `--trust`). Blocking: file reads."""
        return trust_question(cwd, self.config_dir, self.options)

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
        """The settings for a session, and whether the folder's parts are in them (model_choice.py)."""
        return session_settings(cwd, self.config_dir, self.options, trusted)

    def offline(self, settings: Settings) -> bool:
        """Whether sessions with these settings are offline (`--offline` or `offline = true`)."""
        return is_offline(self.options, settings)

    def model_name(self, settings: Settings) -> str:
        return model_name(self.options, settings)

    def runtime(self, name: str, settings: Settings) -> Runtime:
        """The loaded model for `name` (loading it on first use, or taking the early load when it is
        this model with these options; blocking: call from a thread)."""
        if self._fixed_runtime is not None:
            return self._fixed_runtime
        with self._lock:
            if name not in self._runtimes:
                self._refuse_download(name, settings)
                options = self._load_options(name, settings)
                early, self._early = self._early, None
                runtime = early.take(name, options) if early is not None else None
                try:
                    self._runtimes[name] = runtime or load_runtime(name, **options)
                except BadModelName as exc:
                    raise BadValueError(str(exc)) from exc
                except InferenceError as exc:
                    raise ModelError(f"could not load model {name}: {exc}") from exc
            return self._runtimes[name]

    def allow_download(self, name: str) -> None:
        """The user chose `name` knowing it downloads (the TUI's picker): loading it may download."""
        self._download_allowed.add(name)

    def _check_loadable(self, name: str, settings: Settings) -> None:
        """Raise now what loading `name` would raise first (a bad name, a download nobody agreed to),
        before anything of the session starts. Blocking: looks in the download cache."""
        if self._fixed_runtime is None and name not in self._runtimes:
            self._refuse_download(name, settings)

    def _refuse_download(self, name: str, settings: Settings) -> None:
        """Raise ModelNotDownloadedError when loading `name` would download a model nobody agreed to
        (or anything at all, offline)."""
        refuse_download(name, settings, self.options, self.config_dir, self._download_allowed)

    def _load_options(self, name: str, settings: Settings) -> dict[str, Any]:
        return load_options(name, settings, self.options)

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
        await asyncio.to_thread(self._check_loadable, name, settings)  # a model it will not load: nothing starts
        session = session or Session.create(cwd, name)
        registry = _with_replacements(tools or default_registry(), replace_tools)
        setup = _Setup(self._policy(settings, cwd, session), registry)
        self._reserve(name)
        try:  # the model loads in a thread while the session is set up (MCP servers, git, skills, hooks)
            runtime = await self._load_beside(name, settings, self._set_up(
                setup, cwd, settings, session, sandbox_policy, folder_trusted, mcp_servers))
        except BaseException:
            await setup.close()
            threading.Thread(target=self.release, args=(name,), name=f"release {name}").start()  # after a load
            raise
        session.model = name
        engine = self._engine(runtime, settings)
        setup.engine = engine  # the `task` tool's subagents run on it
        registry, system_prompt = setup.registry, setup.system_prompt
        if not runtime.supports_tools:  # known once loaded: no tools, and the prompt says so
            registry = ToolRegistry([])
            system_prompt = await asyncio.to_thread(self._system_prompt, cwd, settings, registry, setup.sandbox)
        for mcp_tool in setup.mcp.tools() if setup.mcp is not None else ():
            registry.register(mcp_tool)
        engine.set_system_prompt(system_prompt)
        engine.set_history(session.messages)
        notices = [*([trust_notice] if trust_notice is not None else []),
                   *(f"settings: {w}" for w in settings.warnings), *(f"model: {w}" for w in runtime.load_warnings)]
        notices += setup.notices(extensions=runtime.supports_tools)
        agent = Agent(
            engine=engine, tools=registry,
            context=self._tool_context(cwd, settings, session, setup, fs, engine),
            policy=setup.policy, approver=approver, session_id=session.id, checkpoints=_checkpoints(session, cwd),
            compactor=Compactor(settings.compaction_threshold), max_rounds=self.options.max_rounds,
            hooks=setup.hooks,
        )
        self._prefill_soon(engine, registry)
        opened = AgentSession(
            session, agent, self.store, settings, mcp=setup.mcp, notices=notices, commands=setup.commands,
            opened_with=args, trusted=folder_trusted,
        )
        opened.on_close = lambda: self.release(name)
        opened.flag_rules = set(self.options.allow_tools) - set(session.grants)
        opened.prefill_after_turn = self.options.prefill
        return opened

    async def _load_beside(self, name: str, settings: Settings, setup: Awaitable[None]) -> Runtime:
        """The model `name`, loaded in a worker thread while `setup` runs on the event loop.

        A load error is raised as it is, once the setup is cancelled; a setup error or a cancellation is
        raised without waiting for the load, which a thread cannot stop: it finishes on its own (the
        caller releases the model, which unloads it then).
        """
        started = time.perf_counter()

        async def timed_setup() -> float:
            await setup
            return time.perf_counter() - started

        loading = asyncio.ensure_future(asyncio.to_thread(self._timed_load, name, settings))
        setting_up = asyncio.ensure_future(timed_setup())
        try:
            done, _ = await asyncio.wait((loading, setting_up), return_when=asyncio.FIRST_EXCEPTION)
            if loading in done:
                loading.result()  # a load error: raised now, the setup is cancelled below
            set_up = await setting_up
            runtime = await loading
        except BaseException:
            setting_up.cancel()
            with contextlib.suppress(BaseException):
                await setting_up
            loading.add_done_callback(_retrieved)  # an error of its own goes nowhere: the open failed already
            raise
        waited = time.perf_counter() - started - set_up
        log.info("session set up in %.2f s while the model loaded; then %.2f s waiting for the model", set_up, waited)
        return runtime

    def _timed_load(self, name: str, settings: Settings) -> Runtime:
        started = time.perf_counter()
        log.info("loading model %s (beside the session's setup)", name)
        runtime = self.runtime(name, settings)
        log.info("model %s ready in %.2f s", name, time.perf_counter() - started)
        return runtime

    async def _set_up(self, setup: _Setup, cwd: Path, settings: Settings, session: Session,
                      sandbox_policy: SandboxPolicy, folder_trusted: bool, mcp_servers: Sequence[Any]) -> None:
        """What a session needs besides the model, concurrently: skills and agent types, the sandbox
        (probed once per process), the system prompt (it runs git), custom commands, MCP servers and the
        session_start hooks. Everything it opens is kept in `setup`, which closes it if the open fails."""
        runner = HookRunner(settings.hooks, cwd=cwd, session_id=session.id, on_warning=setup.hook_notices.append)
        setup.hooks = settings_hook_pipeline(runner)

        async def prompt() -> None:
            setup.extension_notices, _ = await _all(
                self._register_extensions(cwd, setup.registry, setup.engine_now, setup.policy),
                _to_the_end(setup.open_sandbox, sandbox_policy),
            )
            setup.system_prompt = await asyncio.to_thread(
                self._system_prompt, cwd, settings, setup.registry, setup.sandbox)

        async def commands() -> None:
            setup.commands = await asyncio.to_thread(discover_commands, cwd, self.config_dir)

        await _all(prompt(), commands(), self._start_mcp(setup, cwd, settings, folder_trusted, mcp_servers),
                   setup.hooks.session_start())

    # ------------------------------------------------------------------ the steps of `open`

    def _engine(self, runtime: Runtime, settings: Settings) -> ChatEngine:
        """A chat engine on the loaded model, sampling as the flags and settings say (thinking or not)."""
        thinking = self.options.thinking if self.options.thinking is not None else settings.thinking
        max_tokens = self.options.max_tokens or settings.max_tokens
        preset = SamplingConfig.qwen3_thinking if thinking else SamplingConfig.qwen3_non_thinking
        budget = settings.thinking_budget or max(1, max_tokens // 2)
        return ChatEngine(runtime, sampling=preset(max_tokens=max_tokens, thinking_budget=budget,
                                                   preserve_thinking=settings.preserve_thinking,
                                                   reasoning_effort=settings.reasoning_effort))

    def _policy(self, settings: Settings, cwd: Path, session: Session) -> PermissionPolicy:
        """The permission policy: settings, the mode flag, `--add-dir`, then the session's saved grants
        and this run's `--allow-tool`/`--deny-tool` rules."""
        mode = self.options.permission_mode
        policy = PermissionPolicy(settings, cwd, parse_mode(mode) if mode else None,
                                  config_dir=self.config_dir, add_dirs=self.options.add_dirs,
                                  offline=self.offline(settings), places=self.places)
        for rule in [*session.grants, *self.options.allow_tools]:
            policy.add_session_rule(rule, "allow")
        for rule in self.options.deny_tools:
            policy.add_session_rule(rule, "deny")
        return policy

    def _system_prompt(self, cwd: Path, settings: Settings, registry: ToolRegistry, sandbox: Sandbox | None) -> str:
        """The system prompt (it runs git, in the sandbox: blocking)."""
        return build_system_prompt(cwd, tools=registry.tools(), config_dir=self.config_dir,
                                   attribution=settings.attribution_trailer, sandbox=sandbox)

    async def _start_mcp(self, setup: _Setup, cwd: Path, settings: Settings, folder_trusted: bool,
                         extra: Sequence[Any]) -> None:
        """The MCP servers of settings, `.mcp.json` (a trusted folder's only) and the frontend, into
        `setup.mcp` (none when there are none); their tools join the registry once the model is loaded."""
        # an untrusted folder's .mcp.json starts nothing (and expands no environment variable)
        has_mcp_json = folder_trusted and await asyncio.to_thread(lambda: (project_root(cwd) / ".mcp.json").is_file())
        if not (extra or settings.mcp or has_mcp_json):
            return
        from .extensions.mcp_client import McpManager  # the mcp SDK loads only when used

        setup.mcp = McpManager(
            handshake_timeout=settings.mcp.get("handshake_timeout_secs", 8.0),
            call_timeout=settings.mcp.get("call_timeout_secs", 120.0),
            offline=self.offline(settings),
        )
        setup.mcp_notices += await setup.mcp.start(cwd, settings.mcp, project_file=folder_trusted)
        if extra:
            setup.mcp_notices += await setup.mcp.add_servers(list(extra))

    def _tool_context(self, cwd: Path, settings: Settings, session: Session, setup: _Setup, fs: FileSystem | None,
                      engine: ChatEngine) -> ToolContext:
        return ToolContext(cwd=cwd, attribution=settings.attribution_trailer, todos=_todos(session.todos),
                           host_named=setup.policy.names_host, sandbox=setup.sandbox, can_see=engine.can_see,
                           repo_guard=setup.repo_guard, places=setup.policy.places, fs=fs or LocalFileSystem(),
                           roots=setup.policy.extra_roots)

    def _prefill_soon(self, engine: ChatEngine, registry: ToolRegistry) -> None:
        """Evaluate the system prompt and tool schemas now, while the user types: the first turn then
        starts from the KV cache (a no-op for servers and scripted models)."""
        if not registry.names() or not self.options.prefill:
            return
        task = asyncio.ensure_future(asyncio.to_thread(_prefill, engine, registry.to_specs()))
        self._prefills.add(task)  # a reference, so the task is not collected mid-way
        task.add_done_callback(self._prefills.discard)

    def sandbox_policy(self, settings: Settings, cwd: Path) -> SandboxPolicy:
        """The session's sandbox: `[sandbox]` settings, `--sandbox` and `--add-dir` (UsageError if bad)."""
        policy = SandboxPolicy.from_settings(settings.sandbox, workspace=cwd, mode=self.options.sandbox_mode,
                                             add_dirs=tuple(Path(d) for d in self.options.add_dirs))
        policy = dataclasses.replace(policy, own_dirs=self.places.no_write_dirs(),
                                     protected=self.places.repository_names(), hidden=self.options.hidden_paths)
        return dataclasses.replace(policy, network=False) if self.offline(settings) else policy

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

    def _reserve(self, name: str) -> None:
        """A session is opening on model `name`: it stays loaded until `release` (the open failed, or the
        session closed)."""
        with self._count_lock:
            self._users[name] = self._users.get(name, 0) + 1

    def release(self, name: str) -> None:
        """A session on model `name` closed (or failed to open): when none is left, free the model's
        memory. Blocking: a load of `name` still running (an open given up meanwhile) is waited for."""
        with self._count_lock:
            self._users[name] = max(self._users.get(name, 0) - 1, 0)
        with self._lock, self._count_lock:  # the host lock: after a load in progress, before the next
            runtime = self._runtimes.pop(name, None) if not self._users.get(name) else None
        if runtime is None:
            return
        if not self.options.unload_on_close:  # the process ends now: its memory goes with it
            self._left_loaded.append(runtime)  # referenced: collected, the runtime would free itself
            log.info("leaving %s loaded: no session uses it, and the process ends", name)
            return
        log.info("unloading %s: no session uses it", name)
        runtime.close()

    async def _register_extensions(
        self, cwd: Path, registry: ToolRegistry, engine: Callable[[], ChatEngine], policy: PermissionPolicy
    ) -> list[str]:
        """Skills (the `skill` tool) and agent types (the `task` tool) from .sigit/, .claude/, the user dir."""
        skills, agent_types = await asyncio.gather(
            asyncio.to_thread(discover_skills, cwd, self.config_dir),
            asyncio.to_thread(discover_agent_types, cwd, self.config_dir),
        )
        offered: list[Tool[Any]] = [make_skill_tool(skills)] if skills.skills else []
        offered.append(make_task_tool(engine, agent_types, registry, sampling=lambda: engine().sampling,
                                      policy=policy))
        for tool in offered:
            if tool.name not in registry:  # a caller's own registry may bring its own
                registry.register(tool)
        return [str(w) for w in [*skills.warnings, *agent_types.warnings]]


@dataclass
class _Setup:
    """What `SessionHost.open` sets up while the model loads; `close` undoes it when the open fails."""

    policy: PermissionPolicy
    registry: ToolRegistry
    engine: ChatEngine | None = None
    sandbox: Sandbox | None = None
    repo_guard: RepositoryGuard | None = None
    system_prompt: str = ""
    hooks: HookPipeline = field(default_factory=HookPipeline)
    commands: CommandSet | None = None
    mcp: McpManager | None = None
    extension_notices: list[str] = field(default_factory=list)
    hook_notices: list[str] = field(default_factory=list)
    mcp_notices: list[str] = field(default_factory=list)

    def open_sandbox(self, policy: SandboxPolicy) -> None:
        """Open the session's sandbox (blocking: it probes the OS once per process), and note the
        workspace's repositories as they are now: what a step adds that runs code is removed."""
        self.sandbox = open_sandbox(policy)
        self.repo_guard = RepositoryGuard((policy.workspace, *policy.extra_dirs),
                                          reachable=self.sandbox.policy.writable_roots())

    def engine_now(self) -> ChatEngine:
        if self.engine is None:
            raise RuntimeError("the model is still loading")
        return self.engine

    def notices(self, *, extensions: bool) -> list[str]:
        """The setup's warnings in the order a user reads them (skills' only where tools are offered)."""
        commands = [str(w) for w in self.commands.warnings] if self.commands is not None else []
        sandbox = list(self.sandbox.warnings) if self.sandbox is not None else []
        return [*(self.extension_notices if extensions else []), *sandbox, *self.hook_notices, *self.mcp_notices,
                *commands]

    async def close(self) -> None:
        if self.mcp is not None:
            await self.mcp.close()
        if self.sandbox is not None:
            await asyncio.to_thread(self.sandbox.close)


async def _all(*steps: Awaitable[Any]) -> list[Any]:
    """`asyncio.gather`, except that when one step fails or the caller is cancelled, the others are
    cancelled and waited for (gather leaves them running): a hook's process is killed before `open` fails."""
    tasks = [asyncio.ensure_future(step) for step in steps]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
        raise


async def _to_the_end(function: Callable[..., object], *args: Any) -> None:
    """Run blocking `function` in a thread; a cancellation waits for it to return (what it opened is
    then known, and closed with the rest) before it is raised."""
    running = asyncio.ensure_future(asyncio.to_thread(function, *args))
    try:
        await asyncio.shield(running)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await running
        raise


def _retrieved(task: asyncio.Future[Any]) -> None:
    """Read a given-up task's outcome, so its error is not reported as never retrieved."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("a model load given up failed too: %s", task.exception())


def _todos(saved: list[dict[str, str]]) -> list[Todo]:
    """The saved plan, so a resumed session shows it again (entries that no longer validate are dropped)."""
    todos = []
    for entry in saved:
        with contextlib.suppress(ValueError):
            todos.append(Todo.model_validate(entry))
    return todos


def _with_replacements(registry: ToolRegistry, replacements: Sequence[Tool[Any]]) -> ToolRegistry:
    """The registry with `replacements` in the place of its tools of the same name (ACP's terminal
    `run_command`); the same registry when none applies."""
    by_name = {tool.name: tool for tool in replacements}
    if not by_name.keys() & set(registry.names()):
        return registry
    return ToolRegistry([by_name.get(tool.name, tool) for tool in registry])


def _checkpoints(session: Session, cwd: Path) -> CheckpointStore:
    return CheckpointStore.from_json(session.checkpoints, cwd) if session.checkpoints else CheckpointStore(cwd)


def settings_hook_pipeline(runner: HookRunner) -> HookPipeline:
    """A session's hook pipeline, starting with the settings hooks (`[[hooks.EVENT]]`) that are configured;
    a frontend adds its own after them (`AgentSession.hooks`)."""
    pipeline = HookPipeline()
    if runner.has("session_start"):
        pipeline.on_session_start(runner.session_start, name="session_start")
    if runner.has("user_prompt_submit"):
        pipeline.on_prompt_submit(runner.user_prompt_submit, name="user_prompt_submit")
    if runner.has("pre_tool_use"):
        pipeline.on_pre_tool(lambda _call_id, call: runner.pre_tool_use(call), name="pre_tool_use")
    if runner.has("post_tool_use"):
        pipeline.on_post_tool(lambda _call_id, call, output: runner.post_tool_use(call, output), name="post_tool_use")
    if runner.has("stop"):
        pipeline.on_stop(lambda _finished: runner.stop(), name="stop")
    return pipeline


def _prefill(engine: ChatEngine, tools: Sequence[ToolSpec]) -> int:
    try:
        return engine.prefill(tools)
    except Exception:  # a warm-up that fails costs only speed; the real turn reports real errors
        log.debug("prefill failed", exc_info=True)
        return 0
