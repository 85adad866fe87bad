"""A model behind an OpenAI-compatible HTTP endpoint: vLLM, llama-server, SGLang, LM Studio, Ollama.

Servers differ in what they parse: some return reasoning in `reasoning_content` (or `reasoning`),
others leave `<think>` inline; some return tool calls as structured deltas, others leave
`<tool_call>` in the text. Content therefore always goes through the same `ReplyParser` the local
backends use, and reassembled tool-call arguments are repaired and validated like theirs.

Failures: 429, 5xx, refused connections and streams that break before anything was yielded are
retried with exponential backoff (honouring Retry-After); a stream that breaks after part of the
reply was yielded raises `ServerError` rather than repeating text. A read timeout is not retried:
a local server that goes quiet is usually busy, and asking again only adds to its queue. Every
error names the endpoint and carries the server's own message.

Ollama: its OpenAI-compatible endpoint ignores a requested context size (both a top-level
`num_ctx` and `options.num_ctx`; its docs say the context cannot be set there), and it silently
truncates prompts past its small default. So when the server is Ollama (its `/api/version`
answers) this backend talks to the native `/api/chat` instead, with `options.num_ctx` set to
`n_ctx`, or when that is not given to the model's trained context capped at 32768 tokens.
"""

from __future__ import annotations

import base64
import contextlib
import json
import mimetypes
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3

from ..errors import QwenRuntimeError, ServerError
from ..parsing import ReplyParser, new_call_id, repair_json, validate_call
from ..runtime import CancelToken, Runtime, cancelled_event
from ..types import (
    AssistantMessage,
    ChatRequest,
    Event,
    Finished,
    FinishReason,
    Message,
    ReasoningDelta,
    ToolCall,
    ToolCallError,
    ToolCallEvent,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
    message_to_dict,
)

OLLAMA_DEFAULT_MAX_CTX = 32768
_RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 60.0
_POLL = 0.05


class _Retryable(Exception):
    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after


class _Cancelled(Exception):
    pass


