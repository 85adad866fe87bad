"""The hub over the network: a quick reachability probe, and which failures are worth a retry.

huggingface_hub retries every network error five times (1+2+4+8+8 s), a DNS failure or a refused
connection too, which no retry fixes: offline, a user waited 24 s for the error. Before a download
we ask the hub once ourselves: an error no retry can fix (no DNS answer, connection refused, no
route) fails at once; only timeouts and 5xx answers are tried again.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

ATTEMPTS = 3
"""Tries for a transient failure (a timeout, a 5xx answer), with 1 s, then 2 s between them."""
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class HubProbe:
    """What one request to the hub found."""

    endpoint: str
    reachable: bool
    detail: str
    """"HTTP 200", or why not: "DNS lookup failed", "connection refused", "timed out after 3 s"..."""
    transient: bool = False
    """True when a retry might succeed (a timeout, a 5xx answer)."""


def probe(url: str, *, timeout: float | tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
          endpoint: str | None = None) -> HubProbe:
    """One HEAD request to `url` (redirects not followed); any HTTP answer below 500 is reachable."""
    import requests

    shown = endpoint or url
    try:
        response = requests.head(url, timeout=timeout, allow_redirects=False)
    except requests.Timeout:
        seconds = timeout if isinstance(timeout, int | float) else sum(timeout)
        return HubProbe(shown, False, f"timed out after {seconds:g} s", transient=True)
    except requests.ConnectionError as exc:
        return HubProbe(shown, False, connection_failure(exc))
    except requests.RequestException as exc:
        return HubProbe(shown, False, f"{type(exc).__name__}: {exc}")
    status = response.status_code
    response.close()
    if status >= 500:
        return HubProbe(shown, False, f"HTTP {status}", transient=True)
    return HubProbe(shown, True, f"HTTP {status}")


def connection_failure(exc: BaseException) -> str:
    """Why a connection failed, in words: the DNS, a refusal, no route, or the error itself."""
    seen: BaseException | None = exc
    chain: list[BaseException] = []
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        nested = [arg for arg in getattr(seen, "args", ()) if isinstance(arg, BaseException)]
        seen = seen.__cause__ or seen.__context__ or (nested[0] if nested else None)
    for err in chain:
        if isinstance(err, socket.gaierror):
            return "DNS lookup failed"
        if isinstance(err, ConnectionRefusedError):
            return "connection refused"
    text = " ".join(str(err) for err in chain)
    lowered = text.lower()
    if any(s in lowered for s in ("name or service not known", "nodename nor servname", "name resolution",
                                  "getaddrinfo failed", "temporary failure in name resolution")):
        return "DNS lookup failed"
    if "connection refused" in lowered or "errno 111" in lowered:
        return "connection refused"
    if "network is unreachable" in lowered or "no route to host" in lowered:
        return "network unreachable"
    return f"connection failed ({type(exc).__name__}: {exc})"


sleep: Callable[[float], None] = time.sleep
"""How `reach` waits between tries (tests record the waits here)."""


def reach(url: str, *, endpoint: str | None = None, attempts: int = ATTEMPTS) -> HubProbe:
    """Probe `url` until it answers: a failure no retry fixes is returned at once; timeouts and 5xx
    answers are tried `attempts` times."""
    result = probe(url, endpoint=endpoint)
    for attempt in range(1, attempts):
        if result.reachable or not result.transient:
            break
        sleep(float(2 ** (attempt - 1)))
        result = probe(url, endpoint=endpoint)
    if not result.reachable and result.transient:
        return HubProbe(result.endpoint, False, f"{result.detail} (tried {attempts} times)", transient=True)
    return result
