"""One session tab: its chat, its prompt, its `AgentSession`, and the workers that drive them.

Workers are this widget's, so `exclusive` cancels only this tab's previous turn or open; the app
holds what is shared (the host, the status bar, the tabs).
"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical

from ...attachments import mentioned_images
from ...errors import ModelError, UsageError
from ...events import stop_sentence
from ..adapter import AsyncAdapter
from .chat import ChatLog, NoticeLine, ThinkingBlock, ToolCallBlock, UserMessage
from .input import PromptArea, PromptInput

if TYPE_CHECKING:
    from textual.worker import Worker

    from ...app import AgentSession, SessionHost
    from ...config.trust import ProjectRequests
    from ...errors import ModelNotDownloadedError
    from ...events import (
        Notice,
        PermissionAnswered,
        PermissionAsked,
        PermissionReply,
        ReasoningDelta,
        TextDelta,
        TodosUpdated,
        ToolCallRequested,
        ToolFinished,
        ToolStarted,
        TurnFinished,
        UsageUpdated,
    )
    from ...sessions import Session
    from .reply import AssistantMessage


def load_failure(name: str, exc: Exception) -> str:
    """"Could not load model NAME: why", said once: a `ModelError` says it already."""
    said = str(exc) if isinstance(exc, ModelError) else f"could not load model {name}: {exc}"
    return said[:1].upper() + said[1:]


class SessionTabs(Protocol):
    """What a session tab needs of the app that holds the tabs (`SigitApp`): the shared host, the status
    bar, the tool-call setting, and word that its session opened."""

    @property
    def tools_expanded(self) -> bool: ...

    async def load_host(self) -> SessionHost: ...

    def refresh_status(self) -> None: ...

    def session_opened(self, view: SessionView) -> None: ...


class SessionView(Vertical):
    """A conversation in a tab; opens its session in a worker once mounted."""

    def __init__(
        self,
        commands: list[tuple[str, str]],
        *,
        cwd: Path,
        session: Session | None = None,
        resume: str | None = None,
        continue_last: bool = False,
        fork: bool = False,
        model: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.commands = commands
        self.cwd = cwd
        self._to_open = session
        self._resume = resume
        self._continue_last = continue_last
        self._fork = fork
        self.model: str | None = model
        """The model this tab asked for (None: the host's or the settings' choice)."""
        self.model_name = model or "(default)"
        self.agent_session: AgentSession | None = None
        self.turn_running = False
        self.usage: UsageUpdated | None = None
        self.load_state = "Loading model…"
        self.loading = True
        """A model is loading (or downloading) for this tab now: prompts typed meanwhile are queued."""
        self.queued: list[tuple[str, str]] = []
        """Prompts (text, as shown) typed while the model loaded, sent in order once it has."""
        self._turn: Worker[None] | None = None
        self._turn_view: TurnView | None = None
        self._not_trusted: set[Path] = set()
        """Folders whose trust question this tab's user answered no: not asked again when the session reopens
        (after the first-run picker, a model switch). A yes is recorded, and asked again only if the
        folder's wants change."""

    @property
    def sigit(self) -> SessionTabs:
        return cast("SessionTabs", self.app)

    def compose(self) -> ComposeResult:
        yield ChatLog(classes="chat")
        yield PromptArea(self.commands, classes="prompt-area")

    @property
    def chat(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one(PromptInput)

    def on_mount(self) -> None:
        self.call_after_refresh(self.open_session, self._to_open, first=True)  # after the first frame

    # ------------------------------------------------------------------ opening

    @work(exclusive=True, group="session")
    async def open_session(
        self, session: Session | None = None, *, first: bool = False, remember: str | None = None
    ) -> None:
        """Open (or resume) this tab's session; `remember`: a model the user picked, saved as theirs once
        it has loaded (a download that fails leaves the settings as they were)."""
        self.loading = True
        try:
            await self._open_session(session, first=first, remember=remember)
        except asyncio.CancelledError:  # another open or a model switch took over: it sends the queue
            raise
        except BaseException:
            self.loading = False
            raise
        else:
            self.loading = False
            if self.agent_session is None and self.queued:
                count, self.queued = len(self.queued), []
                await self.notice(f"{count} queued prompt{'' if count == 1 else 's'} not sent: no model is loaded.",
                                  "warning")

    async def _open_session(self, session: Session | None, *, first: bool, remember: str | None) -> None:
        from ...errors import ModelNotDownloadedError, UsageError
        from ...sessions import SessionError

        app = self.sigit
        cwd = self.cwd
        self.load_state = f"Loading {self.model_name}…"
        app.refresh_status()
        host = await app.load_host()
        try:
            if first and self._resume:
                session = await asyncio.to_thread(
                    host.store.resolve, cwd, resume=self._resume, continue_last=False, fork=self._fork
                )
            elif first and self._continue_last:  # unlike headless, nothing to continue is not an error here
                session = await asyncio.to_thread(host.store.latest, cwd)
                if session is None:
                    await self.notice(f"No saved session for {cwd} to continue; starting a new one.",
                                      "warning")
                elif self._fork:
                    session = await asyncio.to_thread(host.store.fork, session.id)
            if session is not None:
                cwd = session.cwd
            opened = await host.open(cwd, session=session, approver=self.ask_permission, model=self.model,
                                     ask_trust=partial(self.ask_trust_once, cwd),
                                     trusted=False if cwd in self._not_trusted else None)
        except SessionError as exc:
            self.load_state = ""
            await self.notice(str(exc), "error")
            if first:
                self.open_session()
            return
        except ModelNotDownloadedError as exc:  # first start: nothing downloads before the user picks
            self.load_state = "No model downloaded"
            app.refresh_status()
            self._pick_first_model(exc, session)
            return
        except UsageError as exc:  # a settings file, a model name, a folder: what is wrong, not "the model"
            self.load_state = "Not opened: see the chat"
            await self.notice(f"Could not open the session: {exc}", "error")
            app.refresh_status()
            return
        except Exception as exc:  # a model that fails to load: say so, keep the app usable
            self.load_state = "No model: Ctrl+O picks one, /load PATH.gguf opens a file"
            await self.notice(load_failure(self.model_name, exc), "error")
            app.refresh_status()
            self._focus_prompt()
            return
        old, self.agent_session = self.agent_session, opened
        self.cwd = opened.cwd
        self.query_one(PromptArea).cwd = opened.cwd
        self.model_name = opened.session.model or host.model_name(opened.settings)
        self.load_state = ""
        self.usage = None
        if old is not None and old is not opened:
            await old.close()
        if old is None or old.id != opened.id:
            if old is not None:
                await self.chat.clear_log()
            if opened.session.messages:
                await self.chat.replay(opened.session.messages)
                await self.notice(f"Resumed session {opened.id} ({len(opened.session.messages)} messages).")
            elif old is None:  # a blank first screen: say where to start
                await self.notice("Type a prompt below and press Enter; /help lists the commands and keys.")
        self.query_one(PromptArea).set_custom(
            [(c.name, f"{c.description} {c.argument_hint}".strip()) for c in opened.commands.commands]
        )
        app.session_opened(self)
        if remember is not None:
            await self.notice(f"Loaded {self.model_name}.")
            await self._remember_model(host.config_dir, remember)
        self._send_queued()

    def _focus_prompt(self) -> None:
        """The prompt takes the focus back after a failed open, where the user types next; not from a
        dialog that is up (the first-run picker's own pop may have handed the focus elsewhere)."""
        if self.is_attached and self.app.screen is self.screen:
            self.prompt_input.focus()

    def _pick_first_model(self, refused: ModelNotDownloadedError, session: Session | None) -> None:
        """The first-run picker; a choice is remembered in the user's settings, then downloaded."""
        from .screens import ModelPicker

        needed = refused.download
        reason = (f"{needed.name} ({needed.display_name}, {needed.size_display}) is not downloaded yet, and "
                  "nothing that big is downloaded without your say-so. Pick one to download, or use a .gguf "
                  "file you already have (`/load PATH.gguf` from the prompt does the same).")

        async def picked(key: str | None) -> None:
            if key is None:
                self.load_state = "No model: Ctrl+O picks one, /load PATH.gguf opens a file"
                await self.notice(f"{refused}; or `/load PATH.gguf` opens a model file you have.", "warning")
                self.sigit.refresh_status()
                return
            host = await self.sigit.load_host()
            if key.startswith("local:"):
                key = key.removeprefix("local:")
                await self.notice(f"Opening {key}…")
            else:
                host.allow_download(key)
                await self.notice(f"Downloading {key}; it opens when the download is done, and is then "
                                  "saved as your model.")
            self.model = self.model_name = key
            self.open_session(session, remember=key)

        self.app.push_screen(ModelPicker(suggested=needed.name, reason=reason), callback=picked)

    async def _remember_model(self, config_dir: Path, key: str) -> None:
        from ...config.settings import SettingsError, save_user_setting

        try:
            path = await asyncio.to_thread(save_user_setting, config_dir, "model", key)
        except (SettingsError, OSError) as exc:
            await self.notice(f"Could not save {key} as your model: {exc}", "warning")
            return
        await self.notice(f"Saved `model = \"{key}\"` in {path}.")

    def require_session(self) -> AgentSession:
        if self.agent_session is None:
            from ...sessions import SessionError

            raise SessionError("the model is still loading")
        return self.agent_session

    def switch_model(self, name: str) -> None:
        """Move this conversation to another model (loaded in a worker); a running turn is cancelled."""
        self.cancel_turn()
        self.call_later(self.notice, f"Switching to {name}…")
        self._switch_model(name)

    @work(exclusive=True, group="session")
    async def _switch_model(self, name: str) -> None:
        (await self.sigit.load_host()).allow_download(name)  # picked by the user, size shown: it may download
        old = self.agent_session
        if old is None:  # no model loaded yet (or it failed): open the conversation on this one
            self.model = self.model_name = name
            self.open_session(remember=name)  # nothing loaded before: the user's pick becomes their model
            return
        if self._turn is not None and not self._turn.is_finished:
            with contextlib.suppress(Exception):  # its end (cancelled or failed) is all we wait for
                await self._turn.wait()
        app = self.sigit
        self.load_state = f"Loading {name}…"
        app.refresh_status()
        try:
            opened = await (await app.load_host()).switch_model(old, name)
        except Exception as exc:  # a model that fails to load: the conversation stays on the old one
            self.load_state = ""
            await self.notice(f"{load_failure(name, exc)}; still using {self.model_name}.", "error")
            app.refresh_status()
            return
        self.agent_session, self.model, self.model_name = opened, name, name
        self.load_state = ""
        self.usage = None
        app.session_opened(self)
        await self.notice(f"Loaded {name}; the conversation goes on with it.")

    # ------------------------------------------------------------------ permission prompt

    async def ask_permission(self, request: PermissionAsked) -> PermissionReply:
        """The agent's Approver: a modal, awaited; dismissed if the turn is cancelled meanwhile."""
        from ...events import PermissionReply
        from .screens import PermissionScreen

        app = self.app
        answer: asyncio.Future[PermissionReply] = asyncio.get_running_loop().create_future()
        screen = PermissionScreen(request)

        def done(reply: PermissionReply | None) -> None:
            if reply is None:  # Esc: the turn stops, not only this call
                self.cancel_turn()
                reply = PermissionReply(False, reason="the user cancelled the turn")
            if not answer.done():
                answer.set_result(reply)

        await app.push_screen(screen, callback=done)
        try:
            return await answer
        finally:
            if screen.is_attached and app.screen is screen:
                app.pop_screen()

    async def ask_trust_once(self, cwd: Path, root: Path, requests: ProjectRequests) -> bool:
        """`ask_trust`, with a no remembered for `cwd` (the folder the session opens in)."""
        trusted = await self.ask_trust(root, requests)
        if not trusted:
            self._not_trusted.add(cwd)
        return trusted

    async def ask_trust(self, root: Path, requests: ProjectRequests) -> bool:
        """The folder trust question (before the session opens): a modal, awaited."""
        from .screens import TrustScreen

        app = self.app
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        screen = TrustScreen(str(root), requests)

        def done(trust: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(trust))

        await app.push_screen(screen, callback=done)
        try:
            trusted = await answer
        finally:
            if screen.is_attached and app.screen is screen:
                app.pop_screen()
        if not trusted:
            await self.notice(f"Folder not trusted: its project hooks, MCP servers, model and permission settings "
                              f"are off for this session (`sigit trust {root}` trusts it).", "warning")
        return trusted

    # ------------------------------------------------------------------ turns

    def start_turn(self, text: str, shown: str | None = None) -> None:
        if self.agent_session is None and self.loading:
            self.queued.append((text, shown or text))
            self.call_later(self.notice, f"Queued: sent once {self.model_name} has loaded.")
            return
        if self.agent_session is None:
            self.call_later(self.notice, "No model is loaded: Ctrl+O picks one, `/load PATH.gguf` opens a model "
                            "file on this machine.", "warning")
            return
        if self.turn_running:
            self.call_later(self.notice, "A turn is running; Esc cancels it.", "warning")
            return
        self.turn_running = True
        self._turn = self.run_turn(self.agent_session, text, shown or text)

    @work(exclusive=True, group="turn")
    async def run_turn(self, session: AgentSession, text: str, shown: str) -> None:
        chat = self.chat
        self.sigit.refresh_status()
        await chat.add(UserMessage(shown))
        turn = self._turn_view = TurnView(self)
        try:
            try:
                images = await asyncio.to_thread(mentioned_images, text, session.cwd)
            except UsageError as exc:
                await self.notice(str(exc), "error")
                images = []
            async for event in session.prompt(text, images=tuple(images)):
                await turn.handle(event)
        except Exception as exc:  # the turn dies, the app does not
            await chat.add(NoticeLine(f"Turn failed: {exc}", "error"))
        finally:
            await turn.end_blocks()
            self._turn_view = None
            self.turn_running = False
            self.sigit.refresh_status()
            self.call_later(self._send_queued)

    def _send_queued(self) -> None:
        """The next prompt typed while the model loaded, once nothing runs."""
        if self.queued and self.agent_session is not None and not self.turn_running:
            text, shown = self.queued.pop(0)
            self.start_turn(text, shown)

    async def _tool_block(self, call_id: str, name: str, title: str, args: dict[str, Any]) -> ToolCallBlock:
        block = self.chat.tool_blocks.get(call_id)
        if block is None:
            block = ToolCallBlock(call_id, name, title, args)
            block.collapsed = not self.sigit.tools_expanded
            self.chat.tool_blocks[call_id] = block
            await self.chat.add(block)
        return block

    async def finished(self, event: TurnFinished) -> None:
        why = stop_sentence(event)
        if why is not None:
            await self.notice(why, "error" if event.stop_reason in ("error", "refusal") else "warning")

    async def notice(self, message: str, level: str = "info", *, markdown: bool = False) -> None:
        await self.chat.add(NoticeLine(message, level, markdown=markdown))

    def cancel_turn(self) -> bool:
        """Cancel the running turn: the agent is told, and the chat stops drawing its reply at once."""
        if self.turn_running and self.agent_session is not None:
            if self._turn_view is not None:
                self._turn_view.stop()
            self.agent_session.cancel()
            return True
        return False

    def status_parts(self) -> list[str]:
        parts = [self.model_name]
        if self.load_state:
            parts.append(self.load_state)
        if self.agent_session is not None:
            parts.append(f"mode {self.agent_session.mode}")
            parts.append(f"sandbox {self.agent_session.sandbox_mode}")
        if self.usage is not None:
            parts.append(f"tokens {self.usage.total_prompt_tokens}↑ {self.usage.total_completion_tokens}↓")
            parts.append(f"context {self.usage.context_fill:.0%} of {self.usage.context_size}")
        if self.turn_running:
            parts.append("● working (Esc cancels)")
        return parts

    async def close(self) -> list[str]:
        """Cancel what runs and close the agent session (tab closed, or the app quits); what the
        repository guard removed at the end (`AgentSession.close`)."""
        self.cancel_turn()
        if self.agent_session is not None:
            session, self.agent_session = self.agent_session, None
            return await session.close()
        return []


class TurnView(AsyncAdapter):
    """One turn's events as chat widgets: thinking and reply blocks as they stream, a block per tool call."""

    def __init__(self, view: SessionView) -> None:
        self.view = view
        self.chat = view.chat
        self.reply: AssistantMessage | None = None
        self.thinking: ThinkingBlock | None = None
        self.stopped = False
        """The turn was cancelled: text still streaming in before the agent stops is not shown."""

    def stop(self) -> None:
        self.stopped = True
        if self.reply is not None:
            self.reply.stop()

    async def end_blocks(self) -> None:
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.reply is not None:
            await self.reply.finish()
            self.reply = None

    async def handle_reasoning_delta(self, event: ReasoningDelta) -> None:
        if self.stopped:
            return
        if self.thinking is None:
            self.thinking = ThinkingBlock()
            await self.chat.add(self.thinking)
        self.thinking.add(event.text)

    async def handle_text_delta(self, event: TextDelta) -> None:
        from .reply import AssistantMessage

        if self.stopped:
            return
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.reply is None:
            self.reply = AssistantMessage()
            await self.chat.add(self.reply)
        self.reply.add(event.text)

    async def handle_tool_call_requested(self, event: ToolCallRequested) -> None:
        await self.end_blocks()
        await self.view._tool_block(event.call_id, event.name, event.title, event.arguments)

    async def handle_permission_asked(self, event: PermissionAsked) -> None:
        block = await self.view._tool_block(event.call_id, event.name, event.title, event.arguments)
        block.mark("asking")

    async def handle_permission_answered(self, event: PermissionAnswered) -> None:
        answered = self.chat.tool_blocks.get(event.call_id)
        if answered is not None and not event.allowed:
            answered.mark("denied", event.reason)

    async def handle_tool_started(self, event: ToolStarted) -> None:
        (await self.view._tool_block(event.call_id, event.name, event.title, {})).mark("running")

    async def handle_tool_finished(self, event: ToolFinished) -> None:
        block = await self.view._tool_block(event.call_id, event.name, event.name, {})
        block.finish(event.output, event.is_error, event.diff)
        if event.diff:
            block.collapsed = False

    async def handle_todos_updated(self, event: TodosUpdated) -> None:
        marks = {"completed": "[x]", "in_progress": "[~]"}
        todo = "\n".join(f"{marks.get(s, '[ ]')} {c}" for c, s in event.todos)
        await self.chat.add(NoticeLine(todo))

    async def handle_usage_updated(self, event: UsageUpdated) -> None:
        self.view.usage = event
        self.view.sigit.refresh_status()

    async def handle_notice(self, event: Notice) -> None:
        await self.chat.add(NoticeLine(event.message, event.level))

    async def handle_turn_finished(self, event: TurnFinished) -> None:
        await self.end_blocks()
        await self.view.finished(event)
