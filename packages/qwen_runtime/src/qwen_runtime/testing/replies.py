"""A scripted turn as what a server sends: the pieces of the reply, then OpenAI's SSE chunks, a
non-streamed completion, or Ollama's NDJSON lines. Framing and faults are the handler's business.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..scenario import ScriptedTurn, chunks


@dataclass(frozen=True)
class Part:
    """One streamed piece of a reply, before it is framed as SSE or NDJSON."""

    kind: str  # "reasoning" | "content" | "tool_start" | "tool_args"
    text: str = ""
    index: int = 0
    call_id: str | None = None
    name: str = ""
    arguments: dict[str, Any] | None = None


def reply_parts(turn: ScriptedTurn, size: int, new_id: Callable[[], str], with_ids: bool) -> Iterator[Part]:
    """The turn cut into `size`-character pieces; calls without an id get `new_id()`."""
    for piece in chunks(turn.reasoning, size):
        yield Part("reasoning", piece)
    for piece in chunks(turn.raw if turn.raw is not None else turn.text, size):
        yield Part("content", piece)
    for index, call in enumerate(turn.tool_calls):
        call_id = call.id or new_id()
        yield Part(
            "tool_start",
            index=index,
            name=call.name,
            arguments=call.arguments,
            call_id=call_id if with_ids else None,
        )
        for piece in chunks(json.dumps(call.arguments, ensure_ascii=False), size):
            yield Part("tool_args", piece, index=index)


def usage(body: dict[str, Any], turn: ScriptedTurn, cached: int) -> dict[str, Any]:
    """OpenAI-style usage, counting about four characters a token."""
    prompt = sum(tokens(m) for m in body.get("messages", []))
    produced = len(turn.reasoning) + len(turn.raw or turn.text)
    produced += sum(len(json.dumps(c.arguments)) + len(c.name) for c in turn.tool_calls)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": max(1, produced // 4),
        "total_tokens": prompt + max(1, produced // 4),
        "prompt_tokens_details": {"cached_tokens": min(cached, prompt)},
    }


def finish_reason(turn: ScriptedTurn) -> str:
    return turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")


def completion(
    body: dict[str, Any], turn: ScriptedTurn, cached: int, parts: Iterable[Part], model: str
) -> dict[str, Any]:
    """The whole reply as one chat.completion object (a request without `stream`)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.raw or turn.text}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    calls = [p for p in parts if p.kind == "tool_start"]
    if calls:
        message["tool_calls"] = [
            {
                "id": p.call_id,
                "type": "function",
                "function": {"name": p.name, "arguments": json.dumps(p.arguments)},
            }
            for p in calls
        ]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(turn)}],
        "usage": usage(body, turn, cached),
    }


def sse_events(
    body: dict[str, Any], turn: ScriptedTurn, cached: int, parts: Iterable[Part], model: str
) -> Iterator[dict[str, Any] | str]:
    """The `data:` payloads of a streamed reply, ending with usage (when asked for) and "[DONE]"."""
    base = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield choice({"role": "assistant", "content": ""})
    for part in parts:
        if part.kind == "reasoning":
            yield choice({"reasoning_content": part.text})
        elif part.kind == "content":
            yield choice({"content": part.text})
        elif part.kind == "tool_start":
            call: dict[str, Any] = {
                "index": part.index,
                "type": "function",
                "function": {"name": part.name, "arguments": ""},
            }
            if part.call_id is not None:
                call["id"] = part.call_id
            yield choice({"tool_calls": [call]})
        else:
            piece = {"index": part.index, "function": {"arguments": part.text}}
            yield choice({"tool_calls": [piece]})
    yield choice({}, finish_reason(turn))
    if (body.get("stream_options") or {}).get("include_usage"):
        counts = usage(body, turn, cached)
        timings = {  # llama-server's extra, so its client path is exercised too
            "prompt_n": counts["prompt_tokens"] - counts["prompt_tokens_details"]["cached_tokens"],
            "prompt_ms": 1.5,
            "predicted_n": counts["completion_tokens"],
            "predicted_ms": 10.0,
            "cache_n": counts["prompt_tokens_details"]["cached_tokens"],
        }
        yield {**base, "choices": [], "usage": counts, "timings": timings}
    yield "[DONE]"


def ollama_lines(
    body: dict[str, Any], turn: ScriptedTurn, cached: int, parts: Iterable[Part], model: str
) -> Iterator[dict[str, Any]]:
    """The NDJSON objects of Ollama's /api/chat; the last has `done` and the counts."""

    def line(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {
            "model": model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **message},
            **extra,
        }

    for part in parts:
        if part.kind == "reasoning":
            yield line({"thinking": part.text}, done=False)
        elif part.kind == "content":
            yield line({"content": part.text}, done=False)
        elif part.kind == "tool_start":
            call = {"function": {"name": part.name, "arguments": part.arguments}}
            yield line({"tool_calls": [call]}, done=False)
    counts = usage(body, turn, cached)
    yield line(
        {},
        done=True,
        done_reason="stop" if turn.finish_reason is None else turn.finish_reason,
        prompt_eval_count=counts["prompt_tokens"] - counts["prompt_tokens_details"]["cached_tokens"],
        prompt_eval_duration=1_500_000,
        eval_count=counts["completion_tokens"],
        eval_duration=10_000_000,
    )


def tokens(message: object) -> int:
    return max(1, len(json.dumps(message, ensure_ascii=False)) // 4)