class OpenAICompatRuntime(Runtime):
    """Streams chat completions from `base_url` (".../v1"; a bare "http://host:port" gets "/v1")."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key: str | None = None,
        connect_timeout: float = 10,
        read_timeout: float = 300,
        max_retries: int = 3,
        backoff: float = 0.5,
        n_ctx: int | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        parts = urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise QwenRuntimeError(f"server URL must look like http://host:port/v1, not {base_url!r}")
        path = parts.path.rstrip("/") or "/v1"
        self.base_url = f"{parts.scheme}://{parts.netloc}{path}"
        self.root_url = f"{parts.scheme}://{parts.netloc}" + (
            path[: -len("/v1")] if path.endswith("/v1") else ""
        )
        self._port = parts.port
        self._model = model
        self.api_key = api_key if api_key is not None else (os.environ.get("OPENAI_API_KEY") or None)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_retries = max(0, max_retries)
        self.backoff = backoff
        self.n_ctx = n_ctx
        self.extra_body = dict(extra_body or {})
        self._session = requests.Session()
        self._meta_lock = threading.Lock()
        self._models: list[dict[str, Any]] | None = None
        self._ollama: bool | None = None
        self._context: int | None = None

    # ------------------------------------------------------------ server facts

    @property
    def chat_url(self) -> str:
        return f"{self.root_url}/api/chat" if self.is_ollama else f"{self.base_url}/chat/completions"

    @property
    def model(self) -> str:
        """The model argument, else the first model the server lists."""
        if self._model is None:
            models = self._list_models()
            if not models or not isinstance(models[0].get("id"), str):
                raise ServerError(f"{self.base_url}/models", "the server lists no models; pass a model name")
            self._model = str(models[0]["id"])
        return self._model

    @property
    def is_ollama(self) -> bool:
        if self._ollama is None:
            with self._meta_lock:
                if self._ollama is None:
                    self._ollama = self._probe_ollama()
        return self._ollama

    @property
    def context_size(self) -> int:
        if self._context is None:
            try:
                self._context = self._find_context()
            except (QwenRuntimeError, requests.RequestException, ValueError):
                self._context = self.n_ctx or 0
        return self._context

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _get_json(self, url: str, body: dict[str, Any] | None = None, *, retry: bool = True) -> Any:
        """A small metadata request, retried like a chat request; errors name the URL."""
        attempt = 0
        while True:
            try:
                if body is None:
                    response = self._session.get(
                        url, headers=self._headers(), timeout=(self.connect_timeout, self.read_timeout)
                    )
                else:
                    response = self._session.post(
                        url,
                        json=body,
                        headers=self._headers(),
                        timeout=(self.connect_timeout, self.read_timeout),
                    )
            except requests.RequestException as exc:
                failure = _classify(exc, self.connect_timeout, self.read_timeout)
            else:
                if response.status_code == 200:
                    try:
                        return response.json()
                    except ValueError:
                        raise ServerError(
                            url, f"answered with something that is not JSON: {response.text[:200]!r}", 200
                        ) from None
                message = _error_message(response)
                if response.status_code not in _RETRY_STATUSES:
                    raise ServerError(url, message, response.status_code)
                failure = _Retryable(message, response.status_code, _retry_after(response))
            if not retry or attempt >= self.max_retries or isinstance(failure, _ReadTimeout):
                raise ServerError(url, _gave_up(failure, attempt), failure.status)
            time.sleep(_delay(failure, self.backoff, attempt))
            attempt += 1

    def _list_models(self) -> list[dict[str, Any]]:
        if self._models is None:
            data = self._get_json(f"{self.base_url}/models")
            entries = data.get("data") if isinstance(data, dict) else None
            self._models = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
        return self._models

    def _probe_ollama(self) -> bool:
        try:
            response = self._session.get(
                f"{self.root_url}/api/version", headers=self._headers(), timeout=(self.connect_timeout, 5)
            )
            return response.status_code == 200 and "version" in response.json()
        except (requests.RequestException, ValueError):
            return False

    def _find_context(self) -> int:
        if self.n_ctx:
            return self.n_ctx
        if self.is_ollama:
            return self._ollama_num_ctx()
        entry = next((m for m in self._list_models() if m.get("id") == self.model), None)
        entry = entry or (self._list_models() or [{}])[0]
        if isinstance(entry.get("max_model_len"), int):  # vLLM: the context it serves
            return int(entry["max_model_len"])
        meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else None
        if meta is not None:  # llama-server: /props has the context it was started with
            try:
                props = self._get_json(f"{self.root_url}/props", retry=False)
                n_ctx = props.get("default_generation_settings", {}).get("n_ctx")
                if isinstance(n_ctx, int) and n_ctx > 0:
                    return n_ctx
            except (QwenRuntimeError, AttributeError):
                pass
            if isinstance(meta.get("n_ctx_train"), int):
                return int(meta["n_ctx_train"])
        return 0

    def _ollama_num_ctx(self) -> int:
        if self.n_ctx:
            return self.n_ctx
        try:
            info = self._get_json(f"{self.root_url}/api/show", {"model": self.model}, retry=False)
            model_info = info.get("model_info", {}) if isinstance(info, dict) else {}
            trained = next((v for k, v in model_info.items() if k.endswith(".context_length")), 0)
        except QwenRuntimeError:
            trained = 0
        return min(int(trained), OLLAMA_DEFAULT_MAX_CTX) if trained else 8192

    # ------------------------------------------------------------ request bodies

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON sent for `request` (to /v1/chat/completions, or Ollama's /api/chat)."""
        if self.is_ollama:
            body = _ollama_body(request, self.model, self.context_size)
        else:
            body = _openai_body(request, self.model)
        for key, value in self.extra_body.items():
            if isinstance(value, dict) and isinstance(body.get(key), dict):
                body[key] = {**body[key], **value}
            else:
                body[key] = value
        return body

    # ------------------------------------------------------------ streaming

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        token = cancel or CancelToken()
        url = self.chat_url
        body = self.request_body(request)
        attempt = 0
        yielded = False
        while True:
            decoder: _Decoder = (
                _OllamaDecoder(request, url, self.context_size)
                if self.is_ollama
                else _SSEDecoder(request, url, self.context_size)
            )
            try:
                for event in self._attempt(url, body, decoder, token):
                    yielded = True
                    yield event
                return
            except _Cancelled:
                yield cancelled_event()
                return
            except _Retryable as failure:
                if yielded:
                    raise ServerError(
                        url,
                        f"{failure.message} after part of the reply had arrived; not retried, "
                        "so that the partial reply is not repeated",
                        failure.status,
                    ) from None
                if attempt >= self.max_retries:
                    raise ServerError(url, _gave_up(failure, attempt), failure.status) from None
                if token.wait(_delay(failure, self.backoff, attempt)):
                    yield cancelled_event()
                    return
                attempt += 1

    def _attempt(
        self, url: str, body: dict[str, Any], decoder: _Decoder, cancel: CancelToken
    ) -> Iterator[Event]:
        """One HTTP request. Reading happens in a thread so a cancel never waits on the socket."""
        items: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()
        holder: list[requests.Response] = []

        def produce() -> None:
            try:
                response = self._session.post(
                    url,
                    json=body,
                    headers={**self._headers(), "Accept": "text/event-stream"},
                    stream=True,
                    timeout=(self.connect_timeout, self.read_timeout),
                )
            except Exception as exc:
                items.put(("error", exc))
                return
            holder.append(response)
            try:
                if stop.is_set():
                    return
                if response.status_code != 200:
                    status = response.status_code
                    items.put(("status", (status, _error_message(response), _retry_after(response))))
                    return
                chunked = bool(getattr(response.raw, "chunked", False))
                for line in response.iter_lines(chunk_size=8192 if chunked else 1):
                    if stop.is_set():
                        return
                    items.put(("line", line))
                items.put(("end", None))
            except Exception as exc:  # every failure reaches the consumer, which must never wait forever
                items.put(("error", exc))
            finally:
                response.close()

        thread = threading.Thread(target=produce, name="openai-compat-read", daemon=True)
        thread.start()
        finished = False
        try:
            while True:
                try:
                    kind, value = items.get(timeout=_POLL)
                except queue.Empty:
                    if cancel.cancelled:
                        raise _Cancelled from None
                    if not thread.is_alive() and items.empty():
                        raise _Retryable("the reader stopped without a result") from None
                    continue
                if cancel.cancelled:
                    raise _Cancelled
                if kind == "line":
                    yield from decoder.line(value.decode("utf-8", errors="replace"))
                    if decoder.done:
                        finished = True  # the reader drains the rest; the connection stays reusable
                        yield from decoder.finish()
                        return
                elif kind == "end":
                    if not decoder.complete:
                        raise _Retryable("the stream ended before the reply was complete")
                    finished = True
                    yield from decoder.finish()
                    return
                elif kind == "status":
                    status, message, retry_after = value
                    if status in _RETRY_STATUSES:
                        raise _Retryable(message, status, retry_after)
                    raise ServerError(url, _explain(message, status), status)
                else:
                    failure = _classify(value, self.connect_timeout, self.read_timeout)
                    if isinstance(failure, _ReadTimeout):
                        raise ServerError(url, failure.message)
                    raise failure
        finally:
            if not finished:
                stop.set()
                if holder:
                    _abort(holder[0])

    def close(self) -> None:
        self._session.close()


