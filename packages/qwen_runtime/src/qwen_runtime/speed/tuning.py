"""A model's tuned settings on this machine: what `qwen-runtime tune` measured and chose, kept on disk.

One JSON file per model path and machine under `$QWEN_RUNTIME_TUNING_DIR`, else
`$XDG_CACHE_HOME/qwen-runtime/tuning` (the bench models' convention: `~/.cache/qwen-runtime/...`).
A record names the model file it was measured on (resolved path, size, modification time and a hash
of its first and last MiB) and the machine (CPU model, usable CPUs, physical cores); it applies only
when both still match, so a model renamed (another path) or replaced (another file at the path) and a
home directory shared with another machine never pick up settings measured elsewhere.

The files are data, read with `json` and checked field by field: a damaged or edited record is ignored
with a warning, never loaded half-way, and cannot name a draft model to load (only the named draft
sources) or anything else to run. Light on purpose: `sigit doctor` reads it without loading llama.cpp.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import platform
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..home import expand_home
from .cpus import cpu_budget
from .draft_sources import DRAFT_CHOICES
from .prompt_cache import model_identity

log = logging.getLogger(__name__)

TUNING_DIR_ENV: Final = "QWEN_RUNTIME_TUNING_DIR"
FORMAT: Final = 1
KV_CACHE_TYPES: Final = ("f16", "q8_0")
"""KV cache types a record may choose (q8_0 needs llama.cpp's flash attention for its V half)."""
MAX_RECORD_BYTES: Final = 256 * 1024
MAX_DRAFT_LIMIT: Final = 64


class TuningRecordError(ValueError):
    """A tuned-settings file that is not a record this version wrote (damaged, edited, or another format)."""


def tuning_dir() -> Path:
    """$QWEN_RUNTIME_TUNING_DIR, else $XDG_CACHE_HOME/qwen-runtime/tuning (~/.cache when unset)."""
    if folder := os.environ.get(TUNING_DIR_ENV):
        return expand_home(folder)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return expand_home(base) / "qwen-runtime" / "tuning"


@dataclass(frozen=True)
class MachineId:
    """The machine a record was measured on: what decides which threads and batch sizes are fastest."""

    cpu: str
    logical_cpus: int
    """CPUs this process could run on (affinity mask)."""
    physical_cores: int

    @classmethod
    def here(cls) -> MachineId:
        budget = cpu_budget(env={})  # the machine, not QWEN_RUNTIME_THREADS's cap (nor its misspelling)
        return cls(_cpu_model(), budget.logical, budget.physical)

    def describe(self) -> str:
        return f"{self.cpu}, {self.logical_cpus} CPUs ({self.physical_cores} physical cores)"

    def to_dict(self) -> dict[str, Any]:
        return {"cpu": self.cpu, "logical_cpus": self.logical_cpus, "physical_cores": self.physical_cores}


@dataclass(frozen=True)
class ModelFile:
    """The file a record was measured on; a record applies only to the same file at the same path."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    """Of the file's first and last MiB (`prompt_cache.model_identity`)."""

    @classmethod
    def of(cls, path: Path) -> ModelFile:
        identity = model_identity(path)
        return cls(str(expand_home(path).resolve()), int(identity["size"]), int(identity["mtime_ns"]),
                   str(identity["sha256"]))

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "mtime_ns": self.mtime_ns, "sha256": self.sha256}


