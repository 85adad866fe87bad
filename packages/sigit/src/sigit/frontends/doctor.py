"""`sigit doctor [--json]`: what this machine can run, and the one next step when it cannot run a model.

Every check is listed with a status (ok, info, warn, fail). Exit 0 when the configured model can run
now, 1 otherwise. The hub check is one request answered within 3 s; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from onde import expand_home

from ..config.paths import config_dir, project_settings_path, state_dir, user_settings_path
from ..config.settings import Settings, SettingsError, load_settings
from ..errors import BadValueError
from ..fileio import read_bounded
from ..logs import log_file
from ..machine import GIB, available_ram, free_disk
from ..model_choice import KEEP_ALIVE_ENV, LOCAL_MODEL
from ..model_choice import keep_alive as keep_alive_of
from ..offline import go_offline
from ..options import HostOptions
from ..versions import versions

Status = Literal["ok", "info", "warn", "fail"]
HUB_TIMEOUT_S = 3.0
MARKS = {"ok": "ok  ", "info": "info", "warn": "WARN", "fail": "FAIL"}


@dataclass
class Check:
    name: str
    status: Status
    summary: str
    details: dict[str, Any] = field(default_factory=dict)
    next_step: str | None = None
    """For a failed check: what to do about it."""


@dataclass
class Report:
    checks: list[Check]

    @property
    def model_check(self) -> Check:
        return next(c for c in self.checks if c.name == "model")

    @property
    def ready(self) -> bool:
        """sigit can run its model now."""
        return self.model_check.status in ("ok", "warn") and all(  # warn: runs, with a caveat
            c.status != "fail" for c in self.checks if c.name in ("settings", "llama.cpp")
        )

    @property
    def next_step(self) -> str | None:
        if self.ready:
            return None
        for check in self.checks:
            if check.status == "fail" and check.next_step:
                return check.next_step
        return self.model_check.next_step

    def to_json(self) -> dict[str, Any]:
        return {"ready": self.ready, "next_step": self.next_step, "checks": [asdict(c) for c in self.checks]}


def run_doctor(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sigit doctor", description="Check what this machine can run.")
    parser.add_argument("--json", action="store_true", help="print the checks as one JSON object")
    parser.add_argument("--cwd", default=None, help="the project whose settings apply (default: here)")
    parser.add_argument("--offline", action="store_true", help="ask no server (as `offline = true` does)")
    parser.add_argument("--model", default=None, metavar="M",
                        help="check this model instead of the configured one (any name `sigit --model` takes)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 2
    report = diagnose(Path(args.cwd or os.getcwd()).resolve(), offline=args.offline, model=args.model)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, default=str))
    else:
        print(render(report))
    return 0 if report.ready else 1


def render(report: Report) -> str:
    width = max(len(c.name) for c in report.checks)
    lines = [f"{MARKS[c.status]}  {c.name:<{width}}  {c.summary}" for c in report.checks]
    if report.ready:
        lines.append(f"\nsigit can run {report.model_check.details.get('model', 'its model')} here.")
    else:
        lines.append(f"\nsigit cannot run a model yet. Next step: {report.next_step}")
    return "\n".join(lines)


def diagnose(cwd: Path, *, offline: bool = False, model: str | None = None) -> Report:
    """Every check, in the order a reader wants them; `model`: the one to check (`--model`), else the
    configured one."""
    from onde import machine_memory, system

    config = config_dir()
    settings, settings_check = _settings(cwd, config)
    name = model or settings.model
    if offline or settings.offline:
        go_offline()  # the hub check below asks nothing
    build_check, build = _llama(settings)
    ram = machine_memory()  # the memory every "does it fit" answer counts (a container's limit included)
    checks = [
        _python(),
        build_check,
        _gpu(build, settings),
        _ram(ram),
        _cache(system.cache_dir()),
    ]
    hub = _hub()
    model_check = _model(name, build is not None, hub, ram, settings.n_ctx, flag=model is not None)
    checks += [_disk(name, system.cache_dir()), hub, settings_check, _dirs(config), _mcp_server(),
               _model_hosts(settings), model_check]
    if (tuning := _tuning(name)) is not None:
        checks.append(tuning)
    return Report(checks)


# ---------------------------------------------------------------- the checks


def _python() -> Check:
    version = platform.python_version()
    packages = versions()
    installed = ", ".join(f"{name} {found or 'not installed'}" for name, found in packages.items()
                          if name != "llama-cpp-python")  # the llama.cpp check shows that one
    return Check("python", "ok" if sys.version_info >= (3, 11) else "fail",
                 f"Python {version} ({platform.python_implementation()}) on {platform.platform()}; {installed}",
                 {"version": version, "platform": platform.platform(), "machine": platform.machine(),
                  "executable": sys.executable, "packages": packages},
                 next_step=None if sys.version_info >= (3, 11) else "install Python 3.11 or newer")


def _llama(settings: Settings) -> tuple[Check, Any]:
    from onde import system

    try:
        build = system.llama_build()
    except Exception as exc:  # BackendUnavailable, or a library that fails to load
        return Check("llama.cpp", "fail", f"cannot load llama-cpp-python: {exc}",
                     next_step="reinstall llama-cpp-python (`uv pip install --reinstall llama-cpp-python`, "
                     "it compiles llama.cpp once)"), None
    features = ", ".join(build.cpu_features) or "none reported"
    return Check("llama.cpp", "ok", f"llama-cpp-python {build.version}; CPU features: {features}",
                 {"version": build.version, "cpu_features": list(build.cpu_features),
                  "system_info": build.system_info, "gpu_offload": build.gpu_offload}), build


def _gpu(build: Any, settings: Settings) -> Check:
    if build is None:
        return Check("gpu", "info", "unknown: llama.cpp does not load", {"gpu_offload": None})
    chosen = settings.gpu_layers
    default = build.default_gpu_layers
    layers = default if chosen is None else chosen
    source = "`gpu_layers` in settings" if chosen is not None else "the default"
    details = {"gpu_offload": build.gpu_offload, "gpu_layers": layers, "from_settings": chosen is not None}
    if build.gpu_offload:
        where = "every layer" if layers < 0 else f"{layers} layers" if layers else "no layers"
        return Check("gpu", "ok", f"GPU offload available: {where} on the GPU ({source})", details)
    summary = ("no GPU backend in this llama.cpp build: CPU only (reinstall llama-cpp-python with "
               "CMAKE_ARGS=\"-DGGML_CUDA=on\" or \"-DGGML_METAL=on\" for a GPU)")
    return Check("gpu", "info", summary, details)


def _ram(ram: int | None) -> Check:
    from onde import default_model, list_models

    models = list_models()
    fitting = [m.key for m in models if m.fits(ram)]
    available = available_ram()
    details: dict[str, Any] = {"total_bytes": ram, "available_bytes": available, "fits": fitting,
                               "too_big": [m.key for m in models if m.key not in fitting],
                               "default_model": default_model()}  # the registry's pick for this memory
    if ram is None:
        return Check("ram", "warn", "total RAM unknown on this platform", details)
    free = f", {available / GIB:.1f} GiB available" if available is not None else ""
    if not fitting:
        return Check("ram", "warn", f"{ram / GIB:.1f} GiB{free}: no registry model fits (`qwen-runtime models` "
                     "shows what each needs)", details)
    return Check("ram", "ok", f"{ram / GIB:.1f} GiB{free}; fits: {', '.join(fitting)}; default for this "
                 f"memory: {default_model()}", details)


def _cache(cache: Path) -> Check:
    from onde import list_models
    from onde.system import human_size

    cached: list[tuple[str, Path, int]] = []
    for model in list_models():
        path = model.cached_file()
        if path is not None:
            cached.append((model.key, path, _size(path)))
    total = _tree_size(cache)
    details = {"dir": str(cache), "total_bytes": total,
               "models": [{"model": key, "path": str(path), "bytes": size} for key, path, size in cached]}
    names = ", ".join(f"{key} ({human_size(size)})" for key, _, size in cached) or "no registry model"
    return Check("cache", "ok" if cached else "info", f"{cache}: {names}; {human_size(total)} in all", details)


def _disk(model: str, cache: Path) -> Check:
    from onde import BadModelName, download_needed
    from onde.system import human_size

    free = free_disk(cache)
    details: dict[str, Any] = {"dir": str(cache), "free_bytes": free}
    try:
        needed = download_needed(model)
    except BadModelName:
        needed = None
    shown = human_size(free) if free is not None else "unknown"
    if needed is None:
        return Check("disk", "ok", f"{shown} free in {cache}; {model} needs no download", details)
    details["needed_bytes"] = needed.size_bytes
    if free is not None and needed.size_bytes and free < needed.size_bytes:
        return Check("disk", "fail", f"{shown} free in {cache}, {model} needs {needed.size_display}", details,
                     next_step=f"free {human_size(needed.size_bytes - free)} in {cache} (or set HF_HUB_CACHE to "
                     f"a bigger disk), then run `{needed.pull_command}`")
    return Check("disk", "ok", f"{shown} free in {cache}; {model} needs {needed.size_display}", details)


def _hub() -> Check:
    from onde import system

    endpoint = system.hub_endpoint()
    if system.hub_offline():
        return Check("hub", "info", f"{endpoint}: not asked (HF_HUB_OFFLINE is set)",
                     {"endpoint": endpoint, "reachable": None, "offline": True})
    probe = system.probe_hub(HUB_TIMEOUT_S)
    details = {"endpoint": endpoint, "reachable": probe.reachable, "detail": probe.detail, "offline": False}
    if probe.reachable:
        return Check("hub", "ok", f"{endpoint} reachable ({probe.detail})", details)
    return Check("hub", "warn", f"{endpoint} not reachable: {probe.detail}", details)


def _settings(cwd: Path, config: Path) -> tuple[Settings, Check]:
    files = [user_settings_path(config), project_settings_path(cwd)]
    present = [path for path in dict.fromkeys(files) if path.is_file()]
    problems: list[str] = []
    for path in present:
        try:
            tomllib.loads(read_bounded(path).decode("utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{path}: {exc}")
    settings = Settings()
    if not problems:
        try:
            settings = load_settings(cwd, config)
        except SettingsError as exc:
            problems.append(str(exc))
    details = {"files": [str(p) for p in present], "problems": problems, "model": settings.model,
               "download": settings.download}
    if problems:
        return settings, Check("settings", "fail", problems[0], details,
                               next_step=f"fix the settings file: {problems[0]}")
    shown = ", ".join(str(p) for p in present) or "none (defaults)"
    return settings, Check("settings", "ok", f"{shown}; model {settings.model}", details)


def _dirs(config: Path) -> Check:
    state = state_dir()
    details = {"config_dir": str(config), "state_dir": str(state), "log_file": str(log_file(state))}
    return Check("dirs", "info", f"config {config}, state {state} (log {log_file(state)})", details)


def _model_hosts(settings: Settings) -> Check:
    """The model hosts that keep local models loaded between commands (`keep_alive`), one line each."""
    from onde.system import running_hosts

    try:
        keep_alive = keep_alive_of(settings, HostOptions())
    except BadValueError as exc:
        return Check("model hosts", "warn", str(exc), next_step=f"fix or unset {KEEP_ALIVE_ENV}")
    hosts = running_hosts()
    setting = f"keep_alive {keep_alive:g} s" if keep_alive else "keep_alive 0: each command loads its model"
    details: dict[str, Any] = {"keep_alive_s": keep_alive, "hosts": [
        {"model": h.model, "pid": h.pid, "idle_s": round(h.idle_s, 1), "keep_alive_s": h.keep_alive,
         "generations": h.generations, "socket": str(h.socket)} for h in hosts]}
    if not hosts:
        return Check("model hosts", "info", f"none running ({setting})", details)
    listed = "; ".join(f"{h.model} (pid {h.pid}, idle {h.idle_s:.0f} of {h.keep_alive:g} s, {h.socket})"
                       for h in hosts)
    return Check("model hosts", "info", f"{len(hosts)} running ({setting}): {listed}", details)


def _mcp_server() -> Check:
    """What `sigit mcp` offers another agent (Claude Code, Codex, Zed), and the SDK it runs on."""
    from importlib.metadata import PackageNotFoundError, version

    from .mcp_server import capabilities

    offered = capabilities()
    try:
        sdk = version("mcp")
    except PackageNotFoundError:
        return Check("mcp server", "fail", "`sigit mcp` needs the mcp package, which is not installed", offered,
                     next_step="reinstall sigit-agent (it depends on mcp)")
    tools = offered["tools"]
    return Check("mcp server", "info",
                 f"`sigit mcp` serves stdio, or streamable HTTP on 127.0.0.1 with --port (mcp {sdk}): "
                 f"{tools[0]} and {len(tools) - 1} plain tools; permission questions by elicitation, progress, "
                 "cancellation", {**offered, "sdk_version": sdk})


def _model(name: str, llama_ok: bool, hub: Check, ram: int | None, n_ctx: int | None = None, *,
           flag: bool = False) -> Check:
    """`flag`: the model is `--model`'s, not the configured one (the next steps say so)."""
    from onde import BadModelName, download_needed, is_gguf_model, model_fits

    where = "pass --model" if flag else "set `model` in settings to"
    try:
        local = is_gguf_model(name)
        needed = download_needed(name)
    except BadModelName as exc:
        return Check("model", "fail", str(exc).splitlines()[0], {"model": name, "from_flag": flag},
                     next_step=f"{where} a registry model, a .gguf path or KIND:VALUE")
    details: dict[str, Any] = {"model": name, "local": local, "cached": needed is None, "from_flag": flag}
    if needed is not None:
        # no network: the model file a user may have is the fix that works now, so it comes first
        local_file = f"pass {LOCAL_MODEL} to use a local .gguf file (or set `model` to it in settings)"
        if hub.details.get("reachable") is False:
            step = (f"{local_file}, or connect to the network (or fix HF_ENDPOINT: {hub.details.get('endpoint')}) "
                    f"and run `{needed.pull_command}`")
        elif hub.details.get("offline"):
            step = f"{local_file}, or unset HF_HUB_OFFLINE and run `{needed.pull_command}`"
        else:
            step = f"run `{needed.pull_command}` (or start `sigit` in a terminal to pick a model)"
        fits = model_fits(needed.size_bytes, ram) if needed.size_bytes else None
        if fits is False:
            step += f"; {needed.name} is too big for this RAM, so pick a smaller one (`qwen-runtime models`)"
        return Check("model", "fail", f"{name} ({needed.size_display}) is not downloaded", details, next_step=step)
    if local and not llama_ok:
        return Check("model", "fail", f"{name} needs llama.cpp, which does not load", details,
                     next_step="reinstall llama-cpp-python")
    if local and name.lower().endswith(".gguf") and not expand_home(name).is_file():
        return Check("model", "fail", f"{name}: no such file", details,
                     next_step=f"{where} an existing .gguf file (not {name})")
    summary = f"{name} is ready" + ("" if local else " (not a local model: not loaded here)")
    status: Status = "ok"
    if local and llama_ok:
        summary, status = _detected(name, n_ctx, details, summary)
    return Check("model", status, summary, details)


