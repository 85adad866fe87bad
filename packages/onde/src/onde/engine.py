"""ChatEngine: a conversation with a local (or served) model, with tool calling.

One code path: `_run` is an async generator over `runtime.astream` that yields StreamChunks. The
async methods consume it directly, the sync ones step it on a private loop (`_loop`), and the
non-streaming ones fold it into a `ToolAwareResult`.

History rules: the input of a turn (user text, tool results) is recorded when the turn starts and
stays even when the generation is cancelled or fails; the reply is recorded only when it completes.
A cancelled turn leaves no assistant message (its partial reply rides on `Cancelled.partial` and
on the stream's last chunk). Thinking is dropped from recorded replies unless `keep_thinking`.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from qwen_runtime.runtime import CancelToken, Runtime
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Completion,
    Event,
    Finished,
    Message,
    ReasoningDelta,
    SystemMessage,
    TextDelta,
    ToolCallError,
    ToolCallEvent,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)

from ._loop import iterate_sync, run_sync
from .config import GgufModelConfig, SamplingConfig
from .errors import (
    Busy,
    Cancelled,
    Inference,
    ModelBuild,
    NoModelLoaded,
    translate_generation_error,
    translate_load_error,
)
from .history import ChatHistory
from .repetition import Loop, RepetitionGuard
from .types import (
    ChatMessage,
    EngineInfo,
    StreamChunk,
    ToolAwareResult,
    ToolCallRequest,
    ToolDefinition,
    ToolResult,
)

if TYPE_CHECKING:
    from pathlib import Path

Tools = Sequence[ToolDefinition | ToolSpec]


@dataclass(frozen=True)
class _Turn:
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: str
    sampling: SamplingConfig
    record: bool
    """Whether the reply goes into history (False for the stateless `generate`)."""


class _Run:
    """The generation in flight: what `cancel()` reaches from another thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.cancelled = False
        self._token: CancelToken | None = None

    def attach(self, token: CancelToken) -> None:
        with self._lock:
            self._token = token
            if self.cancelled:
                token.cancel()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            if self._token is not None:
                self._token.cancel()


