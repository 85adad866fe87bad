"""Settings from TOML: the user's file in the config dir, then the project's `.sigit/settings.toml`.

The project file wins key by key; permission rule lists from both files are concatenated, so a
project can add rules but never drop the user's deny rules. The project's parts that run code or
loosen safety (see `sigit.config.trust`) apply only in a folder the user trusted.
"""

from __future__ import annotations

import copy
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

import tomlkit
import tomlkit.exceptions
from tomlkit.items import AoT, Array, InlineTable, Table

from sigit.config.paths import project_settings_path, user_settings_path
from sigit.config.rules import RuleSyntaxError, parse_rule
from sigit.config.trust import split_project_settings
from sigit.errors import UsageError
from sigit.fileio import read_bounded, write_atomic


def default_model() -> str:
    """The model a user with no `model` setting gets: the registry's choice for this machine's
    memory (a Qwen 3.5 model), imported only when settings are built (onde pulls in the runtime)."""
    from onde import default_model as registry_default

    return registry_default()


DEFAULT_MAX_TOKENS = 8192
DEFAULT_COMPACTION_THRESHOLD = 0.8
DEFAULT_PROMPT_CACHE_GB = 4.0
DEFAULT_ATTRIBUTION = "Co-Authored-By: siGit Code <297239231+sigitc@users.noreply.github.com>"

PermissionDefault = Literal["ask", "allow", "deny"]
PermissionMode = Literal["default", "accept-edits", "plan", "bypass"]
RuleKind = Literal["allow", "deny"]
DownloadPolicy = Literal["ask", "auto"]

PERMISSION_DEFAULTS: tuple[str, ...] = get_args(PermissionDefault)
PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)
DOWNLOAD_POLICIES: tuple[str, ...] = get_args(DownloadPolicy)
MODE_ALIASES = {
    "acceptEdits": "accept-edits",
    "accept_edits": "accept-edits",
    "bypassPermissions": "bypass",
    "bypass-permissions": "bypass",
}

_TRAILER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: \S[^\n]*$")


class SettingsError(UsageError, ValueError):
    """A settings file that cannot be read or holds a bad value; the message names the file."""


@dataclass
class PermissionSettings:
    default: PermissionDefault = "ask"
    mode: PermissionMode = "default"
    tools: dict[str, PermissionDefault] = field(default_factory=dict)
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    additional_directories: list[str] = field(default_factory=list)
    """Directories the file tools may read besides the working directory (`~` and relative paths allowed)."""


@dataclass
class Settings:
    model: str = field(default_factory=lambda: default_model())  # looked up when built (tests pin it)
    n_ctx: int | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    thinking_budget: int | None = None
    """Reasoning tokens before `<think>` is closed and the model must answer (None: half of max_tokens)."""
    thinking: bool = True
    prompt_cache: bool = True
    """Save evaluated prompt states on disk (local GGUF models), so a new session restores them."""
    prompt_cache_max_gb: float = DEFAULT_PROMPT_CACHE_GB
    gpu_layers: int | None = None
    """Layers of a local GGUF model offloaded to the GPU: -1 all, 0 none; None all when llama.cpp has a GPU backend."""
    download: DownloadPolicy = "ask"
    """"ask": a model that is not cached is downloaded only when the user says so; "auto": whenever needed."""
    draft: str = "prompt-lookup"
    """Speculative decoding for local models: "prompt-lookup", "none", or a draft model's .gguf path."""
    mmproj: str | None = None
    """The vision projector a local GGUF model sees with (a path, or "none"); by default the one beside
    the model or a registry model's downloaded one."""
    permissions: PermissionSettings = field(default_factory=PermissionSettings)
    attribution: bool | str = True
    compaction_threshold: float = DEFAULT_COMPACTION_THRESHOLD
    hooks: dict[str, Any] = field(default_factory=dict)
    mcp: dict[str, Any] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)
    """The `[sandbox]` table as written (the project's loosening keys only in a trusted folder)."""
    sources: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def attribution_trailer(self) -> str | None:
        """The commit trailer to add, or None when attribution is off."""
        if self.attribution is True:
            return DEFAULT_ATTRIBUTION
        if self.attribution is False:
            return None
        return self.attribution


def load_settings(cwd: Path, config_dir: Path | None = None, *, trusted: bool = False) -> Settings:
    """User settings, then the project's on top. Missing files are fine; bad ones raise SettingsError.

    Unless `trusted`, the project file's hooks, MCP servers, model, loosening permissions and
    sandbox keys are left out (its deny rules and harmless keys still apply).
    """
    settings = Settings()
    user_file = user_settings_path(config_dir)
    project_file = project_settings_path(cwd)
    files = [user_file]
    if project_file.resolve() != user_file.resolve():
        files.append(project_file)
    for path in files:
        raw = _read_toml(path)
        if raw is not None:
            project = path is not user_file
            if project and not trusted:
                raw, _ = split_project_settings(raw)
            _apply(settings, raw, path, project=project)
            settings.sources.append(path)
    return settings


