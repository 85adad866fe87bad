"""read_website against a real HTTP server on 127.0.0.1, which the tests allow by an explicit rule
(`read_website(domain:127.0.0.1)`): without it, and for other private addresses, the fetch is refused."""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sigit.config.settings import PermissionSettings, Settings
from sigit.permissions import PermissionPolicy
from sigit.tools import ToolContext, ToolRegistry, web

PAGES: dict[str, tuple[str, bytes]] = {
    "/page": (
        "text/html; charset=utf-8",
        "<html><head><title>Héllo  Page</title><script>var x = 1;</script></head>"
        "<body><h1>Welcome</h1><p>Some <b>bold</b> text.</p><a href='/x'>link</a></body></html>".encode(),
    ),
    "/plain": ("text/plain", b"just text\n"),
    "/data.json": ("application/json", b'{"a": 1}'),
    "/image.png": ("image/png", b"\x89PNG\r\n\x1a\n" + bytes(100)),
    "/big": ("text/plain", b"y" * 50_000),
}


REDIRECTS = {
    "/moved": "/plain",
    "/to-private": "http://10.1.2.3/secret",
    "/to-metadata": "http://169.254.169.254/latest/meta-data/",
    "/to-localhost": "/loop",  # rewritten below to http://localhost:PORT/plain
    "/loop": "/loop",
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/to-localhost":
            self._redirect(f"http://localhost:{self.server.server_address[1]}/plain")
            return
        if self.path in REDIRECTS:
            self._redirect(REDIRECTS[self.path])
            return
        if self.path == "/trickle":
            self._trickle(headers_first=True)
            return
        if self.path == "/trickle-headers":
            self._trickle(headers_first=False)
            return
        if self.path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b"z" * 10_000)
            except OSError:
                pass
            return
        if self.path not in PAGES:
            self.send_error(404, "Not Found")
            return
        content_type, body = PAGES[self.path]
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _trickle(self, *, headers_first: bool) -> None:
        """A byte a second, for up to 30 s: the body, or (headers_first=False) the headers themselves."""
        try:
            if headers_first:
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.flush()
            else:
                self.wfile.write(b"HTTP/1.0 200 OK\r\n")
            for _ in range(30):
                self.wfile.write(b"t" if headers_first else b"X-Slow: 1\r\n")
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def allowing(ctx: ToolContext, *rules: str) -> ToolContext:
    """The context as a session builds it: read_website reaches a private host only if a rule names it."""
    policy = PermissionPolicy(Settings(permissions=PermissionSettings(allow=list(rules))), ctx.cwd)
    return dataclasses.replace(ctx, host_named=policy.names_host)


@pytest.fixture
def local(ctx: ToolContext) -> ToolContext:
    return allowing(ctx, "read_website(domain:127.0.0.1)")


async def test_html_becomes_text_with_the_title_first(
    registry: ToolRegistry, local: ToolContext, server: str
) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/page"}, local)
    assert not out.is_error, out.text
    assert out.text.startswith("# Héllo Page\n")
    assert "Welcome" in out.text and "**bold**" in out.text
    assert "var x" not in out.text and "<p>" not in out.text


async def test_text_and_json_come_back_as_is(registry: ToolRegistry, local: ToolContext, server: str) -> None:
    assert (await registry.invoke("read_website", {"url": f"{server}/plain"}, local)).text == "just text\n"
    assert (await registry.invoke("read_website", {"url": f"{server}/data.json"}, local)).text == '{"a": 1}'


async def test_long_pages_are_capped(registry: ToolRegistry, local: ToolContext, server: str) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/big"}, local)
    assert out.text.startswith("y" * 20_000) and "Truncated at 20,000" in out.text


async def test_binary_content_is_refused(registry: ToolRegistry, local: ToolContext, server: str) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/image.png"}, local)
    assert out.is_error and "image/png" in out.text


async def test_http_errors_and_bad_urls(registry: ToolRegistry, local: ToolContext, server: str) -> None:
    missing = await registry.invoke("read_website", {"url": f"{server}/nope"}, local)
    assert missing.is_error and "HTTP 404" in missing.text
    scheme = await registry.invoke("read_website", {"url": "file:///etc/passwd"}, local)
    assert scheme.is_error and "http:// or https://" in scheme.text
    down = await registry.invoke("read_website", {"url": "http://127.0.0.1:9/"}, local)
    assert down.is_error and "Could not fetch" in down.text


async def test_loopback_is_refused_without_a_rule_naming_it(
    registry: ToolRegistry, ctx: ToolContext, server: str
) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/plain"}, ctx)
    assert out.is_error and "127.0.0.1, a loopback address" in out.text
    assert "read_website(domain:127.0.0.1)" in out.text
    # a rule for every domain (no host named) or for another host does not unlock it either
    for rules in (["read_website"], ["read_website(domain:*.0.0.1)"], ["read_website(domain:localhost)"]):
        out = await registry.invoke("read_website", {"url": f"{server}/plain"}, allowing(ctx, *rules))
        assert out.is_error and "loopback" in out.text, rules


