"""What a report must say for its figures to be trusted and compared, and whether two runs may share a
results file.

A pass rate means little without the exact sigit (its git commit when run from a checkout), the model file
(its SHA-256, quantisation and architecture), the stack under it (onde, qwen-runtime, llama.cpp), the
machine (CPU model, cores, RAM), the tasks (a hash of every file, prompt and check) and the command line.
All of it goes into the run line of the results file; `--resume` compares it with the file's earlier runs
and refuses to mix attempts made under different settings into one row.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..fileio import write_atomic
from .task_model import Files, Task

HASH_CACHE = "eval-model-hashes.json"
"""In sigit's cache dir: file SHA-256s by path, size and modification time (a 5 GB GGUF takes ~10 s to hash)."""
SAME_RUN_KEYS = (
    "model",
    "thinking",
    "max_tokens",
    "temperature",
    "seed",
    "draft",
    "n_ctx",
    "settings_sha256",
    "model_sha256",
)
"""What a setting must keep for `--resume` to add to its attempts: what it samples and what it runs on."""


def sigit_revision() -> dict[str, Any]:
    """sigit's version, and its git commit when it runs from a checkout (`dirty`: with uncommitted changes)."""
    from .. import __version__

    here = Path(__file__).resolve().parent
    out: dict[str, Any] = {"version": __version__, "commit": None, "dirty": None}
    commit = _git(here, "rev-parse", "HEAD")
    tracked = _git(here, "ls-files", "--error-unmatch", "__init__.py")
    if commit and tracked is not None:
        out["commit"] = commit
        status = _git(here, "status", "--porcelain", "--untracked-files=no")
        out["dirty"] = bool(status) if status is not None else None
    return out


def _git(cwd: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def cpu_model() -> str | None:
    """The CPU's marketing name (`/proc/cpuinfo` on Linux, sysctl on macOS), else what platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    if platform.system() == "Darwin":
        try:
            proc = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5, check=False
            )
            if proc.returncode == 0 and proc.stdout.strip():
                return proc.stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    return platform.processor() or None


def memory_bytes() -> int | None:
    """Physical memory, where the OS says."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def machine() -> dict[str, Any]:
    """The machine and software a run's figures came from."""
    from ..versions import versions

    memory = memory_bytes()
    revision = sigit_revision()
    return {
        "sigit": revision["version"],
        "sigit_commit": revision["commit"],
        "sigit_dirty": revision["dirty"],
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "ram_gb": round(memory / 1024**3, 1) if memory else None,
        "versions": versions(),
    }


def file_sha256(path: Path, cache_dir: Path | None = None) -> str:
    """The file's SHA-256, kept in `cache_dir` by resolved path, size and modification time, so the next
    run of the same file reads a few bytes instead of gigabytes."""
    resolved = path.resolve()
    info = resolved.stat()
    key = f"{resolved}|{info.st_size}|{info.st_mtime_ns}"
    cache_file = cache_dir / HASH_CACHE if cache_dir is not None else None
    known: dict[str, str] = {}
    if cache_file is not None:
        try:
            loaded = json.loads(cache_file.read_text(encoding="utf-8"))
            known = {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, str)}
        except (OSError, ValueError, AttributeError):
            known = {}
        if key in known:
            return known[key]
    digest = hashlib.sha256()
    with resolved.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    value = digest.hexdigest()
    if cache_file is not None:
        kept = {k: v for k, v in known.items() if not k.startswith(f"{resolved}|")}
        kept[key] = value
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(cache_file, json.dumps(kept, indent=1).encode())
        except OSError:
            pass  # a read-only cache costs the next run a hash, nothing else
    return value


def model_facts(model: str | None, cache_dir: Path | None) -> dict[str, Any]:
    """The model file a setting runs, where it is a local GGUF: path, size, SHA-256, architecture,
    quantisation; for a server or scripted model, nothing (the name in the settings is all there is)."""
    if not model:
        return {}
    from onde import InferenceError, model_file_facts

    try:
        facts = model_file_facts(model)
    except (ValueError, InferenceError):
        return {}
    if facts is None:
        return {}
    return {**facts, "sha256": file_sha256(Path(facts["path"]), cache_dir)}


def _hash_files(digest: Any, label: str, files: Files) -> None:
    for name in sorted(files):
        source = files[name]
        data = source if isinstance(source, bytes) else source.read_bytes()
        digest.update(f"{label}:{name}:{len(data)}\n".encode())
        digest.update(data)


def task_hash(task: Task) -> str:
    """A task's fingerprint: its prompt, check, limits and every file (starting, hidden and reference)."""
    digest = hashlib.sha256()
    head = [task.id, task.prompt, list(task.check), task.timeout_s, task.max_turns, task.check_timeout_s]
    digest.update(json.dumps(head).encode())
    for label, files in (("repo", task.repo), ("check", task.check_files), ("solution", task.solution)):
        _hash_files(digest, label, files)
    return digest.hexdigest()[:16]


def pack_hash(hashes: Mapping[str, str]) -> str:
    """One hash over the tasks' fingerprints, for the report's header."""
    return hashlib.sha256(json.dumps(sorted(hashes.items())).encode()).hexdigest()[:16]


def setting_facts(described: Mapping[str, Any], model: Mapping[str, Any]) -> dict[str, Any]:
    """A setting's description with what identifies its model file and settings file added."""
    out = dict(described)
    out["model_sha256"] = model.get("sha256")
    settings_file = described.get("settings_file")
    if settings_file:
        try:
            out["settings_sha256"] = hashlib.sha256(Path(settings_file).read_bytes()).hexdigest()[:16]
        except OSError:
            out["settings_sha256"] = None
    return out


def resume_conflicts(earlier: Iterable[Mapping[str, Any]], now: Mapping[str, Any]) -> list[str]:
    """Why the run `now` may not add to a results file holding the `earlier` runs: each setting of the
    same name that samples or runs differently, and each task of the same id whose files changed."""
    problems: list[str] = []
    settings = {s.get("name"): s for s in now.get("settings", [])}
    tasks = now.get("task_hashes", {})
    for run in earlier:
        for old in run.get("settings", []):
            new = settings.get(old.get("name"))
            if new is None:
                continue
            for key in SAME_RUN_KEYS:
                if key in old and old.get(key) != new.get(key):
                    problems.append(f"setting {old.get('name')!r}: {key} was {old.get(key)!r}, now {new.get(key)!r}")
            old_flags, new_flags = old.get("flags", []), new.get("flags", [])
            if old_flags != new_flags:
                problems.append(f"setting {old.get('name')!r}: flags were {old_flags!r}, now {new_flags!r}")
        for task_id, old_hash in run.get("task_hashes", {}).items():
            if task_id in tasks and tasks[task_id] != old_hash:
                problems.append(f"task {task_id!r} changed (its files, prompt or check differ)")
    return list(dict.fromkeys(problems))


def refuse_mixed(earlier: Sequence[Mapping[str, Any]], now: Mapping[str, Any], path: Path) -> None:
    """UsageError naming what differs, when `now` may not resume the results in `path`."""
    problems = resume_conflicts(earlier, now)
    if problems:
        raise UsageError(
            f"--resume: {path} holds attempts made under other settings, and its rows would mix both: "
            + "; ".join(problems)
            + ". Give the same flags, or pass another --results file for this run"
        )
