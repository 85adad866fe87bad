"""Settings from TOML: the user's file in the config dir, then the project's `.sigit/settings.toml`.

The project file wins key by key; permission rule lists from both files are concatenated, so a
project can add rules but never drop the user's deny rules. The project's parts that run code or
loosen safety (each key says, in `sigit.config.schema`) apply only in a folder the user trusted.
Every key, its type and its error wording live in the model (`sigit.config.schema`); this module
reads the files, merges them and edits them.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from sigit.config.paths import project_settings_path, user_settings_path
from sigit.config.rules import parse_rule
from sigit.config.schema import (
    DEFAULT_ATTRIBUTION,
    DEFAULT_COMPACTION_THRESHOLD,
    DEFAULT_MAX_TOKENS,
    DEFAULT_PROMPT_CACHE_GB,
    DOWNLOAD_POLICIES,
    MODE_ALIASES,
    PERMISSION_DEFAULTS,
    PERMISSION_MODES,
    DownloadPolicy,
    PermissionDefault,
    PermissionMode,
    PermissionSettings,
    Settings,
    SettingsFileError,
    default_model,
    parse_settings_file,
)
from sigit.config.trust import split_project_settings
from sigit.errors import UsageError
from sigit.fileio import FileTooLargeError, NotRegularFileError, read_bounded, write_atomic

if TYPE_CHECKING:  # tomlkit edits settings files; reading them (every start) needs only tomllib
    import tomlkit
    from tomlkit.items import Table

__all__ = [
    "DEFAULT_ATTRIBUTION",
    "DEFAULT_COMPACTION_THRESHOLD",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_PROMPT_CACHE_GB",
    "DOWNLOAD_POLICIES",
    "MODE_ALIASES",
    "PERMISSION_DEFAULTS",
    "PERMISSION_MODES",
    "DownloadPolicy",
    "PermissionDefault",
    "PermissionMode",
    "PermissionSettings",
    "RuleKind",
    "Settings",
    "SettingsError",
    "default_model",
    "load_settings",
    "save_project_rule",
    "save_user_setting",
]

RuleKind = Literal["allow", "deny"]


class SettingsError(UsageError, ValueError):
    """A settings file that cannot be read or holds a bad value; the message names the file."""


def load_settings(cwd: Path, config_dir: Path | None = None, *, trusted: bool = False) -> Settings:
    """User settings, then the project's on top. Missing files are fine; bad ones raise SettingsError
    naming the file and every bad key in it.

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
        try:
            raw = _read_toml(path)
        except _NotAFileError as exc:  # a FIFO or /dev/zero in a repository: say so, go on without it
            settings.warnings.append(str(exc))
            continue
        if raw is None:
            continue
        project = path is not user_file
        layer = _parse(raw, path)  # the whole file is checked, its gated keys too
        if project and not trusted:
            layer = _parse(split_project_settings(raw)[0], path)
        _merge(settings, layer, path, project=project)
        settings.sources.append(path)
    return settings


def _parse(raw: dict[str, Any], path: Path) -> Settings:
    try:
        return parse_settings_file(raw, path)
    except SettingsFileError as exc:
        raise SettingsError(str(exc)) from None


class _NotAFileError(SettingsError):
    """The settings path is a FIFO, a device or a huge file: skipped with a warning, never fatal."""


def _read_toml(path: Path) -> dict[str, Any] | None:
    try:
        data = read_bounded(path)  # a project's settings file may be a FIFO or /dev/zero
    except FileNotFoundError:
        return None
    except (NotRegularFileError, FileTooLargeError) as exc:
        raise _NotAFileError(f"{path}: not read, and its settings not used: {exc}") from None
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


def _merge(settings: Settings, layer: Settings, path: Path, *, project: bool) -> None:
    """The keys `layer` (one file) set, on top of `settings`: values replace, rule and directory
    lists add up, hooks add up per event (user hooks run first), `[mcp]` and `[sandbox]` merge by key."""
    for name in layer.model_fields_set:
        if name == "permissions":
            _merge_permissions(settings.permissions, layer.permissions, path, settings.warnings, project=project)
        elif name == "hooks":
            merged = cast(dict[str, list[Any]], settings.hooks)
            for event, hooks in cast(dict[str, list[Any]], layer.hooks).items():  # user hooks run first
                merged[event] = [*merged.get(event, []), *hooks]
        elif name in ("mcp", "sandbox"):
            _deep_merge(getattr(settings, name), getattr(layer, name))
        else:
            setattr(settings, name, getattr(layer, name))


def _merge_permissions(
    perms: PermissionSettings, layer: PermissionSettings, path: Path, warnings: list[str], *, project: bool
) -> None:
    for name in layer.model_fields_set:
        if name == "mode" and project and layer.mode == "bypass":  # a cloned repository must not drop the guard rails
            warnings.append(f"{path}: `permissions.mode = \"bypass\"` is ignored in a project file; "
                            "use --permission-mode bypass or the user settings")
        elif name == "tools":
            perms.tools.update(layer.tools)
        elif name == "rules":
            perms.rules.allow.extend(layer.rules.allow)
            perms.rules.deny.extend(layer.rules.deny)
        elif name == "additional_directories":
            perms.additional_directories.extend(layer.additional_directories)
        else:
            setattr(perms, name, getattr(layer, name))


def _deep_merge(target: Any, source: Any) -> None:
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
    import tomlkit
    from tomlkit.items import Array, InlineTable

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
    import tomlkit
    import tomlkit.exceptions

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
    import tomlkit

    path = user_settings_path(config_dir)
    document = _editable_document(path)
    document[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, tomlkit.dumps(document))
    return path


def _subtable(parent: Any, key: str, path: Path, created: list[Table]) -> Any:
    import tomlkit
    from tomlkit.items import AoT, InlineTable, Table

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
