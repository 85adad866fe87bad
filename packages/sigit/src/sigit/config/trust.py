"""Folder trust: what a project's files would run or loosen, and which folders the user trusted.

A cloned repository is untrusted input. Its `.sigit/settings.toml` and `.mcp.json` may run code
(hooks, MCP servers), send the conversation elsewhere (a `model` endpoint) or loosen the guard
rails (permission mode, allow rules, directories, sandbox keys). Those parts apply only once the
user trusted the folder; the rest (deny rules, thinking, max_tokens...) always applies.

The decision lives in `<config dir>/trusted_folders.json`, keyed by the resolved project root, with
a digest of the trust-relevant parts: when they change, the folder is asked about again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from sigit.config.paths import config_dir as default_config_dir
from sigit.config.paths import project_root, project_settings_path
from sigit.config.schema import setting_keys, untrusted_split
from sigit.config.script_pins import project_scripts
from sigit.errors import UsageError
from sigit.fileio import FileTooLargeError, NotRegularFileError, read_bounded, write_atomic

TRUST_FILE: Final = "trusted_folders.json"
MAX_PROJECT_FILE: Final = 1024 * 1024  # a settings or .mcp.json file larger than this is refused
MCP_JSON: Final = ".mcp.json"

T = TypeVar("T")


class TrustStoreError(UsageError, ValueError):
    """The trust file, or a project file, cannot be read; the message names it."""


# ---------------------------------------------------------------- splitting a project's settings


def split_project_settings(raw: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(always, gated): a project settings table split into what applies in any folder and what
    applies only in a trusted one, as each key of the settings model says. Both keep the file's
    shape, so the loader reads either."""
    return untrusted_split(raw)


# ---------------------------------------------------------------- what a folder wants


@dataclass(frozen=True)
class ProjectRequests:
    """What a folder's project files would do once trusted, as lines a person reads."""

    root: Path
    lines: tuple[str, ...]
    digest: str

    def __bool__(self) -> bool:
        return bool(self.lines)


def project_requests(cwd: Path, settings_raw: Mapping[str, Any] | None = None) -> ProjectRequests:
    """The trust-relevant parts of `cwd`'s project: its settings' gated keys and its `.mcp.json`.

    `settings_raw` is the parsed project settings when the caller has read them already (None:
    read here; a file that cannot be read as TOML raises TrustStoreError).
    """
    root = project_root(cwd)
    if settings_raw is None:
        settings_raw = _read_toml(project_settings_path(cwd))
    _, gated = split_project_settings(settings_raw)
    mcp_bytes = _read_bytes(root / MCP_JSON)
    lines = [_printable(line) for line in (*_describe_settings(gated), *_describe_mcp_json(mcp_bytes))]
    # the scripts the hooks and servers run from the project, by content: one rewritten asks again
    scripts = project_scripts(gated, _parsed_json(mcp_bytes), root)
    payload = json.dumps({"settings": gated, **({"scripts": scripts} if scripts else {})}, sort_keys=True,
                         default=str).encode()
    digest = hashlib.sha256(payload + b"\0" + (mcp_bytes or b"")).hexdigest()
    return ProjectRequests(root, tuple(lines), f"sha256:{digest}")


def _parsed_json(data: bytes | None) -> Mapping[str, Any] | None:
    try:
        parsed = json.loads(data) if data else None
    except (ValueError, UnicodeDecodeError):
        return None
    return parsed if isinstance(parsed, Mapping) else None


