"""ChatEngine: a conversation with a local (or served) model, with tool calling.

One code path: `_run` drives a `Generation` (`_generation`), an async generator over
`runtime.astream` that yields `StreamEvent`s and ends with `Done`. The async methods consume it
directly, the sync ones step it on a private loop (`_loop`), and the non-streaming ones fold it into
a `ToolAwareResult`.

History rules: the input of a turn (user text, tool results) is recorded when the turn starts and
stays even when the generation is cancelled or fails; the reply is recorded only when it completes.
A cancelled turn leaves no assistant message (its partial reply rides on `Cancelled.partial` and
on the stream's last event, `Done`). Thinking is dropped from recorded replies unless `keep_thinking`.

Beside it: `_arguments` converts what the methods accept, `_prefill` warms a local model's cache,
`models.load_gguf_runtime` builds a runtime from a `GgufModelConfig`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from qwen_runtime.images import Image, ImageError
from qwen_runtime.runtime import Runtime
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

from ._arguments import Images, Tools, runtime_message, tool_specs
from ._generation import Generation, InFlight, Turn, collect
from ._loop import iterate_sync, run_sync
from ._prefill import aprefill_next_turn, prefill, prefill_next_turn, prefill_request
from .config import GgufModelConfig, SamplingConfig
from .errors import Busy, ImageRejected, Inference, NoModelLoaded
from .events import StreamEvent
from .history import ChatHistory
from .models import load_gguf_runtime, load_runtime
from .types import (
    ChatMessage,
    EngineInfo,
    ToolAwareResult,
    ToolResult,
)

__all__ = ["ChatEngine", "Images", "Tools"]


class ChatEngine:
    """A chat with history, tools and sampling presets over a qwen_runtime backend.

    `runtime` is a backend object, a runtime name for `onde.load_runtime`
    ("openai:http://127.0.0.1:8080/v1#qwen3", a .gguf path, ...), or None to load one later.
    """

    def __init__(
        self,
        runtime: Runtime | str | None = None,
        *,
        system_prompt: str | None = None,
        sampling: SamplingConfig | None = None,
        keep_thinking: bool = False,
        **runtime_options: Any,
    ) -> None:
        self._runtime: Runtime | None = None
        self._owns_runtime = True
        """False for a fork: the runtime is its parent's, and closing the fork leaves it loaded."""
        self._model: GgufModelConfig | None = None
        self._model_name: str | None = None
        self._system_prompt = system_prompt
        self._sampling = sampling or SamplingConfig.default()
        self._keep_thinking = keep_thinking
        self._history = ChatHistory()
        self._last_tools: tuple[ToolSpec, ...] = ()
        self._busy = threading.Lock()
        self._state = threading.Lock()
        self._current: InFlight | None = None
        if runtime is not None:
            self.load(runtime, **runtime_options)

    # ------------------------------------------------------------ model lifecycle

    def load(
        self,
        runtime: Runtime | str,
        *,
        system_prompt: str | None = None,
        sampling: SamplingConfig | None = None,
        name: str | None = None,
        **runtime_options: Any,
    ) -> float:
        """Use `runtime` (an object or a name), replacing any loaded model and resetting history.

        Returns the load time in seconds. `system_prompt` and `sampling` replace the engine's when given.
        """
        started = time.perf_counter()
        if isinstance(runtime, str):
            built = load_runtime(runtime, **runtime_options)
        elif isinstance(runtime, Runtime):
            built = runtime
        else:
            raise TypeError(f"runtime must be a qwen_runtime Runtime or a name, not {type(runtime).__name__}")
        self._install(built, name or getattr(built, "name", None), None, system_prompt, sampling)
        return time.perf_counter() - started

    async def aload(self, runtime: Runtime | str, **kwargs: Any) -> float:
        return await asyncio.to_thread(self.load, runtime, **kwargs)

    def load_gguf_model(
        self,
        config: GgufModelConfig,
        system_prompt: str | None = None,
        sampling: SamplingConfig | None = None,
    ) -> float:
        """Load a GGUF (downloading a registry model into the HF cache if needed); returns seconds taken.

        Replaces any loaded model and resets history.
        """
        started = time.perf_counter()
        runtime = load_gguf_runtime(config)
        self._install(runtime, config.name, config, system_prompt, sampling)
        return time.perf_counter() - started

    async def aload_gguf_model(
        self,
        config: GgufModelConfig,
        system_prompt: str | None = None,
        sampling: SamplingConfig | None = None,
    ) -> float:
        return await asyncio.to_thread(self.load_gguf_model, config, system_prompt, sampling)

    def _install(
        self,
        runtime: Runtime,
        name: str | None,
        config: GgufModelConfig | None,
        system_prompt: str | None,
        sampling: SamplingConfig | None,
    ) -> None:
        with self._exclusive():
            old, self._runtime = self._runtime, runtime
            owned, self._owns_runtime = self._owns_runtime, True
            self._model, self._model_name = config, name
            self._history.clear()
            self._last_tools = ()
            if system_prompt is not None:
                self._system_prompt = system_prompt
            if sampling is not None:
                self._sampling = sampling
        if old is not None and old is not runtime and owned:
            old.close()

    def unload_model(self) -> bool:
        """Free the model (history is kept); False when none was loaded. A fork only lets go of it."""
        with self._exclusive():
            old, self._runtime, self._model, self._model_name = self._runtime, None, None, None
            owned, self._owns_runtime = self._owns_runtime, True
        if old is None:
            return False
        if owned:
            old.close()
        return True

    def fork(
        self,
        system_prompt: str | None,
        *,
        sampling: SamplingConfig | None = None,
        keep_thinking: bool | None = None,
    ) -> ChatEngine:
        """A new engine on this engine's model with its own system prompt and an empty history: a
        subagent. `sampling` and `keep_thinking` default to this engine's.

        The two share one model: do not generate on both at once (a local runtime serializes the
        two generations and each evicts the other's KV cache). Closing the fork leaves the model
        loaded; unloading this engine unloads it for the fork too.
        """
        runtime = self._runtime
        if runtime is None:
            raise NoModelLoaded()
        fork = ChatEngine(
            system_prompt=system_prompt,
            sampling=sampling or self._sampling,
            keep_thinking=self._keep_thinking if keep_thinking is None else keep_thinking,
        )
        fork._runtime, fork._owns_runtime = runtime, False
        fork._model, fork._model_name = self._model, self._model_name
        return fork

    def is_loaded(self) -> bool:
        return self._runtime is not None

    @property
    def runtime(self) -> Runtime | None:
        return self._runtime

    def info(self) -> EngineInfo:
        runtime = self._runtime
        status = "not_loaded" if runtime is None else "generating" if self._busy.locked() else "ready"
        return EngineInfo(
            status=status,  # type: ignore[arg-type]
            model_name=self._model_name,
            runtime=runtime.name if runtime is not None else None,
            context_size=runtime.context_size if runtime is not None else 0,
            approx_memory_bytes=self._model.approx_memory_bytes if self._model is not None else 0,
            history_length=len(self._history),
            tool_capable=self._tool_capable(),
            model_details=runtime.model_details() if runtime is not None else (),
        )

    def _tool_capable(self) -> bool:
        runtime = self._runtime
        if runtime is None or not runtime.supports_tools:
            return False
        return self._model.tool_capable if self._model is not None else True

    def close(self) -> None:
        self.unload_model()

    def __enter__(self) -> ChatEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ settings

    @property
    def system_prompt(self) -> str | None:
        return self._system_prompt

    def set_system_prompt(self, prompt: str | None) -> None:
        """Sent first in every turn, apart from history (clear_history keeps it)."""
        self._system_prompt = prompt

    def clear_system_prompt(self) -> None:
        self._system_prompt = None

    @property
    def sampling(self) -> SamplingConfig:
        return self._sampling

    def set_sampling(self, sampling: SamplingConfig) -> None:
        if not isinstance(sampling, SamplingConfig):
            raise TypeError(f"set_sampling takes a SamplingConfig, not {type(sampling).__name__}")
        self._sampling = sampling

    @property
    def keep_thinking(self) -> bool:
        return self._keep_thinking

    def set_keep_thinking(self, keep: bool) -> None:
        """Record replies' reasoning in history (Qwen recommends not to; off by default)."""
        self._keep_thinking = keep

    # ------------------------------------------------------------ history

    def history(self) -> list[ChatMessage]:
        return [ChatMessage.from_runtime(m) for m in self._history]

    def history_messages(self) -> tuple[Message, ...]:
        """History as the runtime's message types."""
        return self._history.messages()

    def clear_history(self) -> int:
        """Forget the conversation (the system prompt stays); returns how many messages were removed."""
        with self._exclusive():
            self._last_tools = ()
            return self._history.clear()

    def push_history(self, message: ChatMessage | Message) -> None:
        """Append a message as is (works with no model loaded)."""
        converted = runtime_message(message)
        with self._exclusive():
            self._history.append(converted)

    def set_history(self, messages: Sequence[ChatMessage | Message]) -> None:
        converted = [runtime_message(m) for m in messages]
        with self._exclusive():
            self._history.replace(converted)

    def history_to_json(self, *, indent: int | None = None) -> str:
        return self._history.to_json(indent=indent)

    def history_from_json(self, text: str) -> int:
        """Replace history with a saved one; returns its length."""
        loaded = ChatHistory.from_json(text)
        with self._exclusive():
            self._history.replace(loaded.messages())
        return len(loaded)

    # ------------------------------------------------------------ conversation: sync facades

    def send_message(self, text: str, images: Images = ()) -> ToolAwareResult:
        """One turn; `images` (files, bytes, data: URLs or `Image`s) go with the text to a model that can see."""
        return run_sync(self.asend_message(text, images))

    def send_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto", images: Images = ()
    ) -> ToolAwareResult:
        return run_sync(self.asend_message_with_tools(text, tools, tool_choice=tool_choice, images=images))

    def send_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> ToolAwareResult:
        return run_sync(self.asend_tool_results(results, tools, tool_choice=tool_choice))

    def continue_reply(self, tools: Tools | None, *, tool_choice: str = "auto") -> ToolAwareResult:
        return run_sync(self.acontinue_reply(tools, tool_choice=tool_choice))

    def generate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> ToolAwareResult:
        return run_sync(self.agenerate(messages, sampling))

    def stream_message(self, text: str, images: Images = ()) -> Iterator[StreamEvent]:
        return iterate_sync(self.astream_message(text, images))

    def stream_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto", images: Images = ()
    ) -> Iterator[StreamEvent]:
        return iterate_sync(self.astream_message_with_tools(text, tools, tool_choice=tool_choice, images=images))

    def stream_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> Iterator[StreamEvent]:
        return iterate_sync(self.astream_tool_results(results, tools, tool_choice=tool_choice))

    def stream_continue_reply(self, tools: Tools | None, *, tool_choice: str = "auto") -> Iterator[StreamEvent]:
        return iterate_sync(self.astream_continue_reply(tools, tool_choice=tool_choice))

    def stream_generate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> Iterator[StreamEvent]:
        return iterate_sync(self.astream_generate(messages, sampling))

    # ------------------------------------------------------------ conversation: async

    async def asend_message(self, text: str, images: Images = ()) -> ToolAwareResult:
        return await collect(self.astream_message(text, images))

    async def asend_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto", images: Images = ()
    ) -> ToolAwareResult:
        return await collect(self.astream_message_with_tools(text, tools, tool_choice=tool_choice, images=images))

    async def asend_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> ToolAwareResult:
        return await collect(self.astream_tool_results(results, tools, tool_choice=tool_choice))

    async def acontinue_reply(self, tools: Tools | None, *, tool_choice: str = "auto") -> ToolAwareResult:
        return await collect(self.astream_continue_reply(tools, tool_choice=tool_choice))

    async def agenerate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> ToolAwareResult:
        return await collect(self.astream_generate(messages, sampling))

    def astream_message(self, text: str, images: Images = ()) -> AsyncIterator[StreamEvent]:
        return self._run(lambda: self._user_turn(text, (), "auto", images))

    def astream_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto", images: Images = ()
    ) -> AsyncIterator[StreamEvent]:
        return self._run(lambda: self._user_turn(text, tool_specs(tools), tool_choice, images))

    def astream_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamEvent]:
        return self._run(lambda: self._results_turn(results, tools, tool_choice))

    def astream_continue_reply(
        self, tools: Tools | None, *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamEvent]:
        """The model's reply to the history as it stands, nothing appended first: after a
        `ContextOverflow` the caller shortens the history (the turn's input is still in it) and asks
        again with this. `tools` as in `send_tool_results` (None: same tools in the prompt, none offered)."""
        return self._run(lambda: self._continue_turn(tools, tool_choice))

    def astream_generate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> AsyncIterator[StreamEvent]:
        def turn() -> Turn:
            converted = tuple(runtime_message(m) for m in messages)
            if not converted:
                raise ValueError("generate() needs at least one message")
            return Turn(converted, (), "auto", sampling or self._sampling, record=False)

        return self._run(turn)

    def cancel(self) -> bool:
        """Stop the generation in flight (from any thread); False when nothing was running."""
        with self._state:
            run = self._current
        if run is None:
            return False
        run.cancel()
        return True

    def prefill(self, tools: Tools = ()) -> int:
        """Evaluate the system prompt and `tools` into the model's KV cache now (while the user types),
        so the first turn, which starts with them, evaluates only the rest. Returns the tokens cached:
        0 for runtimes without a local cache (servers, scripted). Blocking; `aprefill` in async code.

        It does not take the engine's turn: a send that starts meanwhile waits for the model, it does
        not fail with `Busy`. Errors are onde's (`ContextOverflow` when the prompt alone is too long).
        """
        runtime = self._runtime
        if runtime is None:
            raise NoModelLoaded()
        system = (SystemMessage(self._system_prompt),) if self._system_prompt else ()
        specs = tool_specs(tools)
        if not system and not specs:
            return 0
        return prefill(runtime, prefill_request(system, specs, self._sampling))

    async def aprefill(self, tools: Tools = ()) -> int:
        return await asyncio.to_thread(self.prefill, tools)

    def prefill_next_turn(self, tools: Tools | None = None) -> int:
        """After a turn ended: evaluate the conversation as the next message will find it, while the user
        reads and types, and keep that state where the next turn restores it (a local model's prompt
        cache, on disk too: a session resumed by another process starts there). With Qwen 3.5's
        template this is not what the last turn left in the cache (its replies' thinking is dropped
        once another user message follows), so without it the next turn evaluates the whole last turn
        again. `tools`: the next turn's (None: the last turn's). Returns the tokens now ready; 0 for
        runtimes without a local cache, with no history, or when the cache no longer reaches the last
        user message (the tools or the system prompt changed). Blocking; `aprefill_next_turn` in
        async code, which takes the conversation as it stands when called."""
        runtime = self._runtime
        if runtime is None:
            raise NoModelLoaded()
        request = self._next_turn_request(tools)
        if request is None:
            return 0
        return prefill_next_turn(runtime, request)

    async def aprefill_next_turn(self, tools: Tools | None = None) -> int:
        """`prefill_next_turn` in a worker thread; cancelling the task stops it between batches (the
        thread returns soon after, and the model can then be closed)."""
        runtime = self._runtime
        if runtime is None:
            raise NoModelLoaded()
        request = self._next_turn_request(tools)  # the history now: a turn sent meanwhile adds to it
        if request is None:
            return 0
        return await aprefill_next_turn(runtime, request)

    def _next_turn_request(self, tools: Tools | None) -> ChatRequest | None:
        messages = self._prompt()
        if not self._history.messages():
            return None
        return prefill_request(messages, self._last_tools if tools is None else tool_specs(tools), self._sampling)

    # ------------------------------------------------------------ turns

    def _prompt(self) -> tuple[Message, ...]:
        system = (SystemMessage(self._system_prompt),) if self._system_prompt else ()
        return system + self._history.messages()

    def _check_tools(self, tools: tuple[ToolSpec, ...], tool_choice: str) -> None:
        if tools and not self._tool_capable():
            raise Inference(
                f"model {self._model_name or '(unnamed)'} does not support tool calling; "
                "load a Qwen 3 model or send without tools"
            )
        if tool_choice not in ("auto", "required", "none") and tool_choice not in {t.name for t in tools}:
            names = ", ".join(t.name for t in tools) or "none offered"
            raise ValueError(
                f"tool_choice must be 'auto', 'required', 'none' or an offered tool's name ({names}), "
                f"got {tool_choice!r}"
            )

    @property
    def can_see(self) -> bool:
        """Whether the loaded model takes images (False with no model loaded)."""
        return self._runtime is not None and self._runtime.supports_images

    def cannot_see(self) -> str:
        """Why the loaded model takes no images, for the user ("" when it does)."""
        if self._runtime is None:
            return "no model is loaded"
        return "" if self._runtime.supports_images else self._runtime.cannot_see()

    def _checked_images(self, images: Images) -> tuple[Image, ...]:
        """Images as `Image`s, each readable, for a model that can see; ImageRejected otherwise (before
        anything is added to the history)."""
        try:
            checked = tuple(Image.coerce(i) for i in images)
            if checked and not self.can_see:
                raise ImageRejected(self.cannot_see())
            for image in checked:
                image.read()
        except (ImageError, TypeError) as exc:
            raise ImageRejected(str(exc)) from exc
        return checked

    def _user_turn(self, text: str, tools: tuple[ToolSpec, ...], tool_choice: str, images: Images = ()) -> Turn:
        if not isinstance(text, str):
            raise TypeError(f"message text must be a str, not {type(text).__name__}")
        self._check_tools(tools, tool_choice)
        self._history.append(UserMessage(text, images=self._checked_images(images)))
        if tools:
            self._last_tools = tools
        return Turn(self._prompt(), tools, tool_choice, self._sampling, record=True)

    def _results_turn(self, results: Sequence[ToolResult], tools: Tools | None, tool_choice: str) -> Turn:
        if not results:
            raise ValueError("send_tool_results needs at least one ToolResult")
        pending = {call.id: call for call in self._history.last_tool_calls()}
        if not pending:
            raise ValueError("there are no tool calls to answer: the last assistant turn made none")
        messages = []
        for result in results:
            if not isinstance(result, ToolResult):
                raise TypeError(f"tool results must be ToolResult, not {type(result).__name__}")
            call = pending.get(result.tool_call_id)
            if call is None:
                raise ValueError(
                    f"tool result for unknown call id {result.tool_call_id!r}; "
                    f"the last assistant turn made {', '.join(sorted(pending))}"
                )
            images = self._checked_images(result.images) if result.images else ()
            messages.append(ToolMessage(result.tool_call_id, result.content, result.name or call.name, images=images))
        specs, tool_choice = self._offer(tools, tool_choice)
        self._history.append(*messages)
        return Turn(self._prompt(), specs, tool_choice, self._sampling, record=True)

    def _continue_turn(self, tools: Tools | None, tool_choice: str) -> Turn:
        if not self._history.messages():
            raise ValueError("there is no conversation to continue: the history is empty")
        specs, tool_choice = self._offer(tools, tool_choice)
        return Turn(self._prompt(), specs, tool_choice, self._sampling, record=True)

    def _offer(self, tools: Tools | None, tool_choice: str) -> tuple[tuple[ToolSpec, ...], str]:
        """The tools in the prompt and the choice offered. None keeps the last tool list in the prompt
        (its prefix, and the KV cache, stay valid) but offers none: the model must answer in text."""
        if tools is None:
            return self._last_tools, "none"
        specs = tool_specs(tools)
        self._check_tools(specs, tool_choice)
        self._last_tools = specs
        return specs, tool_choice

    # ------------------------------------------------------------ the one code path

    async def _run(self, prepare: Callable[[], Turn]) -> AsyncIterator[StreamEvent]:
        if not self._busy.acquire(blocking=False):
            raise Busy()
        in_flight = InFlight()
        with self._state:
            self._current = in_flight
        try:
            runtime = self._runtime
            if runtime is None:
                raise NoModelLoaded()
            turn = prepare()
            generation = Generation(runtime, turn, in_flight, self._record if turn.record else None)
            async for event in generation.events():
                yield event
        finally:
            with self._state:
                self._current = None
            self._busy.release()

    def _record(self, reply: AssistantMessage) -> None:
        """A completed reply goes into history, its thinking only when `keep_thinking`."""
        self._history.append(reply if self._keep_thinking else replace(reply, reasoning=None))

    def _exclusive(self) -> _Exclusive:
        return _Exclusive(self._busy)


class _Exclusive:
    """Holds the engine's busy lock for a state change; a running generation makes it raise Busy."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            raise Busy("a generation is running on this engine; cancel() it or wait for it to finish")

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

