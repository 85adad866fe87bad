"""The client side of a model host: `HostedRuntime`, a `Runtime` whose work happens in the host, and
`open_hosted`, which finds the host for a model file and its load settings, starts it when there is
none, and loads the model in this process instead (with a one-line notice) when the host cannot be used.

Everything above a runtime stays as it is: the same requests go in and the same events come out, and
a host that dies mid-session is replaced by an in-process load on the next request (a request it was
answering ends with an error event, as a crash of the in-process model would have ended it).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import errors
from ..images import ImageError
from ..runtime import CancelToken, Runtime
from ..types import ChatRequest, Event, Finished
from .places import host_key, info_path, log_dir, runtime_dir, same_user, socket_path
from .wire import Lines, WireError, encode, event_from

log = logging.getLogger(__name__)

Notice = Callable[[str], None]


class HostUnavailable(errors.QwenRuntimeError):
    """The host could not be reached or started (the caller loads the model itself)."""


class HostGone(HostUnavailable):
    """The host closed the connection before it answered (killed, crashed, or leaving when idle)."""


def connect(socket_file: Path) -> Lines:
    """A connection to the host at `socket_file`, refused unless this user is the one listening."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(socket_file))
        if not same_user(conn):
            raise HostUnavailable(f"{socket_file} is served by another user")
    except BaseException:
        conn.close()
        raise
    return Lines(conn)


def ask(socket_file: Path, message: dict[str, Any]) -> Any:
    """One question, one answer (`hello`, `status`, `count_tokens`)."""
    lines = connect(socket_file)
    try:
        lines.send(message)
        return answer(lines.receive())
    finally:
        lines.close()


def answer(reply: dict[str, Any] | None) -> Any:
    """The result in `reply`, or the host's error raised here."""
    if reply is None:
        raise HostGone("the model host closed the connection")
    if "error" in reply:
        raise remote_error(reply)
    return reply.get("result")


def remote_error(reply: dict[str, Any]) -> Exception:
    """The exception the host raised, as the same type where it is one of the runtime's own."""
    kind, message = str(reply.get("kind", "")), str(reply.get("error", ""))
    if kind == "ContextOverflowError" and isinstance(fields := reply.get("fields"), dict):
        return errors.ContextOverflowError(int(fields["prompt_tokens"]), int(fields["context_size"]),
                                           int(fields.get("max_tokens", 0)))
    if kind == "ImageError":
        return ImageError(message)
    cls = getattr(errors, kind, None)
    if isinstance(cls, type) and issubclass(cls, errors.QwenRuntimeError) and cls not in (
            errors.ContextOverflowError, errors.ServerError):
        return cls(message)
    if kind in ("ValueError", "WireError"):
        return ValueError(message)
    return errors.QwenRuntimeError(f"{kind}: {message}" if kind else message)


def start_host(socket_file: Path, spec: dict[str, Any]) -> None:
    """Start the host for `spec` (detached: its own session, its log in `log_dir`) and wait until it
    says it is ready (or that another was first); `HostUnavailable` with the host's reason otherwise."""
    log_file = log_dir() / f"{socket_file.stem}.log"
    read_end, write_end = os.pipe()
    try:
        with open(log_file, "ab") as log_out:
            os.chmod(log_file, 0o600)
            process = subprocess.Popen(
                [sys.executable, "-m", "qwen_runtime.host", "--spec", json.dumps(spec), "--ready-fd",
                 str(write_end)],
                stdin=subprocess.DEVNULL, stdout=log_out, stderr=log_out, pass_fds=(write_end,),
                start_new_session=True, close_fds=True,
            )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    with os.fdopen(read_end) as ready:
        said = ready.read().strip()
    # the host outlives this process; a thread reaps it if it leaves first (no zombie in a long session)
    threading.Thread(target=process.wait, name="host reaper", daemon=True).start()
    if said not in ("ready", "exists"):
        why = said.removeprefix("error: ") or f"it exited (see {log_file})"
        raise HostUnavailable(f"the model host did not start: {why}")


@dataclass(frozen=True)
class HostInfo:
    """A running host, as `sigit doctor` lists it."""

    model: str
    pid: int
    idle_s: float
    keep_alive: float
    generations: int
    socket: Path


def running_hosts() -> list[HostInfo]:
    """The hosts of this user that answer now (a stale socket, left by a killed host, is not one)."""
    try:
        folder = runtime_dir()
    except OSError:
        return []
    found = []
    for socket_file in sorted(folder.glob("*.sock")):
        try:
            status = ask(socket_file, {"op": "status"})
        except (OSError, HostUnavailable, WireError):
            continue
        found.append(HostInfo(str(status["model"]), int(status["pid"]), float(status["idle_s"]),
                              float(status["keep_alive"]), int(status["generations"]), socket_file))
    return found


def open_hosted(path: str, options: dict[str, Any], keep_alive: float, *, model: str,
                notice: Notice | None = None) -> Runtime:
    """The model at `path` with `options`, served by its host (started now if none runs); loaded in
    this process instead, after one line to `notice` (else a logged warning), when no host can serve it."""
    from ..models.naming import load_gguf

    def load_here() -> Runtime:
        return load_gguf(path, options)

    try:
        json.dumps(options)
        folder = runtime_dir()
        socket_file = socket_path(folder, host_key(path, options))
        spec = {"model": model, "path": path, "options": options, "keep_alive": keep_alive,
                "socket": str(socket_file)}
        return HostedRuntime.reach(socket_file, spec, load_here, notice)
    except (OSError, TypeError, ValueError, HostUnavailable) as exc:
        tell(notice, f"the model host is not used ({exc}): loading the model in this process")
        return load_here()