def _printable(text: str) -> str:
    """Control characters escaped: a repository's `\\r` or escape sequence must not redraw the question."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in text)


def _read_toml(path: Path) -> dict[str, Any]:
    data = _read_bytes(path)
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TrustStoreError(f"{path}: invalid TOML: {exc}") from None


def _read_bytes(path: Path) -> bytes | None:
    """A project file, bounded: a FIFO, a device or a huge file is refused, never waited on."""
    try:
        return read_bounded(path, MAX_PROJECT_FILE)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (NotRegularFileError, FileTooLargeError):
        return None  # not read by the settings or the MCP client either (they say why): nothing to trust
    except OSError as exc:
        raise TrustStoreError(f"{path}: cannot read: {exc.strerror or exc}") from None


_OWN_SENTENCE = frozenset({
    "model", "draft", "download", "offline", "mmproj", "hooks", "mcp.servers", "permissions.mode",
    "permissions.default", "permissions.rules.allow", "permissions.tools", "permissions.additional_directories",
})
"""Gated keys `_describe_settings` has a sentence for (and every `sandbox.*` key); any other gated key
gets a plain one, so a key added to the settings model still makes its folder ask."""


def _describe_settings(gated: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    model = gated.get("model")
    if model is not None:
        lines.append(f"sends the conversation to {model}" if str(model).startswith("openai:")
                     else f"uses the model {model}")
    if "draft" in gated:  # a model file to load, like `model`
        lines.append(f"loads the draft model {gated['draft']}")
    if "download" in gated:
        lines.append(f"downloads models without asking (`download = {gated['download']!r}`)")
    if "offline" in gated:
        lines.append(f"turns offline mode off (`offline = {json.dumps(gated['offline'])}`)")
    if "mmproj" in gated:  # a binary to load, like `draft`
        lines.append(f"loads the vision projector {gated['mmproj']}")
    hooks = gated.get("hooks")
    if isinstance(hooks, dict):
        for event, entries in hooks.items():
            for entry in entries if isinstance(entries, list) else [entries]:
                command = entry.get("command") if isinstance(entry, dict) else entry
                lines.append(f"runs `{command}` at {event}")
    servers = gated.get("mcp", {}).get("servers")
    if isinstance(servers, dict):
        lines.extend(_describe_server(name, entry, "settings") for name, entry in servers.items())
    perms = gated.get("permissions", {})
    if "mode" in perms:
        lines.append(f"permission mode {perms['mode']}")
    if "default" in perms:
        lines.append('allows every tool call by default (`default = "allow"`)' if perms["default"] == "allow"
                     else f'sets the default answer to {perms["default"]!r}')
    allowed = perms.get("rules", {}).get("allow")
    if allowed:
        shown = ", ".join(str(rule) for rule in allowed) if isinstance(allowed, list) else str(allowed)
        lines.append(f"allow rules: {shown}")
    tools = perms.get("tools", {})
    if tools:
        lines.append("per-tool answers: " + ", ".join(f"{tool} = {answer}" for tool, answer in tools.items()))
    directories = perms.get("additional_directories")
    if directories:
        shown = ", ".join(map(str, directories)) if isinstance(directories, list) else str(directories)
        lines.append(f"reads files in: {shown}")
    sandbox = gated.get("sandbox", {})
    for key, value in sandbox.items() if isinstance(sandbox, dict) else []:
        lines.append(f"loosens the sandbox: {key} = {json.dumps(value, default=str)}")
    for key, value in _leaves(gated):
        if key not in _OWN_SENTENCE and not key.startswith("sandbox."):
            lines.append(f"sets `{key} = {json.dumps(value, default=str)}`")
    if gated and not lines:  # a gated key whose sentence came out empty (`allow = []`): still asked about
        lines.append("sets " + ", ".join(f"`{key}`" for key, _ in _leaves(gated)))
    return lines


def _leaves(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """The settings keys a (gated) table sets, dotted, as the settings model names them."""
    keys = {name for name, _ in setting_keys()}
    out: list[tuple[str, Any]] = []
    for name, value in table.items():
        dotted = prefix + name
        if isinstance(value, Mapping) and dotted not in keys:
            out += _leaves(value, dotted + ".")
        else:
            out.append((dotted, value))
    return out


def _describe_server(name: str, entry: Any, where: str) -> str:
    """The server as it would run (the same transport choice as the MCP client), its environment and
    headers as written (`${VAR}` unexpanded: the user sees which variables would be sent)."""
    if not isinstance(entry, dict):
        return f"starts MCP server `{name}` ({where})"
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "http" if "url" in entry and "command" not in entry else "stdio"
    extra = ""
    for label, key in (("environment", "env"), ("headers", "headers")):
        table = entry.get(key)
        if isinstance(table, dict) and table:
            extra += f"; {label}: " + ", ".join(f"{k}={v}" for k, v in table.items())
    if kind != "stdio":
        return f"connects to MCP server `{name}` at {entry.get('url', '?')} ({kind}{extra}) ({where})"
    args = entry.get("args", [])
    words = [str(entry.get("command", "?")), *(map(str, args) if isinstance(args, list) else [])]
    return f"starts MCP server `{name}`: `{' '.join(words)}`{extra} ({where})"


def _describe_mcp_json(data: bytes | None) -> list[str]:
    if data is None:
        return []
    try:
        servers = json.loads(data.decode("utf-8")).get("mcpServers")
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return [f"starts the MCP servers of {MCP_JSON} (the file does not parse)"]
    if not isinstance(servers, dict) or not servers:
        return []
    return [_describe_server(name, entry, MCP_JSON) for name, entry in servers.items()]


# ---------------------------------------------------------------- the store


@dataclass(frozen=True)
class TrustedFolder:
    root: str
    digest: str
    trusted_at: str


def trust_file(config_dir: Path | None = None) -> Path:
    return (config_dir if config_dir is not None else default_config_dir()) / TRUST_FILE


def trusted_folders(config_dir: Path | None = None) -> list[TrustedFolder]:
    """Every recorded folder, sorted by path."""
    folders = _load(trust_file(config_dir))
    return [TrustedFolder(root, entry["digest"], entry.get("trusted_at", ""))
            for root, entry in sorted(folders.items())]


def is_trusted(requests: ProjectRequests, config_dir: Path | None = None) -> bool:
    """Whether the user trusted this folder with exactly these parts (a folder wanting nothing is)."""
    if not requests:
        return True
    entry = _load(trust_file(config_dir)).get(str(requests.root))
    return entry is not None and entry.get("digest") == requests.digest


def record_trust(requests: ProjectRequests, config_dir: Path | None = None) -> None:
    """Trust the folder with its current parts."""
    entry = {"digest": requests.digest, "trusted_at": datetime.now(UTC).isoformat(timespec="seconds")}
    _update(trust_file(config_dir), lambda folders: folders.__setitem__(str(requests.root), entry))


def revoke_trust(root: Path, config_dir: Path | None = None) -> bool:
    """Forget the folder (its project root); False when it was not recorded."""
    key = str(project_root(root))
    removed: list[bool] = []
    _update(trust_file(config_dir), lambda folders: removed.append(folders.pop(key, None) is not None))
    return removed[0]


def keep_trust(cwd: Path, config_dir: Path | None, change: Callable[[], T]) -> T:
    """Run `change` (sigit editing a project file at the user's word) and keep the folder trusted if
    it was: trusted before, or wanting nothing before (the user's own rule needs no question)."""
    try:
        was_trusted = is_trusted(project_requests(cwd), config_dir)
    except TrustStoreError:  # a broken trust file or project file: the change still happens
        was_trusted = False
    result = change()
    if was_trusted:
        after = project_requests(cwd)
        if after:
            record_trust(after, config_dir)
    return result


def _load(path: Path) -> dict[str, dict[str, str]]:
    try:
        text = read_bounded(path, MAX_PROJECT_FILE).decode("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise TrustStoreError(f"{path}: cannot read the trusted folders: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TrustStoreError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, dict):
        raise TrustStoreError(f'{path}: expected an object with "folders"')
    return {root: entry for root, entry in folders.items()
            if isinstance(entry, dict) and isinstance(entry.get("digest"), str)}


def _update(path: Path, change: Callable[[dict[str, dict[str, str]]], object]) -> None:
    """Read, change and write the trust file under a lock, so two sessions do not lose an entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.with_name(f".{path.name}.lock")):
        folders = _load(path)
        change(folders)
        text = json.dumps({"version": 1, "folders": folders}, indent=2, sort_keys=True) + "\n"
        write_atomic(path, text.encode("utf-8"))


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): the write is still atomic
        yield
        return
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
