"""Wiring: settings, model, tools, permissions and a saved session into one `AgentSession`.

Frontends call `SessionHost.open(...)` and then `AgentSession.prompt(text)`; they never assemble the
agent themselves. One host serves many sessions (ACP) and shares one loaded model between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from onde import (
    BadModelName,
    ChatEngine,
    InferenceError,
    Runtime,
    SamplingConfig,
    ToolSpec,
    download_needed,
    load_runtime,
)

from .agent.compaction import Compactor
from .agent.hooks import HookPipeline, Refusal
from .agent.loop import Agent, Approver, deny_all
from .agent.subagent import make_task_tool
from .checkpoints import CheckpointStore
from .config.paths import config_dir as default_config_dir
from .config.paths import project_root, prompt_cache_dir
from .config.settings import Settings, load_settings
from .config.trust import ProjectRequests, is_trusted, project_requests, record_trust
from .errors import (
    BadValueError,
    ModelError,
    ModelNotDownloadedError,
    SessionBusyError,
    WorkingDirectoryError,
)
from .extensions import discover_agent_types, discover_commands, discover_skills
from .extensions.hooks import HookRunner
from .extensions.skill_tool import make_skill_tool
from .live_session import DONT_ASK, INIT_RULES, AgentSession, OpenArgs
from .options import HostOptions
from .permissions import PermissionPolicy, parse_mode
from .prompt import build_system_prompt
from .sandbox import Sandbox, SandboxPolicy, open_sandbox
from .sessions import Session, SessionStore
from .tools import (
    FileSystem,
    Todo,
    Tool,
    ToolContext,
    ToolRegistry,
    default_registry,
)
from .tools.subjects import PreparedCall

if TYPE_CHECKING:
    from onde import ModelDownload

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
        engine = self._engine(runtime, settings)
        policy = self._policy(settings, cwd, session)
        notices = [trust_notice] if trust_notice is not None else []
        notices += [f"settings: {w}" for w in settings.warnings]
        registry = _with_replacements(tools or default_registry(), replace_tools)
        if not runtime.supports_tools:
            registry = ToolRegistry([])
        else:
            notices += await self._register_extensions(cwd, registry, engine, policy)
        sandbox = await asyncio.to_thread(open_sandbox, sandbox_policy)  # probes the OS once per process
        notices += list(sandbox.warnings)
        await self._prepare_engine(engine, cwd, settings, registry, sandbox, session)
        hooks = HookRunner(settings.hooks, cwd=cwd, session_id=session.id, on_warning=notices.append)
        mcp = await self._start_mcp(cwd, settings, folder_trusted, mcp_servers, registry, notices)
        agent = Agent(
            engine=engine, tools=registry,
            context=self._tool_context(cwd, settings, session, policy, sandbox, fs, engine),
            policy=policy, approver=approver, session_id=session.id, checkpoints=_checkpoints(session, cwd),
            compactor=Compactor(settings.compaction_threshold), max_rounds=self.options.max_rounds,
            hooks=settings_hook_pipeline(hooks),
        )
        await agent.hooks.session_start()
        self._prefill_soon(engine, registry)
        commands = await asyncio.to_thread(discover_commands, cwd, self.config_dir)
        notices += [str(w) for w in commands.warnings]
        opened = AgentSession(
            session, agent, self.store, settings, mcp=mcp, notices=notices, commands=commands,
            opened_with=args, trusted=folder_trusted,
        )
        self._users[name] = self._users.get(name, 0) + 1  # counted once the session really exists
        opened.on_close = lambda: self.release(name)
        opened.flag_rules = set(self.options.allow_tools) - set(session.grants)
        return opened

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
                                  config_dir=self.config_dir, add_dirs=self.options.add_dirs)
        for rule in [*session.grants, *self.options.allow_tools]:
            policy.add_session_rule(rule, "allow")
        for rule in self.options.deny_tools:
            policy.add_session_rule(rule, "deny")
        return policy

    async def _prepare_engine(self, engine: ChatEngine, cwd: Path, settings: Settings, registry: ToolRegistry,
                              sandbox: Sandbox, session: Session) -> None:
        """The system prompt (it runs git, in the sandbox: not on the event loop) and the saved history."""
        system_prompt = await asyncio.to_thread(
            build_system_prompt, cwd, tools=registry.tools(), config_dir=self.config_dir,
            attribution=settings.attribution_trailer, sandbox=sandbox,
        )
        engine.set_system_prompt(system_prompt)
        engine.set_history(session.messages)

    async def _start_mcp(self, cwd: Path, settings: Settings, folder_trusted: bool, extra: Sequence[Any],
                         registry: ToolRegistry, notices: list[str]) -> McpManager | None:
        """The MCP servers of settings, `.mcp.json` (a trusted folder's only) and the frontend; their
        tools join the registry. None when there are none."""
        # an untrusted folder's .mcp.json starts nothing (and expands no environment variable)
        has_mcp_json = folder_trusted and await asyncio.to_thread(lambda: (project_root(cwd) / ".mcp.json").is_file())
        if not (extra or settings.mcp or has_mcp_json):
            return None
        from .extensions.mcp_client import McpManager  # the mcp SDK loads only when used

        mcp = McpManager(
            handshake_timeout=settings.mcp.get("handshake_timeout_secs", 8.0),
            call_timeout=settings.mcp.get("call_timeout_secs", 120.0),
        )
        notices += await mcp.start(cwd, settings.mcp, project_file=folder_trusted)
        if extra:
            notices += await mcp.add_servers(list(extra))
        for mcp_tool in mcp.tools():
            registry.register(mcp_tool)
        return mcp

    @staticmethod
    def _tool_context(cwd: Path, settings: Settings, session: Session, policy: PermissionPolicy,
                      sandbox: Sandbox, fs: FileSystem | None, engine: ChatEngine) -> ToolContext:
        context = ToolContext(cwd=cwd, attribution=settings.attribution_trailer, todos=_todos(session.todos),
                              host_named=policy.names_host, sandbox=sandbox, can_see=engine.can_see)
        if fs is not None:
            context.fs = fs
        return context

    def _prefill_soon(self, engine: ChatEngine, registry: ToolRegistry) -> None:
        """Evaluate the system prompt and tool schemas now, while the user types: the first turn then
        starts from the KV cache (a no-op for servers and scripted models)."""
        if not registry.names():
            return
        task = asyncio.ensure_future(asyncio.to_thread(_prefill, engine, registry.to_specs()))
        self._prefills.add(task)  # a reference, so the task is not collected mid-way
        task.add_done_callback(self._prefills.discard)

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
