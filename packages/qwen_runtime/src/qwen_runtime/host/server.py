"""The model host: one process that keeps a GGUF loaded and serves it on a private unix socket until it
has been idle for its keep-alive time (`python -m qwen_runtime.host`, started by `client.start_host`).

It takes its socket before it loads (under a lock file, so two clients starting the same host at once
end with one), loads the model exactly as a process of its own would (`naming.load_gguf`), says "ready"
on the pipe its starter waits on, and then answers each connection in a thread of its own: generation,
prefill and tokenizing go straight to the one `Runtime` (one generation at a time, as in-process), so
grammar, drafting and the prompt cache are the runtime's own. A client that says "cancel" or goes away
stops its generation.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ContextOverflowError
from ..runtime import CancelToken, Runtime
from .places import info_path, private_dir, same_user
from .wire import Lines, WireError, encode, request_from

log = logging.getLogger(__name__)


@contextlib.contextmanager
def socket_lock(socket_file: Path) -> Iterator[None]:
    """Held while a host checks, takes or gives up its socket path (so a starting host and one leaving
    never both believe the path is theirs)."""
    fd = os.open(socket_file.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def answers(socket_file: Path) -> bool:
    """Whether a host listens on `socket_file` now."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(socket_file))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def take_socket(socket_file: Path) -> socket.socket | None:
    """A listening socket at `socket_file`, 0600 from its first moment; None when a live host has it
    already (a stale file, left by a host that was killed, is replaced). Call under `socket_lock`."""
    if socket_file.exists() or socket_file.is_symlink():
        if answers(socket_file):
            return None
        socket_file.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(str(socket_file))
    finally:
        os.umask(old)
    os.chmod(socket_file, 0o600)
    listener.listen(16)
    return listener


def error_message(exc: BaseException) -> dict[str, Any]:
    """What the client needs to raise the same error in its own process."""
    out: dict[str, Any] = {"error": str(exc), "kind": type(exc).__name__}
    if isinstance(exc, ContextOverflowError):
        out["fields"] = {"prompt_tokens": exc.prompt_tokens, "context_size": exc.context_size,
                         "max_tokens": exc.max_tokens}
    return out