async def test_a_public_name_resolving_to_loopback_is_refused(
    registry: ToolRegistry, ctx: ToolContext, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = socket.getaddrinfo

    def rebinding(host: str, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.1" if host == "innocent.example" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    port = server.rsplit(":", 1)[1]
    out = await registry.invoke("read_website", {"url": f"http://innocent.example:{port}/plain"},
                                allowing(ctx, "read_website(domain:innocent.example)", "read_website"))
    assert not out.is_error  # named explicitly: the user asked for this host
    out = await registry.invoke("read_website", {"url": f"http://innocent.example:{port}/plain"}, ctx)
    assert out.is_error and "resolves to 127.0.0.1, a loopback address" in out.text


async def test_redirects_are_followed_and_checked_on_every_hop(
    registry: ToolRegistry, local: ToolContext, server: str
) -> None:
    moved = await registry.invoke("read_website", {"url": f"{server}/moved"}, local)
    assert not moved.is_error and moved.text == f"[Redirected to {server}/plain]\n\njust text\n"
    private = await registry.invoke("read_website", {"url": f"{server}/to-private"}, local)
    assert private.is_error and "10.1.2.3, a private address" in private.text
    metadata = await registry.invoke("read_website", {"url": f"{server}/to-metadata"}, local)
    assert metadata.is_error and "169.254.169.254, a link-local address" in metadata.text
    renamed = await registry.invoke("read_website", {"url": f"{server}/to-localhost"}, local)
    assert renamed.is_error and "Refused to fetch localhost" in renamed.text
    loop = await registry.invoke("read_website", {"url": f"{server}/loop"}, local)
    assert loop.is_error and "more than 5 redirects" in loop.text


async def test_a_trickling_server_is_cut_at_the_total_deadline(
    registry: ToolRegistry, local: ToolContext, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web, "TIMEOUT_S", 2.5)
    body = await registry.invoke("read_website", {"url": f"{server}/trickle"}, local)
    assert not body.is_error and body.text.startswith("t") and "Stopped after 2.5 s" in body.text
    headers = await registry.invoke("read_website", {"url": f"{server}/trickle-headers"}, local)
    assert headers.is_error and "did not answer within 2.5 s" in headers.text


async def test_an_oversized_body_is_cut_while_streaming(
    registry: ToolRegistry, local: ToolContext, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web, "DOWNLOAD_LIMIT", 25_000)
    out = await registry.invoke("read_website", {"url": f"{server}/huge"}, local)
    assert not out.is_error
    assert out.text.startswith("z" * 20_000) and "Stopped reading at 25,000 bytes" in out.text


@pytest.mark.parametrize(
    ("address", "kind"),
    [("127.0.0.1", "loopback"), ("::1", "loopback"), ("169.254.169.254", "link-local"),
     ("fe80::1", "link-local"), ("10.0.0.1", "private"), ("172.16.0.1", "private"),
     ("192.168.1.1", "private"), ("fd00::1", "private"), ("0.0.0.0", "unspecified"),
     ("::", "unspecified"), ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
     ("::ffff:127.0.0.1", "loopback"), ("100.100.100.200", "non-public"),
     # issue 28: IPv6 spellings that carry an IPv4 address to the same host
     ("::7f00:1", "loopback"), ("::127.0.0.1", "loopback"), ("::a9fe:a9fe", "link-local"),
     ("64:ff9b::7f00:1", "loopback"), ("64:ff9b::a9fe:a9fe", "link-local"), ("64:ff9b::10.0.0.1", "private"),
     ("64:ff9b:1::a00:1", "private"), ("2002:7f00:1::", "loopback"), ("2002:a9fe:a9fe::1", "link-local")],
)
def test_address_refusals(address: str, kind: str) -> None:
    assert kind in (web.address_refusal(address) or "")


def test_public_addresses_pass() -> None:
    assert web.address_refusal("93.184.216.34") is None
    assert web.address_refusal("64:ff9b::5db8:d822") is None  # NAT64 of 93.184.216.34
    assert web.address_refusal("2606:4700::1111") is None


def test_only_rules_from_settings_or_flags_name_a_host(tmp_path: Path) -> None:
    policy = PermissionPolicy(Settings(permissions=PermissionSettings(allow=["read_website(domain:Wiki.Corp)"])),
                              tmp_path)
    assert policy.names_host("wiki.corp") and not policy.names_host("other.corp")
    policy.add_session_rule("read_website(domain:10.0.0.5)")  # --allow-tool
    assert policy.names_host("10.0.0.5")


@pytest.mark.parametrize("url", ["http://[::7f00:1]/", "http://[64:ff9b::7f00:1]/", "http://[::127.0.0.1]:8080/x",
                                 "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/"])
async def test_ipv6_spellings_of_private_addresses_are_refused(
    registry: ToolRegistry, ctx: ToolContext, url: str
) -> None:
    """Issue 28: `[::7f00:1]` and NAT64 `64:ff9b::/96` passed the SSRF guard."""
    out = await registry.invoke("read_website", {"url": url}, allowing(ctx, "read_website"))
    assert out.is_error and ("loopback address" in out.text or "link-local address" in out.text), out.text
