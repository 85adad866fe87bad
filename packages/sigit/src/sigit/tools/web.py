"""read_website: fetch a page over http(s) and return it as readable text."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from html import unescape
from urllib.parse import urlparse

import html2text
import requests
from pydantic import Field

from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput, truncate
from sigit.tools.subjects import Subjects

TIMEOUT_S = 20.0
TEXT_LIMIT = 20_000
DOWNLOAD_LIMIT = 5_000_000
USER_AGENT = "siGit-Code/0.1 (+https://github.com/sigitc)"
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
    status: int
    reason: str
    content_type: str
    body: bytes
    encoding: str | None
    truncated: bool


def _fetch(url: str) -> _Page:
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,text/plain,application/json;q=0.9,*/*;q=0.5"}
    with requests.get(url, headers=headers, timeout=TIMEOUT_S, stream=True) as resp:
        content_type = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
        body = bytearray()
        truncated = False
        if _is_text(content_type):
            for chunk in resp.iter_content(65536):
                body += chunk
                if len(body) > DOWNLOAD_LIMIT:
                    truncated = True
                    break
        encoding = resp.encoding if "charset" in resp.headers.get("Content-Type", "") else None
        return _Page(resp.status_code, resp.reason or "", content_type, bytes(body), encoding, truncated)


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
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ToolError(f"read_website only fetches http:// or https:// URLs, not {url!r}.")
    try:
        page = await asyncio.to_thread(_fetch, url)
    except requests.Timeout:
        raise ToolError(f"{url} did not answer within {TIMEOUT_S:g} s.") from None
    except requests.RequestException as exc:
        raise ToolError(f"Could not fetch {url}: {exc}") from None
    title = f"Fetch {url}"
    if page.status >= 400:
        raise ToolError(f"{url} answered HTTP {page.status} {page.reason}.")
    if not _is_text(page.content_type):
        raise ToolError(f"{url} is {page.content_type} content, not text or HTML; it cannot be shown.")
    body = _decode(page)
    is_html = page.content_type in ("text/html", "application/xhtml+xml") or (
        not page.content_type and body.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))
    )
    text = html_to_text(body) if is_html else body
    if page.truncated and len(text) <= TEXT_LIMIT:
        text += f"\n[Truncated at {TEXT_LIMIT:,} characters.]"
    text = truncate(text, TEXT_LIMIT, lambda kept: f"\n[Truncated at {kept:,} characters.]")
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