# ---------------------------------------------------------------- bodies


def _openai_body(request: ChatRequest, model: str) -> dict[str, Any]:
    s = request.sampling
    body: dict[str, Any] = {
        "model": model,
        "messages": [_openai_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": s.temperature,
        "top_p": s.top_p,
        "max_tokens": s.max_tokens,
        "presence_penalty": s.presence_penalty,
        "frequency_penalty": s.frequency_penalty,
        # not OpenAI's, but vLLM, SGLang and llama-server read them from the body
        "top_k": s.top_k,
        "min_p": s.min_p,
        "repeat_penalty": s.repeat_penalty,
        "chat_template_kwargs": {"enable_thinking": request.enable_thinking},
    }
    if s.seed is not None:
        body["seed"] = s.seed
    if s.stop:
        body["stop"] = list(s.stop)
    if request.tools:
        body["tools"] = [t.to_openai() for t in request.tools]
        body["tool_choice"] = _tool_choice(request.tool_choice, request.tools)
    return body


def _tool_choice(choice: str, tools: tuple[ToolSpec, ...]) -> str | dict[str, Any]:
    if choice in ("auto", "required", "none"):
        return choice
    if not any(t.name == choice for t in tools):
        raise QwenRuntimeError(
            f"tool_choice names the tool {choice!r}, which is not among the offered tools "
            f"({', '.join(t.name for t in tools)})"
        )
    return {"type": "function", "function": {"name": choice}}


def _openai_message(message: Message) -> dict[str, Any]:
    out = message_to_dict(message)
    out.pop("reasoning_content", None)  # never re-sent: templates drop it and servers may reject it
    if isinstance(message, AssistantMessage) and message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}}
            for c in message.tool_calls
        ]
    if isinstance(message, UserMessage) and message.images:
        out["content"] = [{"type": "text", "text": message.content}] + [
            {"type": "image_url", "image_url": {"url": _data_url(image)}} for image in message.images
        ]
    return out


