"""read_website: fetch a page over http(s) and return it as readable text.

The fetch guards itself, because a page the model chose may be an attacker's: every address a host
name resolves to (on the first request and on every redirect, which are followed here, at most
MAX_REDIRECTS) must be a public one unless an allow rule names the host (`ToolContext.host_named`),
and the connection goes to the address that was checked, so DNS cannot swap it afterwards. The whole
fetch (connects, redirects, headers, body) has one deadline, TIMEOUT_S, and the body is read in
chunks and cut at DOWNLOAD_LIMIT bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from html import unescape
from urllib.parse import urljoin, urlsplit

import html2text
from pydantic import Field

from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput, truncate
from sigit.tools.subjects import Subjects

TIMEOUT_S = 20.0
"""Seconds for the whole fetch, redirects included (not per read)."""
MAX_REDIRECTS = 5
TEXT_LIMIT = 20_000
DOWNLOAD_LIMIT = 5_000_000
"""Bytes of body read at most; the rest is never downloaded."""
USER_AGENT = "siGit-Code/0.1 (+https://github.com/sigitc)"
_REDIRECTS = (301, 302, 303, 307, 308)
_TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/ld+json",
)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class ReadWebsiteArgs(ToolArgs):
    url: str = Field(description="http:// or https:// address of the page.")


@dataclass(frozen=True)
class _Page:
    url: str
    status: int
    reason: str
    content_type: str
    body: bytes
    encoding: str | None
    truncated: bool
    timed_out: bool


def url_host(url: str) -> str | None:
    """The host name of an http(s) URL, lower case, without brackets or port; None if there is none."""
    try:
        parsed = urlsplit(url.strip())
        host = parsed.hostname
    except ValueError:
        return None
    if parsed.scheme not in ("http", "https") or not host:
        return None
    return host.rstrip(".").lower() or None


def address_refusal(address: str) -> str | None:
    """Why an address may not be fetched without a rule naming its host, or None for a public one."""
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            refusal = address_refusal(str(embedded))
            return f"{refusal} (inside {ip})" if refusal is not None else None
    for kind, flag in (
        ("a loopback", ip.is_loopback),
        ("an unspecified", ip.is_unspecified),
        ("a link-local", ip.is_link_local),
        ("a multicast", ip.is_multicast),
        ("a private", ip.is_private),
    ):
        if flag:
            return f"{kind} address"
    if not ip.is_global:
        return "a non-public address"
    return None


_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries to the same host: mapped (`::ffff:a.b.c.d`), compatible
    (`::a.b.c.d`, `[::7f00:1]`), NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) or Teredo."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    value = int(ip)
    if value >> 32 == 0 and value > 1:  # IPv4-compatible, not `::` or `::1`
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if any(ip in network for network in _NAT64):
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def _checked_address(host: str, port: int, host_named: Callable[[str], bool]) -> str:
    """The address to connect to: every address the name resolves to must be public, unless a rule names it."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"Could not fetch {host}: cannot resolve the name ({exc.strerror or exc}).") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise ToolError(f"Could not fetch {host}: the name has no address.")
    if not host_named(host):
        for address in addresses:
            refusal = address_refusal(address)
            if refusal is not None:
                raise ToolError(
                    f"Refused to fetch {host}: it resolves to {address}, {refusal}. Only an allow rule "
                    f"naming the host, such as read_website(domain:{host}), lets read_website reach it."
                )
    return addresses[0]