@dataclass(frozen=True)
class TunedSettings:
    """What `qwen-runtime tune` chose for one model on one machine, and the figures it chose from.

    `verify_costs` maps a batch size n to the time of evaluating n tokens in one pass (a draft being
    verified: the last token and n-1 drafted ones, a logit row each) relative to one decode step; the
    adaptive draft length can start from it instead of from a guess.
    """

    n_threads: int
    n_threads_batch: int
    n_batch: int
    n_ubatch: int
    draft: str
    """A named draft source: prompt-lookup, mtp or none (never a model path)."""
    max_draft: int
    kv_cache_type: str
    verify_costs: Mapping[int, float]
    machine: MachineId
    model: ModelFile
    tuned_at: float
    """Unix time of the measurement."""
    seconds: float = 0.0
    """How long the calibration took."""
    measured: Mapping[str, Any] = field(default_factory=dict)
    """The figures behind each choice (tokens/s per thread count, per batch size, per draft source...)."""
    quick: bool = False

    @property
    def on_this_machine(self) -> bool:
        return self.machine == MachineId.here()

    @property
    def when(self) -> str:
        """The measurement's local date and time, for people."""
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.tuned_at))

    def summary(self) -> str:
        """The chosen values in one line (`--verbose`, `tune --show`, `sigit doctor`)."""
        draft = self.draft if self.draft == "none" else f"{self.draft} (at most {self.max_draft} tokens)"
        return (f"threads {self.n_threads} decode / {self.n_threads_batch} batch, batch {self.n_batch}, "
                f"draft {draft}, KV cache {self.kv_cache_type}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "model": self.model.to_dict(),
            "machine": self.machine.to_dict(),
            "tuned_at": self.tuned_at,
            "seconds": self.seconds,
            "quick": self.quick,
            "chosen": {
                "n_threads": self.n_threads, "n_threads_batch": self.n_threads_batch, "n_batch": self.n_batch,
                "n_ubatch": self.n_ubatch, "draft": self.draft, "max_draft": self.max_draft,
                "kv_cache_type": self.kv_cache_type,
            },
            "verify_costs": {str(n): cost for n, cost in sorted(self.verify_costs.items())},
            "measured": dict(self.measured),
        }

    @classmethod
    def from_dict(cls, data: Any) -> TunedSettings:
        """A record read back, every field checked; TuningRecordError names the first bad one."""
        obj = _table(data, "the record")
        if obj.get("format") != FORMAT:
            raise TuningRecordError(f"format {obj.get('format')!r}, not {FORMAT}")
        model, machine, chosen = (_table(obj.get(k), k) for k in ("model", "machine", "chosen"))
        draft = _text(chosen, "draft")
        if draft not in DRAFT_CHOICES:
            raise TuningRecordError(f"chosen.draft {draft!r} is not one of {', '.join(DRAFT_CHOICES)}")
        kv = _text(chosen, "kv_cache_type")
        if kv not in KV_CACHE_TYPES:
            raise TuningRecordError(f"chosen.kv_cache_type {kv!r} is not one of {', '.join(KV_CACHE_TYPES)}")
        costs: dict[int, float] = {}
        for key, value in _table(obj.get("verify_costs"), "verify_costs").items():
            if not key.isdigit() or not 1 <= int(key) <= MAX_DRAFT_LIMIT + 1:
                raise TuningRecordError(f"verify_costs has a batch size {key!r}")
            costs[int(key)] = _number(value, f"verify_costs[{key}]")
        measured = obj.get("measured", {})
        return cls(
            n_threads=_count(chosen, "n_threads", 4096), n_threads_batch=_count(chosen, "n_threads_batch", 4096),
            n_batch=_count(chosen, "n_batch", 1 << 20), n_ubatch=_count(chosen, "n_ubatch", 1 << 20),
            draft=draft, max_draft=_count(chosen, "max_draft", MAX_DRAFT_LIMIT), kv_cache_type=kv,
            verify_costs=costs,
            machine=MachineId(_text(machine, "cpu"), _count(machine, "logical_cpus", 1 << 16),
                              _count(machine, "physical_cores", 1 << 16)),
            model=ModelFile(_text(model, "path"), _count(model, "size", 1 << 62, low=0),
                            _count(model, "mtime_ns", 1 << 63, low=0), _text(model, "sha256")),
            tuned_at=_number(obj.get("tuned_at"), "tuned_at"),
            seconds=_number(obj.get("seconds", 0.0), "seconds", low=0.0),
            measured=_table(measured, "measured"),
            quick=obj.get("quick") is True,
        )


@dataclass(frozen=True)
class TuningStatus:
    """Every record about one model file: the one that applies here, and the others (for `sigit doctor`)."""

    model_path: Path
    here: TunedSettings | None
    """Measured on this file and this machine: applied on the next load."""
    elsewhere: tuple[TunedSettings, ...] = ()
    """Measured on this file on other machines: not applied here."""
    stale: TunedSettings | None = None
    """Measured at this path on this machine, but on a file since replaced: not applied."""
    problems: tuple[str, ...] = ()
    """Records about this path that could not be read (ignored)."""