def _ollama_body(request: ChatRequest, model: str, num_ctx: int) -> dict[str, Any]:
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
            out["images"] = [_data_url(i).split(",", 1)[1] for i in message.images]
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


def _data_url(image: str) -> str:
    if image.startswith("data:"):
        return image
    path = Path(image)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise QwenRuntimeError(f"cannot read image {image}: {exc.strerror}") from None
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


# ---------------------------------------------------------------- decoding


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class _Decoder:
    """Turns one response's lines into events; `finish()` emits what waits for the end."""

    request: ChatRequest
    url: str
    context_size: int
    done: bool = False
    complete: bool = False
    finish_reason: str | None = None
    saw_tool_call: bool = False
    started: float = field(default_factory=time.perf_counter)
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self.tools = self.request.offered_tools()
        self.parser = ReplyParser(self.tools, id_factory=new_call_id)

    def line(self, text: str) -> list[Event]:
        raise NotImplementedError

    def content(self, text: str) -> list[Event]:
        events = self.parser.feed(text)
        self.saw_tool_call |= any(isinstance(e, ToolCallEvent | ToolCallError) for e in events)
        return events

    def pending_calls(self) -> list[Event]:
        return []

    def finish(self) -> list[Event]:
        events = self.parser.finish() + self.pending_calls()
        self.saw_tool_call |= any(isinstance(e, ToolCallEvent | ToolCallError) for e in events)
        reason: FinishReason
        if self.finish_reason == "length":
            reason = "length"
        elif self.saw_tool_call or self.finish_reason in ("tool_calls", "function_call"):
            reason = "tool_calls"
        else:
            reason = "stop"
        detail = (
            self.finish_reason if self.finish_reason not in (None, "stop", "length", "tool_calls") else ""
        )
        usage = self.usage
        if not usage.generation_ms:
            usage = Usage(
                **{**_usage_fields(usage), "generation_ms": (time.perf_counter() - self.started) * 1000}
            )
        return [*events, usage, Finished(reason, detail or "")]

    def server_error(self, payload: Any) -> ServerError:
        error = payload.get("error") if isinstance(payload, dict) else payload
        message = error.get("message") if isinstance(error, dict) else error
        return ServerError(self.url, f"the server reported an error mid-stream: {message}")