class Host:
    """One loaded runtime behind one listening socket."""

    def __init__(self, runtime: Runtime, listener: socket.socket, *, model: str, keep_alive: float) -> None:
        self.runtime, self.listener, self.model = runtime, listener, model
        self.keep_alive = keep_alive
        self.loads = 1
        self.generations = 0
        self._generating = threading.Lock()  # one generation (or prefill) at a time, as in-process
        self._state = threading.Lock()
        self._active = 0
        self._last = time.monotonic()

    # ---------------------------------------------------------------- lifetime

    def idle_for(self) -> float:
        """Seconds since the last client left (0 while one is connected)."""
        with self._state:
            return 0.0 if self._active else time.monotonic() - self._last

    def serve(self) -> None:
        """Answer connections until idle for `keep_alive` seconds."""
        while True:
            with self._state:
                left = self.keep_alive if self._active else self.keep_alive - (time.monotonic() - self._last)
            if left <= 0:
                log.info("idle for %.1f s: the host exits", self.idle_for())
                return
            self.listener.settimeout(left)
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(None)
            threading.Thread(target=self._handle, args=(conn,), name="host connection", daemon=True).start()

    def _enter(self, busy: bool, *, counted: bool) -> None:
        with self._state:
            self._active += busy
            self.generations += counted

    def _leave(self, busy: bool, *, touch: bool) -> None:
        with self._state:
            self._active -= busy
            if touch:
                self._last = time.monotonic()

    # ---------------------------------------------------------------- one connection

    def _handle(self, conn: socket.socket) -> None:
        lines = Lines(conn)
        try:
            if not same_user(conn):  # the folder is private; this is the second lock on the door
                log.warning("a connection from another user was refused")
                return
            message = lines.receive()
            if message is None:
                return
            op = message.get("op")
            busy = op in ("stream", "prefill", "count_tokens")
            self._enter(busy, counted=op == "stream")
            try:
                self._answer(op, message, lines)
            finally:
                self._leave(busy, touch=busy or op == "hello")  # `status` (doctor) keeps nobody warm
        except (OSError, WireError) as exc:
            log.info("connection ended: %s", exc)
        finally:
            with contextlib.suppress(OSError):
                lines.close()

    def status(self) -> dict[str, Any]:
        rt = self.runtime
        return {
            "pid": os.getpid(), "model": self.model, "name": rt.name, "loads": self.loads,
            "generations": self.generations, "idle_s": round(self.idle_for(), 3), "keep_alive": self.keep_alive,
            "context_size": rt.context_size, "supports_tools": rt.supports_tools,
            "supports_thinking": rt.supports_thinking, "supports_images": rt.supports_images,
            "enforces_thinking_budget": rt.enforces_thinking_budget,
            "cannot_see": "" if rt.supports_images else rt.cannot_see(),
            "model_details": [list(row) for row in rt.model_details()],
            "load_warnings": list(rt.load_warnings),
        }

    def _answer(self, op: Any, message: dict[str, Any], lines: Lines) -> None:
        if op == "status":
            lines.send({"result": self.status()})
        elif op == "hello":
            keep_alive = message.get("keep_alive")
            if isinstance(keep_alive, int | float) and keep_alive > 0:
                self.keep_alive = float(keep_alive)  # the latest client's wish, as Ollama does
            lines.send({"result": self.status()})
        elif op == "count_tokens":
            text = message.get("text")
            if not isinstance(text, str):
                raise WireError("count_tokens without text")
            lines.send({"result": self.runtime.count_tokens(text)})
        elif op == "stream":
            self._stream(request_from(message.get("request")), lines)
        elif op == "prefill":
            self._prefill(request_from(message.get("request")), bool(message.get("next_turn")), lines)
        else:
            lines.send({"error": f"unknown operation {str(op)[:40]!r}", "kind": "WireError"})

    def _watch_cancel(self, lines: Lines) -> CancelToken:
        """A token cancelled when the client says "cancel" or goes away."""
        token = CancelToken()

        def watch() -> None:
            try:
                while (message := lines.receive()) is not None and message.get("op") != "cancel":
                    pass
            except (OSError, WireError, ValueError):
                pass
            token.cancel()

        threading.Thread(target=watch, name="host cancel watch", daemon=True).start()
        return token

    def _stream(self, request: Any, lines: Lines) -> None:
        cancel = self._watch_cancel(lines)
        with self._generating:
            events = self.runtime.stream(request, cancel)
            try:
                for event in events:
                    try:
                        lines.send({"event": encode(event)})
                    except OSError:  # the client went away: its generation stops
                        cancel.cancel()
                        raise
            except OSError:
                raise
            except Exception as exc:  # the runtime's own error, raised again in the client
                log.info("generation failed: %s", exc)
                lines.send(error_message(exc))
            finally:
                close = getattr(events, "close", None)
                if close is not None:
                    close()

    def _prefill(self, request: Any, next_turn: bool, lines: Lines) -> None:
        cancel = self._watch_cancel(lines)
        with self._generating:
            try:
                cached = self.runtime.prefill(request, next_turn=next_turn, cancel=cancel)
            except Exception as exc:
                lines.send(error_message(exc))
                return
        lines.send({"result": cached})


def write_info(socket_file: Path, spec: dict[str, Any]) -> None:
    info = {"pid": os.getpid(), "model": spec["model"], "path": spec["path"], "socket": str(socket_file),
            "started": time.time()}
    target = info_path(socket_file)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(info, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qwen_runtime.host", description=__doc__)
    parser.add_argument("--spec", required=True, help="the model and its load options, as JSON")
    parser.add_argument("--ready-fd", type=int, default=None, help="a pipe to say ready (or why not) on")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(process)d %(name)s %(levelname)s: %(message)s")
    spec = json.loads(args.spec)
    ready = os.fdopen(args.ready_fd, "w") if args.ready_fd is not None else None

    def say(word: str) -> None:
        if ready is not None:
            with contextlib.suppress(OSError):
                ready.write(word + "\n")
                ready.close()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    socket_file = Path(spec["socket"])
    private_dir(socket_file.parent)
    with socket_lock(socket_file):
        listener = take_socket(socket_file)
        if listener is None:
            say("exists")
            return 0
        bound = os.stat(socket_file).st_ino
        write_info(socket_file, spec)
    try:
        from ..models.naming import load_gguf

        log.info("loading %s (%s) for %.0f s of idle time", spec["model"], spec["path"], spec["keep_alive"])
        started = time.perf_counter()
        try:
            runtime = load_gguf(spec["path"], spec["options"])
        except Exception as exc:
            log.error("the model did not load: %s", exc)
            say(f"error: {exc}")
            return 1
        log.info("loaded in %.2f s; serving on %s", time.perf_counter() - started, socket_file)
        say("ready")
        os.chdir("/")
        Host(runtime, listener, model=spec["model"], keep_alive=float(spec["keep_alive"])).serve()
        return 0
    finally:
        with socket_lock(socket_file):
            listener.close()
            with contextlib.suppress(OSError):
                if os.stat(socket_file).st_ino == bound:  # still ours (not a newer host's)
                    socket_file.unlink()
                    info_path(socket_file).unlink(missing_ok=True)
