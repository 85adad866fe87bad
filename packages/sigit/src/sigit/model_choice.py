"""Which model a session in a folder loads, with which options, and whether it may (a download nobody
agreed to, offline): one place for `SessionHost` and for the early load of `sigit -p` (early_load.py),
which must decide as the host will. A light module: settings and trust, not the agent."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from onde import BadModelName, download_needed, expand_home

from .config.paths import prompt_cache_dir
from .config.settings import Settings, load_settings
from .config.trust import ProjectRequests, is_trusted, project_requests
from .errors import BadValueError, ModelNotDownloadedError
from .offline import REASON, go_offline
from .options import HostOptions

if TYPE_CHECKING:
    from onde import ModelDownload


def trust_question(cwd: Path, config_dir: Path, options: HostOptions) -> ProjectRequests | None:
    """What the folder wants, when opening a session there would ask about trust; else None
    (nothing to trust, trusted already with these parts, or `--trust`). Blocking: file reads."""
    load_settings(cwd, config_dir, trusted=True)  # a bad file is a SettingsError now, not after a yes
    requests = project_requests(cwd)
    if not requests or options.trust or is_trusted(requests, config_dir):
        return None
    return requests


def session_settings(cwd: Path, config_dir: Path, options: HostOptions,
                     trusted: bool) -> tuple[Settings, bool, str | None]:
    """The settings for a session, and whether the folder's parts are in them (and why not).

    What applies must be what was trusted: a project file that changed since the decision (while the
    user was being asked, or written by the last session's commands before a model switch) waits for
    the question again, as on the next open. Blocking: file reads.
    """
    settings = load_settings(cwd, config_dir, trusted=trusted)
    if not trusted or options.trust:
        return settings, trusted, None
    now = project_requests(cwd)
    if not now or is_trusted(now, config_dir):
        return settings, True, None
    notice = (f"the project files of {now.root} changed after they were trusted, so their hooks, MCP servers, "
              "model and permission settings are off for this session (open a session again to be asked)")
    return load_settings(cwd, config_dir, trusted=False), False, notice


def is_offline(options: HostOptions, settings: Settings) -> bool:
    """Whether sessions with these settings are offline (`--offline` or `offline = true`)."""
    return options.offline or settings.offline


def model_name(options: HostOptions, settings: Settings) -> str:
    return options.model or settings.model


def refuse_download(name: str, settings: Settings, options: HostOptions, config_dir: Path,
                    allowed: set[str] | frozenset[str] = frozenset()) -> None:
    """Raise ModelNotDownloadedError when loading `name` would download a model nobody agreed to (or
    anything at all, offline); `allowed`: names the user chose knowing they download."""
    if is_offline(options, settings):
        go_offline()
        needed = download_needed_by(name)
        if needed is not None:
            raise ModelNotDownloadedError(f"{REASON}, so the model {needed.name} ({needed.display_name}, "
                                          f"{needed.size_display}) cannot be downloaded: pass {LOCAL_MODEL} to "
                                          "use a .gguf file on this machine, or run once without --offline "
                                          "to download it", needed)
        return
    if options.download or settings.download == "auto" or name in allowed:
        return
    needed = download_needed_by(name)
    if needed is not None:
        raise ModelNotDownloadedError(not_downloaded_message(needed, config_dir), needed)


def download_needed_by(name: str) -> ModelDownload | None:
    try:
        return download_needed(name)
    except BadModelName as exc:
        raise BadValueError(str(exc)) from exc


def load_options(name: str, settings: Settings, options: HostOptions) -> dict[str, Any]:
    """The keyword options `onde.load_runtime(name, ...)` gets for a session with these settings."""
    loading = dict(options.runtime_options)
    report = options.on_download
    if report is not None:
        loading["progress"] = lambda done, total: report(name, done, total)
    # a draft source set by the flag or a settings file; else the runtime's (what `qwen-runtime tune` chose)
    draft = options.draft or (settings.draft if "draft" in settings.model_fields_set else None)
    if draft is not None:
        loading.setdefault("draft", draft)
    if settings.n_ctx:  # pinned; else a local GGUF's window is sized to the model and the machine
        loading.setdefault("n_ctx", settings.n_ctx)
    if settings.prompt_cache:  # only llama.cpp takes these; servers keep their own prefix caches
        loading.setdefault("prompt_cache_dir", str(prompt_cache_dir()))
        loading.setdefault("prompt_cache_max_bytes", int(settings.prompt_cache_max_gb * 1024**3))
    if settings.chat_template:  # read by the backend, which names a file that cannot serve
        loading.setdefault("chat_template_file", str(expand_home(settings.chat_template).absolute()))
    loading.setdefault("keep_alive", keep_alive(settings, options))
    if options.host_notice is not None:
        loading.setdefault("host_notice", options.host_notice)
    if settings.gpu_layers is not None:  # else llama.cpp's GPU, when it has one, takes every layer
        loading.setdefault("n_gpu_layers", settings.gpu_layers)
    if settings.mmproj:
        mmproj = settings.mmproj
        loading.setdefault("mmproj", mmproj if mmproj == "none" else str(expand_home(mmproj)))
    elif (settings.download == "auto" or options.download) and not is_offline(options, settings):
        # consent to fetch what seeing needs
        loading.setdefault("vision", True)
    return loading


KEEP_ALIVE_ENV = "SIGIT_KEEP_ALIVE"


def keep_alive(settings: Settings, options: HostOptions, env: Mapping[str, str] | None = None) -> float:
    """Seconds a local model stays loaded in its host: `--keep-alive`, else `SIGIT_KEEP_ALIVE`, else the
    `keep_alive` setting (0: no host, the model loads in this process)."""
    if options.keep_alive is not None:
        return options.keep_alive
    raw = (os.environ if env is None else env).get(KEEP_ALIVE_ENV, "").strip()
    if raw:
        from onde.system import parse_keep_alive

        try:
            return parse_keep_alive(raw)
        except ValueError as exc:
            raise BadValueError(f"{KEEP_ALIVE_ENV}: {exc}") from None
    return settings.keep_alive


LOCAL_MODEL = "--model PATH.gguf"
"""The fix that needs no network, named first in every refusal to download."""


def not_downloaded_message(needed: ModelDownload, config_dir: Path) -> str:
    """Why the model does not load: the model file a user may have already, then the three ways to say
    it may be downloaded (after unsetting HF_HUB_OFFLINE, when that is what keeps the hub away)."""
    from onde.system import hub_offline

    from .config.paths import user_settings_path

    unset = " (unset HF_HUB_OFFLINE first)" if hub_offline() else ""
    return (f"the model {needed.name} ({needed.display_name}, {needed.size_display}) is not downloaded yet, "
            f"and siGit downloads nothing that big without being asked: pass {LOCAL_MODEL} to use a .gguf file "
            f"on this machine, or, to download it{unset}, run `{needed.pull_command}` now, pass --download for "
            f"this run, or set `download = \"auto\"` in {user_settings_path(config_dir)}")