def _read_toml(path: Path) -> dict[str, Any] | None:
    try:
        data = read_bounded(path)  # a project's settings file may be a FIFO or /dev/zero
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read settings: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SettingsError(
            f"{path}: settings are not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: invalid TOML: {exc}") from None


def _apply(settings: Settings, raw: dict[str, Any], path: Path, *, project: bool = False) -> None:
    for key, value in raw.items():
        if key == "model":
            settings.model = _string(value, key, path)
        elif key == "n_ctx":
            settings.n_ctx = _positive_int(value, key, path)
        elif key == "max_tokens":
            settings.max_tokens = _positive_int(value, key, path)
        elif key == "thinking_budget":
            settings.thinking_budget = _positive_int(value, key, path)
        elif key == "thinking":
            settings.thinking = _bool(value, key, path)
        elif key == "prompt_cache":
            settings.prompt_cache = _bool(value, key, path)
        elif key == "prompt_cache_max_gb":
            settings.prompt_cache_max_gb = _positive_number(value, key, path)
        elif key == "gpu_layers":
            settings.gpu_layers = _gpu_layers(value, path)
        elif key == "download":
            settings.download = _choice(value, key, path, DOWNLOAD_POLICIES)  # type: ignore[assignment]
        elif key == "draft":
            settings.draft = _string(value, key, path)
        elif key == "mmproj":
            settings.mmproj = _string(value, key, path)
        elif key == "attribution":
            settings.attribution = _attribution(value, path)
        elif key == "compaction_threshold":
            settings.compaction_threshold = _threshold(value, path)
        elif key == "permissions":
            _apply_permissions(settings.permissions, _table(value, key, path), path, settings.warnings,
                               project=project)
        elif key in ("hooks", "mcp", "sandbox"):
            target = {"hooks": settings.hooks, "mcp": settings.mcp, "sandbox": settings.sandbox}[key]
            table = _table(value, key, path)
            if key == "hooks":
                # each event's array of tables adds up: user hooks run, then the project's
                for event, hooks in table.items():
                    if isinstance(hooks, list) and isinstance(target.get(event), list):
                        target[event] = target[event] + copy.deepcopy(hooks)
                    else:
                        target[event] = copy.deepcopy(hooks)
            else:
                _deep_merge(target, table)
        else:
            settings.warnings.append(f"{path}: unknown setting `{key}` (ignored)")


def _apply_permissions(
    perms: PermissionSettings, raw: dict[str, Any], path: Path, warnings: list[str], *, project: bool = False
) -> None:
    for key, value in raw.items():
        name = f"permissions.{key}"
        if key == "default":
            perms.default = _choice(value, name, path, PERMISSION_DEFAULTS)  # type: ignore[assignment]
        elif key == "mode":
            if isinstance(value, str):
                value = MODE_ALIASES.get(value, value)
            mode = _choice(value, name, path, PERMISSION_MODES)
            if project and mode == "bypass":  # a cloned repository must not switch the guard rails off
                warnings.append(f"{path}: `permissions.mode = \"bypass\"` is ignored in a project file; "
                                "use --permission-mode bypass or the user settings")
                continue
            perms.mode = mode  # type: ignore[assignment]
        elif key == "tools":
            for tool, choice in _table(value, name, path).items():
                perms.tools[tool] = _choice(choice, f"{name}.{tool}", path, PERMISSION_DEFAULTS)  # type: ignore[assignment]
        elif key == "rules":
            for kind, rules in _table(value, f"{name}", path).items():
                if kind not in ("allow", "deny"):
                    warnings.append(f"{path}: unknown setting `permissions.rules.{kind}` (ignored)")
                    continue
                target = perms.allow if kind == "allow" else perms.deny
                target.extend(_rules(rules, f"permissions.rules.{kind}", path))
        elif key == "additional_directories":
            perms.additional_directories.extend(_directories(value, name, path))
        else:
            warnings.append(f"{path}: unknown setting `{name}` (ignored)")


def _directories(value: Any, name: str, path: Path) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise SettingsError(f"{path}: `{name}` must be a list of directory paths, got {value!r}")
    return [item.strip() for item in value]