class ChatEngine:
    """A chat with history, tools and sampling presets over a qwen_runtime backend.

    `runtime` is a backend object, a runtime name for `qwen_runtime.naming.load_runtime`
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
        self._model: GgufModelConfig | None = None
        self._model_name: str | None = None
        self._system_prompt = system_prompt
        self._sampling = sampling or SamplingConfig.default()
        self._keep_thinking = keep_thinking
        self._history = ChatHistory()
        self._last_tools: tuple[ToolSpec, ...] = ()
        self._busy = threading.Lock()
        self._state = threading.Lock()
        self._current: _Run | None = None
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
            built = self._build_named(runtime, **runtime_options)
        elif isinstance(runtime, Runtime):
            built = runtime
        else:
            raise TypeError(f"runtime must be a qwen_runtime Runtime or a name, not {type(runtime).__name__}")
        self._install(built, name or getattr(built, "name", None), None, system_prompt, sampling)
        return time.perf_counter() - started

    async def aload(self, runtime: Runtime | str, **kwargs: Any) -> float:
        return await asyncio.to_thread(self.load, runtime, **kwargs)

    @staticmethod
    def _build_named(name: str, **options: Any) -> Runtime:
        try:
            from qwen_runtime.naming import load_runtime

            return load_runtime(name, **options)
        except Exception as exc:
            raise translate_load_error(exc) from exc

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
        try:
            path: Path = config.resolve_path()
            if not path.is_file():
                raise ModelBuild(f"model file not found: {path}")
            from qwen_runtime.backends.llamacpp import LlamaCppRuntime

            runtime = LlamaCppRuntime(
                str(path),
                n_ctx=config.n_ctx,
                n_threads=config.n_threads,
                n_gpu_layers=config.n_gpu_layers,
                **config.options,
            )
        except Exception as exc:
            raise translate_load_error(exc) from exc
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
            self._model, self._model_name = config, name
            self._history.clear()
            self._last_tools = ()
            if system_prompt is not None:
                self._system_prompt = system_prompt
            if sampling is not None:
                self._sampling = sampling
        if old is not None and old is not runtime:
            old.close()

    def unload_model(self) -> bool:
        """Free the model (history is kept); False when none was loaded."""
        with self._exclusive():
            old, self._runtime, self._model, self._model_name = self._runtime, None, None, None
        if old is None:
            return False
        old.close()
        return True

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
        converted = _to_runtime_message(message)
        with self._exclusive():
            self._history.append(converted)

    def set_history(self, messages: Sequence[ChatMessage | Message]) -> None:
        converted = [_to_runtime_message(m) for m in messages]
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

    def send_message(self, text: str) -> ToolAwareResult:
        return run_sync(self.asend_message(text))

    def send_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto"
    ) -> ToolAwareResult:
        return run_sync(self.asend_message_with_tools(text, tools, tool_choice=tool_choice))

    def send_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> ToolAwareResult:
        return run_sync(self.asend_tool_results(results, tools, tool_choice=tool_choice))

    def generate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> ToolAwareResult:
        return run_sync(self.agenerate(messages, sampling))

    def stream_message(self, text: str) -> Iterator[StreamChunk]:
        return iterate_sync(self.astream_message(text))

    def stream_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto"
    ) -> Iterator[StreamChunk]:
        return iterate_sync(self.astream_message_with_tools(text, tools, tool_choice=tool_choice))

    def stream_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> Iterator[StreamChunk]:
        return iterate_sync(self.astream_tool_results(results, tools, tool_choice=tool_choice))

    def stream_generate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> Iterator[StreamChunk]:
        return iterate_sync(self.astream_generate(messages, sampling))

    # ------------------------------------------------------------ conversation: async

    async def asend_message(self, text: str) -> ToolAwareResult:
        return await _collect(self.astream_message(text))

    async def asend_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto"
    ) -> ToolAwareResult:
        return await _collect(self.astream_message_with_tools(text, tools, tool_choice=tool_choice))

    async def asend_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> ToolAwareResult:
        return await _collect(self.astream_tool_results(results, tools, tool_choice=tool_choice))

    async def agenerate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> ToolAwareResult:
        return await _collect(self.astream_generate(messages, sampling))

    def astream_message(self, text: str) -> AsyncIterator[StreamChunk]:
        return self._run(lambda: self._user_turn(text, (), "auto"))

    def astream_message_with_tools(
        self, text: str, tools: Tools, *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamChunk]:
        return self._run(lambda: self._user_turn(text, _specs(tools), tool_choice))

    def astream_tool_results(
        self, results: Sequence[ToolResult], tools: Tools | None, *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamChunk]:
        return self._run(lambda: self._results_turn(results, tools, tool_choice))

    def astream_generate(
        self, messages: Sequence[ChatMessage | Message], sampling: SamplingConfig | None = None
    ) -> AsyncIterator[StreamChunk]:
        def turn() -> _Turn:
            converted = tuple(_to_runtime_message(m) for m in messages)
            if not converted:
                raise ValueError("generate() needs at least one message")
            return _Turn(converted, (), "auto", sampling or self._sampling, record=False)

        return self._run(turn)

    def cancel(self) -> bool:
        """Stop the generation in flight (from any thread); False when nothing was running."""
        with self._state:
            run = self._current
        if run is None:
            return False
        run.cancel()
        return True

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

    def _user_turn(self, text: str, tools: tuple[ToolSpec, ...], tool_choice: str) -> _Turn:
        if not isinstance(text, str):
            raise TypeError(f"message text must be a str, not {type(text).__name__}")
        self._check_tools(tools, tool_choice)
        self._history.append(UserMessage(text))
        if tools:
            self._last_tools = tools
        return _Turn(self._prompt(), tools, tool_choice, self._sampling, record=True)

    def _results_turn(self, results: Sequence[ToolResult], tools: Tools | None, tool_choice: str) -> _Turn:
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
            messages.append(ToolMessage(result.tool_call_id, result.content, result.name or call.name))
        if tools is None:
            # keep the same tool list in the prompt (its prefix, and the KV cache, stay valid) but
            # offer none: the model must answer in text
            specs, tool_choice = self._last_tools, "none"
        else:
            specs = _specs(tools)
            self._check_tools(specs, tool_choice)
            self._last_tools = specs
        self._history.append(*messages)
        return _Turn(self._prompt(), specs, tool_choice, self._sampling, record=True)

    # ------------------------------------------------------------ the one code path

    async def _run(self, prepare: Callable[[], _Turn]) -> AsyncIterator[StreamChunk]:
        if not self._busy.acquire(blocking=False):
            raise Busy()
        run = _Run()
        with self._state:
            self._current = run
        try:
            runtime = self._runtime
            if runtime is None:
                raise NoModelLoaded()
            turn = prepare()
            async for chunk in self._generate(runtime, turn, run):
                yield chunk
        finally:
            with self._state:
                self._current = None
            self._busy.release()

    async def _generate(self, runtime: Runtime, turn: _Turn, run: _Run) -> AsyncIterator[StreamChunk]:
        started = time.perf_counter()
        sampling = turn.sampling
        thinking = sampling.enable_thinking if sampling.enable_thinking is not None else True
        budget = sampling.thinking_budget if thinking else None
        watch_budget = budget is not None and not _enforces_budget(runtime)
        request = ChatRequest(
            messages=turn.messages,
            tools=turn.tools,
            sampling=sampling.to_runtime(),
            enable_thinking=thinking,
            tool_choice=turn.tool_choice,
            thinking_budget=budget,
        )
        earlier: Completion | None = None  # the attempt the thinking budget cut short
        text_loop: Loop | None = None
        while True:
            token = CancelToken()
            run.attach(token)
            part = Completion()
            thought_tokens = 0
            over_budget = False
            text_guard, thought_guard = RepetitionGuard(), RepetitionGuard()
            thought_loop = False
            events = runtime.astream(request, token)
            try:
                async for event in events:
                    if isinstance(event, ToolCallEvent) and not event.call.id:
                        event = ToolCallEvent(replace(event.call, id=f"call_{uuid.uuid4().hex[:12]}"))
                    part.add(event)
                    if isinstance(event, TextDelta) and (looped := text_guard.feed(event.text)) is not None:
                        yield StreamChunk("text", event.text)
                        yield StreamChunk(
                            "notice",
                            f"the model kept repeating itself ({looped.repeats} times a {looped.period}-character "
                            "block); generation stopped",
                        )
                        token.cancel()
                        text_loop = looped
                        part.add(Finished("length", "the model kept repeating itself"))
                        break
                    if isinstance(event, ReasoningDelta) and thought_guard.feed(event.text) and earlier is None:
                        thought_loop = True  # like a spent thinking budget: answer without thinking
                    if isinstance(event, ReasoningDelta):
                        yield StreamChunk("reasoning", event.text)
                        if watch_budget:
                            thought_tokens += runtime.count_tokens(event.text)
                            over_budget = budget is not None and thought_tokens > budget
                    elif isinstance(event, TextDelta):
                        yield StreamChunk("text", event.text)
                    elif isinstance(event, ToolCallEvent):
                        yield StreamChunk("tool_call", tool_call=ToolCallRequest.from_runtime(event.call))
                    elif isinstance(event, ToolCallError):
                        yield StreamChunk("tool_call_error", event.message, tool_call_error=event)
                    # the producer may be far ahead of us: stop reading, not just generating
                    if run.cancelled or over_budget or thought_loop:
                        token.cancel()
                        part.add(Finished("cancelled", "generation cancelled"))
                        break
            except Exception as exc:
                raise translate_generation_error(exc) from exc
            finally:
                await _aclose(events)
            if (over_budget or thought_loop) and not run.cancelled and earlier is None:
                earlier = part
                why = ("its thinking went round in circles" if thought_loop
                       else f"thinking budget of {budget} tokens reached")
                yield StreamChunk("notice", f"{why}; the model answers without further thinking")
                request = replace(request, enable_thinking=False, thinking_budget=None)
                watch_budget = False
                continue
            break
        if part.finish_reason == "error":
            raise Inference(part.finish_detail or "the runtime reported a generation error")
        result = _result(part, earlier, time.perf_counter() - started, sampling.max_tokens)
        if result.finish_reason != "cancelled" and turn.record:
            self._history.append(
                AssistantMessage(
                    # one copy of a loop the guard stopped: the history must not teach the model the loop
                    content=result.text[: len(result.text) - text_loop.surplus] if text_loop else result.text,
                    reasoning=(result.reasoning or None) if self._keep_thinking else None,
                    tool_calls=tuple(part.tool_calls),
                )
            )
        yield StreamChunk("done", finish_reason=result.finish_reason, usage=result.usage, result=result)

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


async def _collect(chunks: AsyncIterator[StreamChunk]) -> ToolAwareResult:
    result: ToolAwareResult | None = None
    async for chunk in chunks:
        if chunk.result is not None:
            result = chunk.result
    if result is None:  # _generate always ends with a done chunk
        raise Inference("the generation ended without a result")
    if result.finish_reason == "cancelled":
        raise Cancelled(partial=result)
    return result


def _specs(tools: Tools) -> tuple[ToolSpec, ...]:
    if isinstance(tools, ToolDefinition | ToolSpec | str | dict):
        raise TypeError("tools must be a sequence of ToolDefinition, not a single tool")
    specs = []
    for tool in tools:
        if isinstance(tool, ToolDefinition):
            specs.append(tool.to_spec())
        elif isinstance(tool, ToolSpec):
            specs.append(tool)
        else:
            raise TypeError(f"tools must be ToolDefinition (or ToolSpec), not {type(tool).__name__}")
    names = [s.name for s in specs]
    if duplicates := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"tool names must be unique; repeated: {', '.join(duplicates)}")
    return tuple(specs)


def _to_runtime_message(message: ChatMessage | Message) -> Message:
    if isinstance(message, ChatMessage):
        return message.to_runtime()
    if isinstance(message, SystemMessage | UserMessage | AssistantMessage | ToolMessage):
        return message
    raise TypeError(f"expected a ChatMessage (or a qwen_runtime message), not {type(message).__name__}")


async def _aclose(events: AsyncIterator[Event]) -> None:
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        await aclose()


def _enforces_budget(runtime: Runtime) -> bool:
    """Whether the runtime closes `</think>` at `thinking_budget` itself (else the engine watches)."""
    return bool(runtime.enforces_thinking_budget)


def _merge_usage(first: Usage, second: Usage) -> Usage:
    return replace(
        second,
        completion_tokens=first.completion_tokens + second.completion_tokens,
        reasoning_tokens=first.reasoning_tokens + second.reasoning_tokens,
        prompt_ms=first.prompt_ms + second.prompt_ms,
        generation_ms=first.generation_ms + second.generation_ms,
    )


def _result(part: Completion, earlier: Completion | None, seconds: float, max_tokens: int) -> ToolAwareResult:
    reasoning = (earlier.reasoning if earlier else "") + part.reasoning
    result = ToolAwareResult(
        text=part.text,
        reasoning=reasoning,
        tool_calls=[ToolCallRequest.from_runtime(c) for c in part.tool_calls],
        tool_call_errors=list(part.tool_call_errors),
        usage=_merge_usage(earlier.usage, part.usage) if earlier else part.usage,
        duration_secs=seconds,
        finish_reason=part.finish_reason,
        thinking_truncated=earlier is not None,
    )
    return replace(result, empty_reason=_empty_reason(result, max_tokens))


def _empty_reason(result: ToolAwareResult, max_tokens: int) -> str | None:
    if result.text.strip() or result.tool_calls:
        return None
    if result.finish_reason == "cancelled":
        return "the generation was cancelled before the model answered"
    if result.tool_call_errors:
        first = result.tool_call_errors[0]
        return f"the model tried to call a tool but the call was invalid: {first.message}"
    if result.finish_reason == "length":
        if result.reasoning:
            return (
                f"the model spent all {max_tokens} tokens (max_tokens) thinking and gave no answer; "
                "raise max_tokens or set a thinking_budget"
            )
        return f"the model hit max_tokens ({max_tokens}) before answering"
    if result.reasoning:
        return "the model spent its tokens thinking and gave no answer"
    return "the model returned an empty reply"
