"""`sigit` run in the test's own process: `sigit.cli.main(argv)` with its stdin, stdout, stderr, working
directory and environment swapped for the call and put back after it.

A `sigit` subprocess costs a second or so of CPU (the interpreter, then pydantic, the agent, the tools and
llama_cpp imported again) to prove what the same call proves here, where everything is imported once per
worker. Tests whose point is the process itself (exit without teardown, signals, fds, what a child
inherits, a real stdio transport) keep starting `sigit`; the rest call this.

What `main` changes about the process is undone after each call, so the next test, in any order on the
same xdist worker, finds it as it was: os.environ (offline mode sets HF_HUB_OFFLINE), the working
directory, sys.stdin/stdout/stderr, the root logger's handlers and level (`setup_logging`), warnings
capture, the loggers of huggingface_hub and transformers (`logs._route_through_root`), SIGINT and SIGTERM
(headless sets them on its loop) and `cli._one_shot_done`.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload


def _stream(data: bytes = b"", errors: str = "strict") -> io.TextIOWrapper:
    """A text stream over bytes, UTF-8 as a `sigit` process's stdio on a pipe: not a terminal, with a
    `.buffer`, and (stdout) strict about what it can encode, so text no pipe could carry fails here too."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, write_through=True)


def _written(stream: io.TextIOWrapper) -> bytes:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue()


@contextlib.contextmanager
def process_state_kept(env: Mapping[str, str | None] | None = None, cwd: Path | str | None = None,
                       stdin: str | None = None, *, capture_stdio: bool = True
                       ) -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    """Within the block: `env` applied to os.environ (None unsets a name), `cwd` the working directory,
    `stdin` what sys.stdin reads (nothing when None, as from /dev/null); sys.stdout and sys.stderr are
    the two streams yielded (left as they are without `capture_stdio`). Everything listed in the module's
    docstring is restored at the end."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    root = logging.getLogger()
    saved_root = list(root.handlers), root.level
    capturing = logging._warnings_showwarning is not None  # type: ignore[attr-defined]
    libraries = {name: (logger.__class__, list(logger.handlers)) for name in ("huggingface_hub", "transformers")
                 if isinstance(logger := logging.Logger.manager.loggerDict.get(name), logging.Logger)}
    saved_signals = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    # stderr as Python's own is: what cannot be encoded is escaped, not an error
    out, err = _stream(), _stream(errors="backslashreplace")
    try:
        for name, value in (env or {}).items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if cwd is not None:
            os.chdir(cwd)
        if capture_stdio:
            sys.stdin, sys.stdout, sys.stderr = _stream((stdin or "").encode()), out, err
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for handler in root.handlers:
            if handler not in saved_root[0]:
                handler.close()
        root.handlers[:] = saved_root[0]
        root.setLevel(saved_root[1])
        if not capturing:
            logging.captureWarnings(False)
        for name in ("huggingface_hub", "transformers"):
            logger = logging.Logger.manager.loggerDict.get(name)
            if isinstance(logger, logging.Logger):
                cls, handlers = libraries.get(name, (logging.Logger, logger.handlers))
                logger.__class__ = cls
                logger.handlers[:] = handlers
        for sig, action in saved_signals.items():
            if action is not None and signal.getsignal(sig) is not action:
                signal.signal(sig, action)


@overload
def run_sigit_main(args: Sequence[str], *, cwd: Path | str | None = None, env: Mapping[str, str | None] | None = None,
                   stdin: str | None = None, timeout: float | None = None, text: Literal[True] = True
                   ) -> subprocess.CompletedProcess[str]: ...


@overload
def run_sigit_main(args: Sequence[str], *, cwd: Path | str | None = None, env: Mapping[str, str | None] | None = None,
                   stdin: str | None = None, timeout: float | None = None, text: Literal[False]
                   ) -> subprocess.CompletedProcess[bytes]: ...


def run_sigit_main(args: Sequence[str], *, cwd: Path | str | None = None, env: Mapping[str, str | None] | None = None,
                   stdin: str | None = None, timeout: float | None = None, text: bool = True
                   ) -> subprocess.CompletedProcess[Any]:
    """`sigit ARGS` as `sigit.cli.main(ARGS)` here: its exit code and what it wrote, shaped like the
    CompletedProcess of `subprocess.run([sigit, *args], capture_output=True, text=text)`.

    An exception `main` lets out fails the test with its traceback (a subprocess would have printed it
    on stderr and exited 1); SystemExit becomes the return code, as it would be the process's. A run
    that took longer than `timeout` seconds raises TimeoutExpired once it ends, as `subprocess.run`
    would have at the time (pytest's own timeout stops one that never ends)."""
    from sigit import cli

    started = time.monotonic()
    with process_state_kept(env, cwd, stdin) as (out, err):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
        finally:
            cli._one_shot_done = False
    stdout, stderr = _written(out), _written(err)
    if timeout is not None and time.monotonic() - started > timeout:
        raise subprocess.TimeoutExpired(["sigit", *args], timeout, stdout, stderr)
    if text:
        return subprocess.CompletedProcess(["sigit", *args], code, stdout.decode(), stderr.decode())
    return subprocess.CompletedProcess(["sigit", *args], code, stdout, stderr)