def _rules(value: Any, name: str, path: Path) -> list[str]:
    if not isinstance(value, list):
        raise SettingsError(f"{path}: `{name}` must be a list of rules, got {_kind(value)}")
    rules: list[str] = []
    for item in value:
        try:
            rules.append(parse_rule(item).text)
        except RuleSyntaxError as exc:
            raise SettingsError(f"{path}: `{name}`: {exc}") from None
    return rules


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}.get(
        type(value), "a table" if isinstance(value, dict) else type(value).__name__
    )


def _string(value: Any, name: str, path: Path) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{path}: `{name}` must be a non-empty string, got {_kind(value)}")
    return value.strip()


def _positive_int(value: Any, name: str, path: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise SettingsError(f"{path}: `{name}` must be a positive integer, got {value!r}")
    return value


def _positive_number(value: Any, name: str, path: Path) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise SettingsError(f"{path}: `{name}` must be a positive number, got {value!r}")
    return float(value)
def _gpu_layers(value: Any, path: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise SettingsError(f"{path}: `gpu_layers` must be -1 (all layers on the GPU), 0 (none) or a number "
                            f"of layers, got {value!r}")
    return value


def _bool(value: Any, name: str, path: Path) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{path}: `{name}` must be true or false, got {value!r}")
    return value


def _table(value: Any, name: str, path: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SettingsError(f"{path}: `{name}` must be a table, got {_kind(value)}")
    return value


def _choice(value: Any, name: str, path: Path, choices: tuple[str, ...]) -> str:
    if value not in choices:
        options = ", ".join(f'"{choice}"' for choice in choices)
        raise SettingsError(f"{path}: `{name}` must be one of {options}, got {value!r}")
    return cast(str, value)


def _attribution(value: Any, path: Path) -> bool | str:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and _TRAILER_RE.match(value.strip()):
        return value.strip()
    raise SettingsError(
        f"{path}: `attribution` must be true, false or a one-line trailer such as "
        f'"Co-Authored-By: Name <email>", got {value!r}'
    )


def _threshold(value: Any, path: Path) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value <= 1
        or math.isnan(value)
    ):
        raise SettingsError(
            f"{path}: `compaction_threshold` must be a number above 0 and at most 1, got {value!r}"
        )
    return float(value)


def _deep_merge(target: dict[str, Any], source: dict[str, Any]) -> None:
    for key, value in source.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def save_project_rule(cwd: Path, rule: str, kind: RuleKind = "allow") -> Path:
    """Append `rule` to `[permissions.rules] <kind>` in the project's settings, keeping everything else.

    Returns the settings file. A rule already present is not added twice.
    """
    if kind not in ("allow", "deny"):
        raise ValueError(f"rule kind must be 'allow' or 'deny', not {kind!r}")
    text = parse_rule(rule).text
    path = project_settings_path(cwd)
    document = _editable_document(path)

    created: list[Table] = []
    rules = _subtable(_subtable(document, "permissions", path, created), "rules", path, created)
    existing = rules.get(kind)
    if existing is None:
        array = tomlkit.array()
        array.multiline(not isinstance(rules, InlineTable))
        array.append(text)
        rules[kind] = array
        if created:
            created[-1].add(tomlkit.nl())
    elif isinstance(existing, Array | list):
        if text not in [str(item) for item in existing]:
            existing.append(text)
    else:
        raise SettingsError(f"{path}: `permissions.rules.{kind}` must be a list of rules")
    _write_atomic(path, tomlkit.dumps(document))
    return path


def _editable_document(path: Path) -> tomlkit.TOMLDocument:
    """A settings file as a document that keeps its comments when written back; empty if missing."""
    try:
        source = read_bounded(path).decode("utf-8")
    except FileNotFoundError:
        source = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read settings: {exc}") from None
    try:
        return tomlkit.parse(source)
    except tomlkit.exceptions.ParseError as exc:
        raise SettingsError(f"{path}: invalid TOML: {exc}") from None


def save_user_setting(config_dir: Path | None, key: str, value: str | int | bool) -> Path:
    """Set a top-level key in the user's settings file, keeping everything else (comments too)."""
    path = user_settings_path(config_dir)
    document = _editable_document(path)
    document[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, tomlkit.dumps(document))
    return path


def _subtable(parent: Any, key: str, path: Path, created: list[Table]) -> Any:
    if key not in parent:
        if isinstance(parent, InlineTable):
            parent[key] = tomlkit.inline_table()
        else:
            parent[key] = tomlkit.table()
            created.append(parent[key])
        return parent[key]
    value = parent[key]
    if isinstance(value, AoT) or not isinstance(value, Table | InlineTable):
        raise SettingsError(f"{path}: `{key}` must be a table")
    return value


def _write_atomic(path: Path, text: str) -> None:
    write_atomic(path, text.encode("utf-8"))
