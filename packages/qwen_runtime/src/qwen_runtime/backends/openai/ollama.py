"""Ollama: detecting it, and its native /api/chat (request body and NDJSON stream).

Its OpenAI-compatible endpoint ignores a requested context size (both a top-level `num_ctx` and
`options.num_ctx`; its docs say the context cannot be set there), and it silently truncates
prompts past its small default. So when the server is Ollama (its `/api/version` answers) the
runtime talks to the native `/api/chat` instead, with `options.num_ctx` set to `n_ctx`, or when
that is not given to the model's trained context capped at 32768 tokens.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import requests

from ...errors import QwenRuntimeError, ServerError
from ...parsing import new_call_id
from ...types import (
    AssistantMessage,
    ChatRequest,
    Event,
    ReasoningDelta,
    ToolMessage,
    Usage,
    UserMessage,
    message_to_dict,
)
from .request import data_url
from .stream import MALFORMED, Decoder, call_event
from .transport import Transport

OLLAMA_DEFAULT_MAX_CTX = 32768


def probe_ollama(transport: Transport, root_url: str) -> bool:
    """Whether the server is Ollama: its /api/version answers with a version."""
    try:
        response = transport.session.get(
            f"{root_url}/api/version", headers=transport.headers(), timeout=(transport.connect_timeout, 5)
        )
        return response.status_code == 200 and "version" in response.json()
    except (requests.RequestException, ValueError):
        return False


def ollama_num_ctx(transport: Transport, root_url: str, model: Callable[[], str]) -> int:
    """The model's trained context capped at 32768 (8192 when unknown); `model` is asked lazily."""
    try:
        info = transport.get_json(f"{root_url}/api/show", {"model": model()}, retry=False)
        model_info = info.get("model_info", {}) if isinstance(info, dict) else {}
        trained = next((v for k, v in model_info.items() if k.endswith(".context_length")), 0)
    except QwenRuntimeError:
        trained = 0
    return min(int(trained), OLLAMA_DEFAULT_MAX_CTX) if trained else 8192


def ollama_body(request: ChatRequest, model: str, num_ctx: int) -> dict[str, Any]:
    s = request.sampling
    options: dict[str, Any] = {
        "num_ctx": num_ctx,
        "num_predict": s.max_tokens,
        "temperature": s.temperature,
        "top_p": s.top_p,
        "top_k": s.top_k,
        "min_p": s.min_p,
        "repeat_penalty": s.repeat_penalty,
        "presence_penalty": s.presence_penalty,
        "frequency_penalty": s.frequency_penalty,
    }
    if s.seed is not None:
        options["seed"] = s.seed
    if s.stop:
        options["stop"] = list(s.stop)
    names = {c.id: c.name for m in request.messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    messages = []
    for message in request.messages:
        out = message_to_dict(message)
        out.pop("reasoning_content", None)
        if isinstance(message, ToolMessage):
            out = {"role": "tool", "content": message.content}
            name = message.name or names.get(message.tool_call_id)
            if name:
                out["tool_name"] = name
        elif isinstance(message, AssistantMessage) and message.tool_calls:
            out["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in message.tool_calls
            ]
        elif isinstance(message, UserMessage) and message.images:
            out["images"] = [data_url(i).split(",", 1)[1] for i in message.images]
        messages.append(out)
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "stream": True,
        "think": request.enable_thinking,
        "options": options,
    }
    offered = request.offered_tools()  # Ollama has no tool_choice: offer only what may be called
    if offered:
        body["tools"] = [t.to_openai() for t in offered]
    return body


class OllamaDecoder(Decoder):
    """One JSON object a line; the last has `done` and the counts."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.calls: list[Event] = []

    def line(self, text: str) -> list[Event]:
        if not text.strip():
            return []
        try:
            chunk = json.loads(text)
        except json.JSONDecodeError:
            raise ServerError(self.url, f"sent a stream line that is not JSON: {text[:200]!r}") from None
        if not isinstance(chunk, dict):
            raise ServerError(self.url, f"sent a stream line that is not an object: {text[:200]!r}")
        if "error" in chunk:
            raise self.server_error(chunk)
        try:
            return self._chunk(chunk)
        except MALFORMED as exc:
            raise self.malformed(text, exc) from exc

    def _chunk(self, chunk: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        message = chunk.get("message") or {}
        if isinstance(message.get("thinking"), str) and message["thinking"]:
            events.append(ReasoningDelta(message["thinking"]))
        if isinstance(message.get("content"), str) and message["content"]:
            events.extend(self.content(message["content"]))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            arguments = function.get("arguments")
            raw = (
                arguments
                if isinstance(arguments, str)
                else json.dumps(arguments if arguments is not None else {})
            )
            self.calls.append(
                call_event(
                    str(call.get("id") or new_call_id()), str(function.get("name") or ""), raw, self.tools
                )
            )
        if chunk.get("done"):
            self.done = self.complete = True
            self.finish_reason = str(chunk.get("done_reason") or "stop")
            self.usage = Usage(
                prompt_tokens=int(chunk.get("prompt_eval_count") or 0),
                completion_tokens=int(chunk.get("eval_count") or 0),
                prompt_ms=(chunk.get("prompt_eval_duration") or 0) / 1e6,
                generation_ms=(chunk.get("eval_duration") or 0) / 1e6,
                context_size=self.context_size,
            )
        return events

    def pending_calls(self) -> list[Event]:
        return self.calls