def _detected(name: str, n_ctx: int | None, details: dict[str, Any], summary: str) -> tuple[str, Status]:
    """What the runtime detects in the model's file (the rows `qwen-runtime inspect` prints) and the
    context window it gets here: into the details, the window and any warning into the summary."""
    from onde import InferenceError, inspect_model

    try:
        rows = inspect_model(name, n_ctx=n_ctx)
    except InferenceError as exc:
        details["detected_error"] = str(exc)
        return f"{summary}, but its file cannot be read: {exc}", "warn"
    if not rows:
        return summary, "ok"
    details["detected"] = {label: value for label, value in rows if label != "warning"}
    warnings = [value for label, value in rows if label == "warning"]
    details["warnings"] = warnings
    window = details["detected"].get("context window", "")
    text = f"{summary}; template {details['detected'].get('template', '?')}; context window {window}"
    return (f"{text}; WARNING: {warnings[0]}", "warn") if warnings else (text, "ok")


def _tuning(name: str) -> Check | None:
    """Whether `qwen-runtime tune` measured the configured local model on this machine (its choices apply
    to every load), and the command that does when not; None when the model is no local GGUF file."""
    from onde import BadModelName, model_tuning

    try:
        status = model_tuning(name)
    except BadModelName:
        return None
    if status is None:
        return None
    command = f"qwen-runtime tune {status.model_path}"
    here = status.here
    details: dict[str, Any] = {
        "model_path": str(status.model_path), "tuned": here is not None, "command": command,
        "here": here.to_dict() if here is not None else None,
        "elsewhere": [{"when": r.when, "machine": r.machine.describe()} for r in status.elsewhere],
        "stale": status.stale.when if status.stale is not None else None, "problems": list(status.problems),
    }
    if here is not None:
        return Check("tuning", "ok", f"tuned {here.when} on this machine: {here.summary()}", details)
    if status.problems:
        why = f"its tuned settings cannot be read ({status.problems[0]})"
    elif status.stale is not None:
        why = f"tuned {status.stale.when} on an earlier file at this path, not this one"
    elif status.elsewhere:
        other = status.elsewhere[0]
        why = f"tuned {other.when} on another machine ({other.machine.describe()}), not this one"
    else:
        why = "not tuned on this machine (defaults apply)"
    return Check("tuning", "info", f"{status.model_path.name}: {why}; run `{command}` (about a minute)", details)


def _size(path: Path) -> int:
    try:
        return path.resolve().stat().st_size
    except OSError:
        return 0


def _tree_size(root: Path) -> int:
    total = 0
    for directory, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
    return total
