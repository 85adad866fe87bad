"""`sigit -p`'s model, loading while the rest of siGit is imported.

A warm `sigit -p` (its prompt cache on disk) spends most of its second in llama.cpp: reading the
vocabulary and clearing the KV cache, native work that leaves the GIL free. Before this module, the
load began only after siGit's own imports (the agent, tools, permissions, sessions: ~0.15 s of Python
holding the GIL) and the session's settings; started first, it runs beside them. It decides as the host
will (model_choice.py, the same functions) and `SessionHost.runtime` uses it only where it is exactly
what the session would load; otherwise it is closed unused and the session loads its own. Whatever
goes wrong here is left for the session's own load to report: this is only a head start.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from onde import Runtime, import_backend, load_runtime

from .config.paths import config_dir as default_config_dir
from .model_choice import load_options, model_name, refuse_download, session_settings, trust_question
from .options import HostOptions

log = logging.getLogger(__name__)

READY_WAIT = 5.0
"""Seconds `start` waits at most for the load to leave Python (its settings read, its backend imported)."""


class EarlyLoad:
    """A model load started before the session that will use it exists (`start`), taken by the host."""

    def __init__(self, options: HostOptions, cwd: Path) -> None:
        self._options, self._cwd = options, cwd
        self.name: str | None = None
        """The model it loads (None: it decided not to: the session's own open will say why)."""
        self.load_options: dict[str, Any] | None = None
        self._runtime: Runtime | None = None
        self._unused = False
        self._lock = threading.Lock()
        self._decided = threading.Event()
        """Set once it knows what it loads and has imported the backend: from then on it is native code."""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="early model load", daemon=True)

    @classmethod
    def start(cls, options: HostOptions, cwd: Path, *, wait: float = READY_WAIT) -> EarlyLoad:
        """Start loading the model a headless session in `cwd` with `options` would load, and return once
        the load has left Python (or after `wait` seconds): imports after that do not delay it."""
        early = cls(options, cwd)
        early._thread.start()
        early._decided.wait(wait)
        return early

    def _run(self) -> None:
        try:
            config_dir = self._options.config_dir or default_config_dir()
            trusted = trust_question(self._cwd, config_dir, self._options) is None  # headless asks nobody
            settings, _, _ = session_settings(self._cwd, config_dir, self._options, trusted)
            name = model_name(self._options, settings)
            refuse_download(name, settings, self._options, config_dir)
            options = load_options(name, settings, self._options)
            if not options.get("keep_alive"):  # a model host loads it: this process needs no llama.cpp
                import_backend(name)
        except Exception as exc:  # a bad settings file, a model to download...: the open says it
            log.debug("no early model load: %s", exc)
            self._decided.set()
            self._done.set()
            return
        self.name, self.load_options = name, options
        self._decided.set()
        started = time.perf_counter()
        log.info("loading model %s early (beside siGit's imports)", name)
        try:
            runtime = load_runtime(name, **options)
        except Exception as exc:  # the session's own load raises it again, with the host's wording
            log.debug("early load of %s failed: %s", name, exc)
        else:
            log.info("model %s ready in %.2f s (loaded early)", name, time.perf_counter() - started)
            with self._lock:
                if self._unused:
                    runtime.close()
                else:
                    self._runtime = runtime
        finally:
            self._done.set()

    def take(self, name: str, options: dict[str, Any]) -> Runtime | None:
        """The model, once loaded, when it is `name` loaded with `options`; else None, after closing
        what it loaded (so that the session's own load does not find two models in memory). Once only.
        Blocking: waits for the load."""
        self._decided.wait()
        if self.name != name or self.load_options != options:
            self.discard()
            self._done.wait()
            return None
        self._done.wait()
        with self._lock:
            runtime, self._runtime, self._unused = self._runtime, None, True
        if runtime is not None:
            log.info("model %s: the early load is used", name)
        return runtime

    def discard(self, *, wait: bool = False) -> None:
        """Not used: the model is closed now if loaded, else when its load ends. `wait`: return only once
        the load has ended and what it loaded is closed (for a caller that goes on in this process without
        it; `sigit -p` does not wait, its process ends)."""
        with self._lock:
            runtime, self._runtime, self._unused = self._runtime, None, True
        if runtime is not None:
            runtime.close()
        if wait:
            self._done.wait()
