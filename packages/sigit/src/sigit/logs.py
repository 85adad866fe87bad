"""Where logs go: a size-capped rotating file in the state dir, and stderr only with `--verbose`.

Headless stdout and stderr carry siGit's own output only (the answer, progress lines, errors);
llama.cpp's C log lines (forwarded into Python logging by qwen_runtime), huggingface_hub's and
transformers' messages and Python warnings all go to `<state dir>/logs/sigit.log`. `SIGIT_LOG`
picks the level (debug, info, warning; default info).
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from .config.paths import state_dir

LOG_ENV = "SIGIT_LOG"
LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
DEFAULT_LEVEL = "info"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 2
"""At most (1 + BACKUPS) x MAX_BYTES of logs on disk."""
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
LIBRARIES_WITH_OWN_HANDLER = ("huggingface_hub", "transformers")
"""Libraries that add a stderr handler of their own when imported; here they only propagate."""


def log_file(directory: Path | None = None) -> Path:
    return (directory if directory is not None else state_dir()) / "logs" / "sigit.log"


def log_level(environ: dict[str, str] | None = None) -> tuple[int, str | None]:
    """The level `SIGIT_LOG` names, and a warning when it names none."""
    raw = (os.environ if environ is None else environ).get(LOG_ENV, "").strip().lower()
    if not raw:
        return LEVELS[DEFAULT_LEVEL], None
    if raw in LEVELS:
        return LEVELS[raw], None
    choices = ", ".join(LEVELS)
    return LEVELS[DEFAULT_LEVEL], f"{LOG_ENV}={raw!r} is not one of {choices}; logging at {DEFAULT_LEVEL}"


def setup_logging(*, verbose: bool = False) -> Path | None:
    """Send every log record to the log file (and to stderr when `verbose`); the file, or None when
    it cannot be opened (then a line on stderr says why, and records go to stderr only if verbose)."""
    level, problem = log_level()
    if problem:
        print(f"sigit: {problem}", file=sys.stderr)
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_sigit", False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
    path: Path | None = log_file()
    try:
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
        )
    except OSError as exc:
        print(f"sigit: cannot write the log file {path}: {exc.strerror or exc}", file=sys.stderr)
        path, file_handler = None, logging.NullHandler()
    _add(root, file_handler)
    if verbose:
        _add(root, logging.StreamHandler(sys.stderr))
    logging.captureWarnings(True)  # warnings.warn(...) from libraries: to the log, not the terminal
    for name in LIBRARIES_WITH_OWN_HANDLER:
        _route_through_root(name)
    return path


def _add(root: logging.Logger, handler: logging.Handler) -> None:
    handler.setFormatter(logging.Formatter(FORMAT))
    handler._sigit = True  # type: ignore[attr-defined]  # ours, to replace on a second setup
    root.addHandler(handler)


class _PropagatingLogger(logging.Logger):
    """A library root logger that refuses the stderr handler its library adds on import."""

    def addHandler(self, hdlr: logging.Handler) -> None:
        if type(hdlr) is logging.StreamHandler:
            return
        super().addHandler(hdlr)


def _route_through_root(name: str) -> None:
    existing = logging.Logger.manager.loggerDict.get(name)
    if isinstance(existing, logging.Logger):  # imported already: drop the handler it added
        for handler in list(existing.handlers):
            if type(handler) is logging.StreamHandler:
                existing.removeHandler(handler)
        existing.__class__ = _PropagatingLogger
        return
    previous = logging.getLoggerClass()
    logging.setLoggerClass(_PropagatingLogger)
    try:
        logging.getLogger(name)
    finally:
        logging.setLoggerClass(previous)