def tell(notice: Notice | None, line: str) -> None:
    log.warning("%s", line)
    if notice is not None:
        notice(line)


class HostedRuntime(Runtime):
    """A runtime served by a model host: each request is a connection to it, and its events are the
    host's runtime's own. Falls back to `load_here` (once, with a notice) when the host is gone."""

    def __init__(self, socket_file: Path, status: dict[str, Any], load_here: Callable[[], Runtime],
                 notice: Notice | None) -> None:
        self.socket_file = socket_file
        self.host_pid = int(status["pid"])
        self.name = str(status["name"])
        self.supports_tools = bool(status["supports_tools"])
        self.supports_thinking = bool(status["supports_thinking"])
        self.supports_images = bool(status["supports_images"])
        self.enforces_thinking_budget = bool(status["enforces_thinking_budget"])
        self._context_size = int(status["context_size"])
        self._cannot_see = str(status["cannot_see"])
        self._details = tuple((str(a), str(b)) for a, b in status["model_details"])
        self.load_warnings = tuple(str(w) for w in status.get("load_warnings", ()))
        self._load_here, self._notice = load_here, notice
        self._local: Runtime | None = None
        self._local_lock = threading.Lock()

    @classmethod
    def reach(cls, socket_file: Path, spec: dict[str, Any], load_here: Callable[[], Runtime],
              notice: Notice | None) -> HostedRuntime:
        """The host at `socket_file`, started first when none answers (once more if it was leaving)."""
        hello = {"op": "hello", "keep_alive": spec["keep_alive"]}
        for _ in range(3):
            try:
                status = ask(socket_file, hello)
            except (FileNotFoundError, ConnectionRefusedError, HostGone):
                start_host(socket_file, spec)
                continue
            log.info("model %s served by the host %s (pid %s)", spec["model"], socket_file, status["pid"])
            return cls(socket_file, status, load_here, notice)
        raise HostUnavailable(f"no host answered on {socket_file}")

    # ---------------------------------------------------------------- what the host said at hello

    @property
    def context_size(self) -> int:
        return self._local.context_size if self._local is not None else self._context_size

    def model_details(self) -> tuple[tuple[str, str], ...]:
        return self._local.model_details() if self._local is not None else self._details

    def cannot_see(self) -> str:
        return self._local.cannot_see() if self._local is not None else self._cannot_see

    # ---------------------------------------------------------------- requests

    def _fall_back(self, why: BaseException) -> Runtime:
        with self._local_lock:
            if self._local is None:
                tell(self._notice, f"the model host stopped ({why}): loading the model in this process")
                self._local = self._load_here()
            return self._local

    def _open(self, message: dict[str, Any], cancel: CancelToken | None) -> tuple[Lines, Callable[[], None]]:
        """A connection with `message` sent, and a cancel that tells the host (undone by the caller)."""
        lines = connect(self.socket_file)
        try:
            lines.send(message)
        except BaseException:
            lines.close()
            raise

        def stop() -> None:
            with contextlib.suppress(OSError):
                lines.send({"op": "cancel"})

        return lines, (cancel.on_cancel(stop) if cancel is not None else lambda: None)

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        if self._local is not None:
            yield from self._local.stream(request, cancel)
            return
        try:
            lines, forget = self._open({"op": "stream", "request": encode(request)}, cancel)
        except (OSError, HostUnavailable) as exc:
            yield from self._fall_back(exc).stream(request, cancel)
            return
        yielded = False
        try:
            while True:
                gone: OSError | None = None
                try:
                    reply = lines.receive()
                except OSError as exc:
                    reply, gone = None, exc
                if reply is None:
                    why = gone or HostGone("the model host closed the connection mid-reply")
                    if not yielded:
                        yield from self._fall_back(why).stream(request, cancel)
                        return
                    # as an in-process crash would end it; the next request finds another host or loads here
                    yield Finished("error", f"the model host stopped mid-reply: {why}")
                    return
                if "event" not in reply:
                    raise remote_error(reply)
                event = event_from(reply["event"])
                yielded = True
                yield event
                if isinstance(event, Finished):
                    return
        finally:
            forget()
            lines.close()

    def prefill(self, request: ChatRequest, *, next_turn: bool = False, cancel: CancelToken | None = None) -> int:
        if self._local is not None:
            return self._local.prefill(request, next_turn=next_turn, cancel=cancel)
        try:
            lines, forget = self._open({"op": "prefill", "request": encode(request), "next_turn": next_turn},
                                       cancel)
        except (OSError, HostUnavailable) as exc:
            return self._fall_back(exc).prefill(request, next_turn=next_turn, cancel=cancel)
        try:
            return int(answer(lines.receive()))
        except (OSError, HostGone) as exc:
            return self._fall_back(exc).prefill(request, next_turn=next_turn, cancel=cancel)
        finally:
            forget()
            lines.close()

    def count_tokens(self, text: str) -> int:
        if self._local is not None:
            return self._local.count_tokens(text)
        try:
            return int(ask(self.socket_file, {"op": "count_tokens", "text": text}))
        except (OSError, HostUnavailable) as exc:
            return self._fall_back(exc).count_tokens(text)

    def status(self) -> dict[str, Any]:
        """What the host says of itself now (pid, loads, generations, idle time)."""
        result = ask(self.socket_file, {"op": "status"})
        if not isinstance(result, dict):
            raise WireError("a status that is not an object")
        return result

    def close(self) -> None:
        """Leaves the host running (it exits when idle); frees an in-process fallback."""
        if self._local is not None:
            self._local.close()


__all__ = ["HostInfo", "HostUnavailable", "HostedRuntime", "info_path", "open_hosted", "running_hosts"]
