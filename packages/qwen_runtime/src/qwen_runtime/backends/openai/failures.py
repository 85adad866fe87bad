"""HTTP failures, sorted into retryable ones and final ones, with the server's own words kept.

429, 5xx, refused connections and streams that break before anything was yielded are retried with
exponential backoff (honouring Retry-After). A read timeout is not retried: a local server that
goes quiet is usually busy, and asking again only adds to its queue.
"""

from __future__ import annotations

import json
import time
from email.utils import parsedate_to_datetime
from typing import Any

import requests
import urllib3

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0


class Retryable(Exception):
    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after


class ReadTimeout(Retryable):
    """Final, not retried (see the module docstring)."""


class Cancelled(Exception):
    pass


def classify(exc: BaseException, connect_timeout: float, read_timeout: float) -> Retryable:
    """A requests/urllib3 failure as a retryable one, or a final ServerError-to-be message."""
    inner = exc.args[0] if exc.args else None
    if isinstance(exc, requests.ConnectTimeout):
        return Retryable(f"no connection within {connect_timeout:g} s (connect timeout)")
    if isinstance(exc, requests.ReadTimeout | urllib3.exceptions.ReadTimeoutError) or isinstance(
        inner, urllib3.exceptions.ReadTimeoutError
    ):
        return ReadTimeout(
            f"no data for {read_timeout:g} s (read timeout); the server may be busy "
            "or stuck: raise read_timeout if it is just slow"
        )
    if isinstance(exc, requests.exceptions.ChunkedEncodingError | urllib3.exceptions.ProtocolError):
        return Retryable(f"the connection broke mid-stream ({short(exc)})")
    if isinstance(exc, requests.ConnectionError):
        return Retryable(f"cannot connect ({short(exc)})")
    return Retryable(f"request failed ({short(exc)})")


def short(exc: BaseException) -> str:
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


def error_message(response: requests.Response) -> str:
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


def explain(message: str, status: int) -> str:
    if status == 401:
        return f"{message} (set OPENAI_API_KEY or the api_key for this server)"
    if status == 404:
        return f"{message} (is the URL right? it should end in /v1; is the model name right?)"
    return message


def retry_after(response: requests.Response) -> float | None:
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


def delay(failure: Retryable, backoff: float, attempt: int) -> float:
    if failure.retry_after is not None:
        return min(failure.retry_after, MAX_RETRY_AFTER)
    return float(backoff * (2**attempt))


def gave_up(failure: Retryable, attempt: int) -> str:
    if isinstance(failure, ReadTimeout) or attempt == 0:
        return failure.message
    return f"{failure.message}; gave up after {attempt + 1} attempts"
