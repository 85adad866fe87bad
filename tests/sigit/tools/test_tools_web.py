"""read_website against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sigit.tools import ToolContext, ToolRegistry

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


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path not in PAGES:
            self.send_error(404, "Not Found")
            return
        content_type, body = PAGES[self.path]
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

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


async def test_html_becomes_text_with_the_title_first(
    registry: ToolRegistry, ctx: ToolContext, server: str
) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/page"}, ctx)
    assert not out.is_error, out.text
    assert out.text.startswith("# Héllo Page\n")
    assert "Welcome" in out.text and "**bold**" in out.text
    assert "var x" not in out.text and "<p>" not in out.text


async def test_text_and_json_come_back_as_is(registry: ToolRegistry, ctx: ToolContext, server: str) -> None:
    assert (await registry.invoke("read_website", {"url": f"{server}/plain"}, ctx)).text == "just text\n"
    assert (await registry.invoke("read_website", {"url": f"{server}/data.json"}, ctx)).text == '{"a": 1}'


async def test_long_pages_are_capped(registry: ToolRegistry, ctx: ToolContext, server: str) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/big"}, ctx)
    assert out.text.startswith("y" * 20_000) and "Truncated at 20,000" in out.text


async def test_binary_content_is_refused(registry: ToolRegistry, ctx: ToolContext, server: str) -> None:
    out = await registry.invoke("read_website", {"url": f"{server}/image.png"}, ctx)
    assert out.is_error and "image/png" in out.text


async def test_http_errors_and_bad_urls(registry: ToolRegistry, ctx: ToolContext, server: str) -> None:
    missing = await registry.invoke("read_website", {"url": f"{server}/nope"}, ctx)
    assert missing.is_error and "HTTP 404" in missing.text
    scheme = await registry.invoke("read_website", {"url": "file:///etc/passwd"}, ctx)
    assert scheme.is_error and "http:// or https://" in scheme.text
    down = await registry.invoke("read_website", {"url": "http://127.0.0.1:9/"}, ctx)
    assert down.is_error and "Could not fetch" in down.text
