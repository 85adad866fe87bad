"""The runtime for a model behind an OpenAI-compatible HTTP endpoint: vLLM, llama-server, SGLang,
LM Studio, Ollama. It learns the server's facts (model, context, whether it is Ollama) and ties the
request body, the transport and the stream decoder together.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import requests

from ...errors import QwenRuntimeError, ServerError
from ...runtime import CancelToken, Runtime
from ...types import ChatRequest, Event
from .failures import Retryable
from .ollama import OllamaDecoder, ollama_body, ollama_num_ctx, probe_ollama
from .request import merge_extra, openai_body
from .stream import Decoder, SSEDecoder
from .transport import Transport


class OpenAICompatRuntime(Runtime):
    """Streams chat completions from `base_url` (".../v1"; a bare "http://host:port" gets "/v1")."""

    name = "openai"
    supports_images = True  # sent as image_url data URLs; a server whose model cannot see says so

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
        self._transport = Transport(
            api_key=api_key if api_key is not None else (os.environ.get("OPENAI_API_KEY") or None),
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            max_retries=max(0, max_retries),
            backoff=backoff,
        )
        self.n_ctx = n_ctx
        self.extra_body = dict(extra_body or {})
        self._meta_lock = threading.Lock()
        self._models: list[dict[str, Any]] | None = None
        self._ollama: bool | None = None
        self._context: int | None = None

    # ------------------------------------------------------------ settings, kept on the transport

    @property
    def api_key(self) -> str | None:
        return self._transport.api_key

    @api_key.setter
    def api_key(self, value: str | None) -> None:
        self._transport.api_key = value

    @property
    def connect_timeout(self) -> float:
        return self._transport.connect_timeout

    @connect_timeout.setter
    def connect_timeout(self, value: float) -> None:
        self._transport.connect_timeout = value

    @property
    def read_timeout(self) -> float:
        return self._transport.read_timeout

    @read_timeout.setter
    def read_timeout(self, value: float) -> None:
        self._transport.read_timeout = value

    @property
    def max_retries(self) -> int:
        return self._transport.max_retries

    @max_retries.setter
    def max_retries(self, value: int) -> None:
        self._transport.max_retries = value

    @property
    def backoff(self) -> float:
        return self._transport.backoff

    @backoff.setter
    def backoff(self, value: float) -> None:
        self._transport.backoff = value

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
                    self._ollama = probe_ollama(self._transport, self.root_url)
        return self._ollama

    @property
    def context_size(self) -> int:
        if self._context is None:
            try:
                self._context = self._find_context()
            except (QwenRuntimeError, requests.RequestException, ValueError):
                self._context = self.n_ctx or 0
        return self._context

    def _list_models(self) -> list[dict[str, Any]]:
        if self._models is None:
            data = self._transport.get_json(f"{self.base_url}/models")
            entries = data.get("data") if isinstance(data, dict) else None
            self._models = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
        return self._models

    def _find_context(self) -> int:
        if self.n_ctx:
            return self.n_ctx
        if self.is_ollama:
            return ollama_num_ctx(self._transport, self.root_url, lambda: self.model)
        entry = next((m for m in self._list_models() if m.get("id") == self.model), None)
        entry = entry or (self._list_models() or [{}])[0]
        if isinstance(entry.get("max_model_len"), int):  # vLLM: the context it serves
            return int(entry["max_model_len"])
        meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else None
        if meta is not None:  # llama-server: /props has the context it was started with
            try:
                props = self._transport.get_json(f"{self.root_url}/props", retry=False)
                n_ctx = props.get("default_generation_settings", {}).get("n_ctx")
                if isinstance(n_ctx, int) and n_ctx > 0:
                    return n_ctx
            except (QwenRuntimeError, AttributeError):
                pass
            if isinstance(meta.get("n_ctx_train"), int):
                return int(meta["n_ctx_train"])
        return 0

    # ------------------------------------------------------------ requests

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON sent for `request` (to /v1/chat/completions, or Ollama's /api/chat)."""
        if self.is_ollama:
            body = ollama_body(request, self.model, self.context_size)
        else:
            body = openai_body(request, self.model)
        return merge_extra(body, self.extra_body)

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        token = cancel or CancelToken()
        url = self.chat_url
        body = self.request_body(request)

        def attempt() -> Iterator[Event]:
            decoder: Decoder = (
                OllamaDecoder(request, url, self.context_size)
                if self.is_ollama
                else SSEDecoder(request, url, self.context_size)
            )
            return self._attempt(url, body, decoder, token)

        yield from self._transport.retrying(url, attempt, token)

    def _attempt(self, url: str, body: dict[str, Any], decoder: Decoder, cancel: CancelToken) -> Iterator[Event]:
        """One HTTP request, its lines fed to `decoder`."""
        with self._transport.lines(url, body, cancel) as lines:
            for line in lines:
                yield from decoder.line(line)
                if decoder.done:
                    lines.release()  # the reader drains the rest; the connection stays reusable
                    yield from decoder.finish()
                    return
            if not decoder.complete:
                raise Retryable("the stream ended before the reply was complete")
            lines.release()
            yield from decoder.finish()

    def close(self) -> None:
        self._transport.close()
