"""Prefill: a prompt evaluated into a local model's KV cache before the turn that needs it.

`ChatEngine.prefill` warms the system prompt and tools while the user types the first message;
`ChatEngine.prefill_next_turn` warms the conversation as the next turn will find it. The engine
chooses the messages and tools; this builds the request, runs it on the runtime (in a worker thread,
stopped between batches when the task is cancelled) and turns its errors into onde's.
"""

from __future__ import annotations

import asyncio
import inspect

from qwen_runtime.runtime import CancelToken, Runtime
from qwen_runtime.types import ChatRequest, Message, ToolSpec

from .config import SamplingConfig
from .errors import translate_generation_error

__all__ = ["aprefill_next_turn", "prefill", "prefill_next_turn", "prefill_request"]


def prefill_request(
    messages: tuple[Message, ...], tools: tuple[ToolSpec, ...], sampling: SamplingConfig
) -> ChatRequest:
    """The request a prefill evaluates: the prompt as a turn would send it, thinking as `sampling` sets it."""
    thinking = sampling.enable_thinking
    return ChatRequest(messages, tools=tools, enable_thinking=thinking if thinking is not None else True,
                       preserve_thinking=sampling.preserve_thinking,
                       reasoning_effort=sampling.reasoning_effort)


def prefill(runtime: Runtime, request: ChatRequest) -> int:
    """`request` evaluated into the cache; the tokens cached."""
    try:
        return runtime.prefill(request)
    except Exception as exc:
        raise translate_generation_error(exc) from exc


def prefill_next_turn(runtime: Runtime, request: ChatRequest) -> int:
    """`request` evaluated and kept where the next turn restores it; 0 for a runtime without that."""
    if not _takes_next_turn(runtime):
        return 0
    try:
        return runtime.prefill(request, next_turn=True)
    except Exception as exc:
        raise translate_generation_error(exc) from exc


async def aprefill_next_turn(runtime: Runtime, request: ChatRequest) -> int:
    """`prefill_next_turn` in a worker thread; cancelling the task stops it between batches (the
    thread returns soon after, and the model can then be closed)."""
    if not _takes_next_turn(runtime):
        return 0
    stop = CancelToken()

    def run() -> int:
        try:
            return runtime.prefill(request, next_turn=True, cancel=stop)
        except Exception as exc:
            raise translate_generation_error(exc) from exc

    running = asyncio.ensure_future(asyncio.to_thread(run))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        stop.cancel()
        await asyncio.wait((running,))  # it stops at its next batch: then nothing touches the model
        if not running.cancelled():
            running.exception()  # retrieved: an error of its own goes nowhere once cancelled
        raise


def _takes_next_turn(runtime: Runtime) -> bool:
    """Whether `runtime.prefill` takes `next_turn` and `cancel`: a runtime written before them (its own
    `prefill(request)`) has no turn-end prefill, and is not called with arguments it would refuse."""
    try:
        parameters = inspect.signature(runtime.prefill).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin or C callable
        return False
    return {"next_turn", "cancel"} <= parameters.keys() or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