class _HTTPConnection(http.client.HTTPConnection):
    """Connects to the address that was checked, not to whatever the name resolves to now."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def _fetch(url: str, host_named: Callable[[str], bool]) -> _Page:
    deadline = time.monotonic() + TIMEOUT_S
    for _ in range(MAX_REDIRECTS + 1):
        page, location = _fetch_one(url, host_named, deadline)
        if page is not None:
            return page
        url = location
    raise ToolError(f"Could not fetch the page: more than {MAX_REDIRECTS} redirects (the last to {url}).")


def _fetch_one(url: str, host_named: Callable[[str], bool], deadline: float) -> tuple[_Page | None, str]:
    """One request: the page, or (None, the URL a redirect points to)."""
    parsed = urlsplit(url)
    host = url_host(url)
    if host is None:
        raise ToolError(f"read_website only fetches http:// or https:// URLs, not {url!r}.")
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:
        raise ToolError(f"{url!r} has an invalid port.") from None
    address = _checked_address(host, port, host_named)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    cls = _HTTPSConnection if parsed.scheme == "https" else _HTTPConnection
    conn = cls(host, port, address, timeout=remaining)
    timer: threading.Timer | None = None
    try:
        conn.connect()
        sock = conn.sock
        # One deadline for everything below: a server trickling bytes never resets it.
        timer = threading.Timer(max(deadline - time.monotonic(), 0.0), _shutdown, [sock])
        timer.daemon = True
        timer.start()
        target = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
        conn.request("GET", target, headers={
            "User-Agent": USER_AGENT,
            "Accept": "text/html,text/plain,application/json;q=0.9,*/*;q=0.5",
            "Accept-Encoding": "identity",
        })
        try:
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException):
            if time.monotonic() >= deadline:
                raise TimeoutError from None
            raise
        if time.monotonic() >= deadline:  # the headers were cut short by the deadline
            raise TimeoutError
        location = resp.getheader("Location")
        if resp.status in _REDIRECTS and location:
            return None, urljoin(url, location.strip())
        content_type = (resp.getheader("Content-Type") or "").split(";")[0].strip().lower()
        body = bytearray()
        truncated = timed_out = False
        if _is_text(content_type):
            while True:
                try:
                    chunk = resp.read1(65536)
                except (OSError, http.client.HTTPException):
                    if time.monotonic() < deadline:
                        raise
                    chunk = b""
                if time.monotonic() >= deadline:
                    timed_out = True
                if not chunk or timed_out:
                    break
                body += chunk
                if len(body) > DOWNLOAD_LIMIT:
                    del body[DOWNLOAD_LIMIT:]
                    truncated = True
                    break
        encoding = resp.headers.get_content_charset()
        return _Page(url, resp.status, resp.reason or "", content_type, bytes(body), encoding, truncated,
                     timed_out), url
    finally:
        if timer is not None:
            timer.cancel()
        conn.close()


def _shutdown(sock: socket.socket | None) -> None:
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _is_text(content_type: str) -> bool:
    return (
        not content_type
        or content_type.startswith("text/")
        or content_type in _TEXT_TYPES
        or content_type.endswith(("+xml", "+json"))
    )


def _decode(page: _Page) -> str:
    if page.encoding:
        try:
            return page.body.decode(page.encoding, errors="replace")
        except LookupError:
            pass
    meta = re.search(rb"<meta[^>]+charset=[\"']?([A-Za-z0-9_-]+)", page.body[:4096], re.IGNORECASE)
    if meta:
        try:
            return page.body.decode(meta.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return page.body.decode("utf-8", errors="replace")


def html_to_text(html: str) -> str:
    """Readable text of an HTML page with its title first."""
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_images = True
    converter.ignore_emphasis = False
    text: str = converter.handle(html).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    match = _TITLE.search(html)
    title = " ".join(unescape(match.group(1)).split()) if match else ""
    return f"# {title}\n\n{text}" if title and not text.startswith(f"# {title}") else text


async def read_website(args: ReadWebsiteArgs, ctx: ToolContext) -> ToolOutput:
    url = args.url.strip()
    if url_host(url) is None:
        raise ToolError(f"read_website only fetches http:// or https:// URLs, not {url!r}.")
    try:
        # the thread keeps its own deadline; this one also covers a name lookup that hangs
        async with asyncio.timeout(TIMEOUT_S + 5):
            page = await asyncio.to_thread(_fetch, url, ctx.host_named)
    except TimeoutError:
        raise ToolError(f"{url} did not answer within {TIMEOUT_S:g} s.") from None
    except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
        raise ToolError(f"Could not fetch {url}: {exc}") from None
    title = f"Fetch {url}"
    shown = url if page.url == url else f"{url} (redirected to {page.url})"
    if page.status >= 400:
        raise ToolError(f"{shown} answered HTTP {page.status} {page.reason}.")
    if not _is_text(page.content_type):
        raise ToolError(f"{shown} is {page.content_type} content, not text or HTML; it cannot be shown.")
    body = _decode(page)
    is_html = page.content_type in ("text/html", "application/xhtml+xml") or (
        not page.content_type and body.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))
    )
    text = html_to_text(body) if is_html else body
    text = truncate(text, TEXT_LIMIT, lambda kept: f"\n[Truncated at {kept:,} characters.]")
    if page.truncated:
        text += f"\n[Stopped reading at {DOWNLOAD_LIMIT:,} bytes; the page is longer.]"
    if page.timed_out:
        text += f"\n[Stopped after {TIMEOUT_S:g} s; the page was still arriving.]"
    if page.url != url:
        text = f"[Redirected to {page.url}]\n\n{text}"
    return ToolOutput(text or "(the page is empty)", title=title)


READ_WEBSITE = Tool(
    name="read_website",
    description="Fetch a web page (http/https) and return its text, title first (20,000 characters max).",
    params=ReadWebsiteArgs,
    run=read_website,
    read_only=True,
    kind="fetch",
    aliases=("WebFetch",),
    subjects_of=lambda args, ctx: Subjects(url=args.url),
)