def record_path(model_path: str | Path, machine: MachineId | None = None) -> Path:
    """The file holding the record for `model_path` on `machine` (this one by default)."""
    machine = machine or MachineId.here()
    key = json.dumps([str(expand_home(model_path).resolve()), machine.to_dict()], sort_keys=True)
    return tuning_dir() / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def read_record(path: Path) -> TunedSettings:
    """One record file, checked (OSError when unreadable, TuningRecordError when not a record)."""
    with path.open("rb") as f:
        raw = f.read(MAX_RECORD_BYTES + 1)
    if len(raw) > MAX_RECORD_BYTES:
        raise TuningRecordError(f"over {MAX_RECORD_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TuningRecordError(f"not JSON ({exc})") from None
    return TunedSettings.from_dict(data)


def tuned_settings(model_path: str | Path) -> TunedSettings | None:
    """The tuned settings that apply to `model_path` on this machine, or None (never tuned here, the
    file replaced since, or the record unreadable: that is logged as a warning and ignored)."""
    path = expand_home(model_path)
    where = record_path(path)
    try:
        record = read_record(where)
    except FileNotFoundError:
        return None
    except (OSError, TuningRecordError) as exc:
        log.warning("ignoring the tuned settings in %s (%s); run `qwen-runtime tune %s` again", where, exc, path)
        return None
    try:
        current = ModelFile.of(path)
    except OSError:
        return None
    if record.model != current:
        log.info("tuned settings for %s ignored: they were measured on another file at that path (run "
                 "`qwen-runtime tune` again)", path)
        return None
    if record.machine != MachineId.here():  # two machines whose paths hash alike: not ours
        return None
    return record


def tuning_status(model_path: str | Path) -> TuningStatus:
    """What is recorded about `model_path` here and elsewhere (reads every record in the folder)."""
    path = expand_home(model_path)
    resolved = str(path.resolve())
    try:
        current: ModelFile | None = ModelFile.of(path)
    except OSError:
        current = None
    machine = MachineId.here()
    here: TunedSettings | None = None
    stale: TunedSettings | None = None
    elsewhere: list[TunedSettings] = []
    problems: list[str] = []
    mine = record_path(path, machine)
    try:
        files = sorted(tuning_dir().glob("*.json"))
    except OSError:
        files = []
    for file in files:
        try:
            record = read_record(file)
        except (OSError, TuningRecordError) as exc:
            if file == mine:
                problems.append(f"{file}: {exc}")
            continue
        if record.model.path != resolved:
            continue
        if record.model != current:
            if record.machine == machine:
                stale = record
        elif record.machine == machine:
            here = record
        else:
            elsewhere.append(record)
    return TuningStatus(path, here, tuple(elsewhere), stale, tuple(problems))


def save_tuned(settings: TunedSettings) -> Path:
    """Write the record (atomically: a reader sees the old one or the new one) and return its file."""
    where = record_path(settings.model.path, settings.machine)
    where.parent.mkdir(parents=True, exist_ok=True)
    temporary = where.with_name(f".{where.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(settings.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(temporary, where)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    return where


def reset_tuning(model_path: str | Path) -> Path | None:
    """Forget `model_path`'s record on this machine; the file removed, or None when there was none."""
    where = record_path(model_path)
    try:
        where.unlink()
    except FileNotFoundError:
        return None
    return where


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                name, sep, value = line.partition(":")
                if sep and name.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _table(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TuningRecordError(f"{name} is not a table")
    return value


def _text(table: Mapping[str, Any], key: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value or len(value) > 4096:
        raise TuningRecordError(f"{key} is not a string")
    return value


def _count(table: Mapping[str, Any], key: str, high: int, *, low: int = 1) -> int:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TuningRecordError(f"{key} {value!r} is not a whole number from {low} to {high}")
    return value


def _number(value: Any, name: str, *, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < low:
        raise TuningRecordError(f"{name} {value!r} is not a number of at least {low:g}")
    return float(value)


__all__ = [
    "FORMAT",
    "KV_CACHE_TYPES",
    "TUNING_DIR_ENV",
    "MachineId",
    "ModelFile",
    "TunedSettings",
    "TuningRecordError",
    "TuningStatus",
    "read_record",
    "record_path",
    "reset_tuning",
    "save_tuned",
    "tuned_settings",
    "tuning_dir",
    "tuning_status",
]