def _usage_fields(usage: Usage) -> dict[str, Any]:
    return {k: v for k, v in usage.to_dict().items()}


class _SSEDecoder(_Decoder):
    def __post_init__(self) -> None:
        super().__post_init__()
        self.calls: dict[int, _PendingCall] = {}

    def line(self, text: str) -> list[Event]:
        text = text.strip()
        if not text or text.startswith(":"):
            return []
        if text.startswith("data:"):
            payload = text[5:].strip()
        elif text.startswith(("event:", "id:", "retry:")):
            return []
        else:
            payload = text  # a bare JSON line (some servers send errors so)
        if payload == "[DONE]":
            self.done = self.complete = True
            return []
        try:
            chunk = json.loads(payload)
        except json.JSONDecodeError:
            raise ServerError(self.url, f"sent a stream line that is not JSON: {payload[:200]!r}") from None
        if not isinstance(chunk, dict):
            raise ServerError(self.url, f"sent a stream chunk that is not an object: {payload[:200]!r}")
        if "error" in chunk:
            raise self.server_error(chunk)
        self._read_usage(chunk)
        events: list[Event] = []
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or choice.get("message") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events.append(ReasoningDelta(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                events.extend(self.content(content))
            for piece in delta.get("tool_calls") or []:
                self._add_call_piece(piece)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
                self.complete = True
        return events

    def _add_call_piece(self, piece: dict[str, Any]) -> None:
        function = piece.get("function") or {}
        index = piece.get("index")
        if not isinstance(index, int):  # no index: a new call when it names itself, else the last one
            starts = bool(piece.get("id") or function.get("name"))
            index = len(self.calls) if starts or not self.calls else max(self.calls)
        call = self.calls.setdefault(index, _PendingCall())
        if piece.get("id"):
            call.id = str(piece["id"])
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments += arguments
        elif isinstance(arguments, dict):
            call.arguments = json.dumps(arguments)

    def pending_calls(self) -> list[Event]:
        return [
            _call_event(call.id or new_call_id(), call.name, call.arguments, self.tools)
            for _, call in sorted(self.calls.items())
        ]

    def _read_usage(self, chunk: dict[str, Any]) -> None:
        usage = chunk.get("usage")
        timings = chunk.get("timings")
        if not isinstance(usage, dict) and not isinstance(timings, dict):
            return
        fields = _usage_fields(self.usage)
        fields["context_size"] = self.context_size
        if isinstance(usage, dict):
            fields["prompt_tokens"] = int(usage.get("prompt_tokens") or 0)
            fields["completion_tokens"] = int(usage.get("completion_tokens") or 0)
            cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
            if cached is not None:
                fields["cached_prompt_tokens"] = int(cached)
            reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
            if reasoning is not None:
                fields["reasoning_tokens"] = int(reasoning)
        if isinstance(timings, dict):  # llama-server
            fields["prompt_ms"] = float(timings.get("prompt_ms") or 0.0)
            fields["generation_ms"] = float(timings.get("predicted_ms") or 0.0)
            if not fields["cached_prompt_tokens"] and timings.get("cache_n"):
                fields["cached_prompt_tokens"] = int(timings["cache_n"])
        self.usage = Usage(**fields)


class _OllamaDecoder(_Decoder):
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
                _call_event(
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


def _call_event(call_id: str, name: str, raw: str, tools: tuple[ToolSpec, ...]) -> Event:
    """A reassembled call: arguments parsed (repaired when the damage is unambiguous) and validated."""
    text = raw.strip() or "{}"
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError:
        try:
            value, _repairs = repair_json(text)
        except (ValueError, QwenRuntimeError) as exc:
            return ToolCallError(
                raw=raw,
                message=f"arguments of {name or 'a tool call'} are not valid JSON: {exc}",
                name=name or None,
                id=call_id,
            )
    if isinstance(value, str):  # some servers double-encode the arguments
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(value)
    if not name:
        return ToolCallError(raw=raw, message="tool call without a function name", id=call_id)
    if not isinstance(value, dict):
        return ToolCallError(
            raw=raw,
            message=f"arguments of {name} must be a JSON object, got {text[:80]}",
            name=name,
            id=call_id,
        )
    problem = validate_call(name, value, tools)
    if problem:
        return ToolCallError(raw=raw, message=problem, name=name, id=call_id)
    return ToolCallEvent(ToolCall(id=call_id, name=name, arguments=value))


# ---------------------------------------------------------------- failures


def _classify(exc: BaseException, connect_timeout: float, read_timeout: float) -> _Retryable:
    """A requests/urllib3 failure as a retryable one, or a final ServerError-to-be message."""
    inner = exc.args[0] if exc.args else None
    if isinstance(exc, requests.ConnectTimeout):
        return _Retryable(f"no connection within {connect_timeout:g} s (connect timeout)")
    if isinstance(exc, requests.ReadTimeout | urllib3.exceptions.ReadTimeoutError) or isinstance(
        inner, urllib3.exceptions.ReadTimeoutError
    ):
        return _ReadTimeout(
            f"no data for {read_timeout:g} s (read timeout); the server may be busy "
            "or stuck: raise read_timeout if it is just slow"
        )
    if isinstance(exc, requests.exceptions.ChunkedEncodingError | urllib3.exceptions.ProtocolError):
        return _Retryable(f"the connection broke mid-stream ({_short(exc)})")
    if isinstance(exc, requests.ConnectionError):
        return _Retryable(f"cannot connect ({_short(exc)})")
    return _Retryable(f"request failed ({_short(exc)})")


class _ReadTimeout(_Retryable):
    """Final, not retried (see the module docstring)."""


def _short(exc: BaseException) -> str:
    text = str(exc)
    for marker in (
        "Connection refused",
        "Name or service not known",
        "Connection reset",
        "IncompleteRead",
        "Response ended prematurely",
        "Connection aborted",
    ):
        if marker in text:
            return marker
    return text[:200]


def _error_message(response: requests.Response) -> str:
    """The server's own words: OpenAI's error.message, Ollama's error, FastAPI's detail, or the text."""
    try:
        text = response.text
    except requests.RequestException:
        text = ""
    message: Any = None
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        message = message or payload.get("detail") or payload.get("message")
    message = str(message) if message else (text.strip()[:300] or response.reason or "no details")
    return f"HTTP {response.status_code}: {message}"


def _explain(message: str, status: int) -> str:
    if status == 401:
        return f"{message} (set OPENAI_API_KEY or the api_key for this server)"
    if status == 404:
        return f"{message} (is the URL right? it should end in /v1; is the model name right?)"
    return message


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _delay(failure: _Retryable, backoff: float, attempt: int) -> float:
    if failure.retry_after is not None:
        return min(failure.retry_after, _MAX_RETRY_AFTER)
    return float(backoff * (2**attempt))


def _gave_up(failure: _Retryable, attempt: int) -> str:
    if isinstance(failure, _ReadTimeout) or attempt == 0:
        return failure.message
    return f"{failure.message}; gave up after {attempt + 1} attempts"


def _abort(response: requests.Response) -> None:
    """Wake a reader blocked on this response's socket (shutting down works across threads)."""
    sock: Any = None
    connection: Callable[[], Any] | Any = getattr(response.raw, "connection", None) or getattr(
        response.raw, "_connection", None
    )
    if connection is not None:
        sock = getattr(connection, "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    else:
        with contextlib.suppress(Exception):  # best effort from a foreign thread
            response.close()
