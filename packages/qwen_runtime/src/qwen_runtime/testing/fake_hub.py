"""A tiny Hugging Face hub on 127.0.0.1, for tests of downloads (qwen_runtime's and the apps' above it).

It is the resolve endpoint hf_hub_download really calls, not a mock of the function.

Serves HEAD and GET on /{owner}/{name}/resolve/{revision}/{filename} with the headers
huggingface_hub requires (X-Repo-Commit, ETag, Content-Length) and its 404 error codes, and
records every request so tests can tell a cache hit from a download.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class FakeHub:
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""
    fail_next: list[int] = field(default_factory=list)
    """HTTP statuses to answer the next requests with, one each, before serving normally (503: a hiccup)."""

    def add(self, repo_id: str, filename: str, content: bytes) -> None:
        self.files[(repo_id, filename)] = content

    def _repos(self) -> set[str]:
        return {repo for repo, _ in self.files}


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet test output
            pass

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _serve(self, *, body: bool) -> None:
            hub.requests.append((self.command, self.path))
            if hub.fail_next:
                self._error(hub.fail_next.pop(0), None)
                return
            parts = self.path.split("?", 1)[0].lstrip("/").split("/")
            if len(parts) < 5 or parts[2] != "resolve":
                self._error(404, None)
                return
            repo_id, filename = f"{parts[0]}/{parts[1]}", "/".join(parts[4:])
            if repo_id not in hub._repos():
                self._error(404, "RepoNotFound")
                return
            content = hub.files.get((repo_id, filename))
            if content is None:
                self._error(404, "EntryNotFound")
                return
            self.send_response(200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hashlib.sha256(content).hexdigest()}"')
            self.send_header("Content-Length", str(len(content)))
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            if body:
                self.wfile.write(content)

        def _error(self, status: int, code: str | None) -> None:
            message = b"not found"
            self.send_response(status)
            if code:
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", code)
            if code == "EntryNotFound":
                self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("Content-Length", str(len(message)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(message)

    return Handler


@contextmanager
def serve_fake_hub() -> Iterator[FakeHub]:
    hub = FakeHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    server.daemon_threads = True
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="fake-hub", daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
