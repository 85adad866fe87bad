"""The settings model: every key of settings.toml, its type, what an error says about it, and (one
table, `UNTRUSTED_MAY_SET`) which keys a project file may set in a folder the user has not trusted.

One description serves three readers: the loader (validation, with every problem of a file reported
at once and an unknown key named with the nearest known one), folder trust (`untrusted_split` walks
the same classes and lets through only what `UNTRUSTED_MAY_SET` names: every other key waits for
trust) and the rest of sigit (typed attributes). `[hooks]` entries and `[mcp.servers]` entries are
checked here too, key by key, with the same errors; only the sandbox's values are left to the
sandbox (`SandboxPolicy.from_settings`).

The model is in four modules: `schema_keys` (`Key` and the shared value types), `schema_mcp` (`[mcp]`),
`schema_hooks` (`[hooks]`) and this one (the rest, `Settings` itself, and the two readers that walk it:
reading one file, and `untrusted_split`). Every name of the four is importable from here.
"""

import copy
import difflib
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, NotRequired, Required, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
    with_config,
)
from pydantic_core import ErrorDetails, PydanticCustomError
from typing_extensions import TypedDict, is_typeddict

from sigit.config.schema_hooks import (
    DEFAULT_HOOK_TIMEOUT_SECS,
    HOOK_EVENTS,
    MAX_HOOK_TIMEOUT_SECS,
    TOOL_HOOK_EVENTS,
    EventHook,
    EventHooks,
    HooksTable,
    ToolHook,
    ToolHooks,
    matcher_alternatives,
)
from sigit.config.schema_keys import KEEP_ALIVE_FORMS, Key, PositiveInt, Rule, Text, choices, finite, keep_alive_seconds
from sigit.config.schema_mcp import MCP_TRANSPORTS, McpServer, McpTable, McpTransport, mcp_transport

__all__ = [
    "ANY",
    "DEFAULT_ATTRIBUTION",
    "DEFAULT_COMPACTION_THRESHOLD",
    "DEFAULT_HOOK_TIMEOUT_SECS",
    "DEFAULT_KEEP_ALIVE",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_PROMPT_CACHE_GB",
    "DOWNLOAD_POLICIES",
    "DRAFT_SOURCES",
    "HOOK_EVENTS",
    "MAX_HOOK_TIMEOUT_SECS",
    "MCP_TRANSPORTS",
    "MODE_ALIASES",
    "PERMISSION_DEFAULTS",
    "PERMISSION_MODES",
    "REASONING_EFFORTS",
    "SAFE_MODES",
    "TOOL_HOOK_EVENTS",
    "UNTRUSTED_MAY_SET",
    "DownloadPolicy",
    "Each",
    "EventHook",
    "EventHooks",
    "HooksTable",
    "Key",
    "McpServer",
    "McpTable",
    "McpTransport",
    "PermissionDefault",
    "PermissionMode",
    "PermissionSettings",
    "PositiveInt",
    "ReasoningEffort",
    "Rule",
    "RuleLists",
    "SandboxTable",
    "Settings",
    "SettingsFileError",
    "Text",
    "ToolHook",
    "ToolHooks",
    "default_model",
    "matcher_alternatives",
    "mcp_transport",
    "parse_settings_file",
    "setting_keys",
    "table_splits",
    "untrusted_split",
]

DEFAULT_MAX_TOKENS = 8192
DEFAULT_COMPACTION_THRESHOLD = 0.8
DEFAULT_PROMPT_CACHE_GB = 4.0
DEFAULT_KEEP_ALIVE = 300.0
"""Seconds a local model stays loaded in its host after the last command used it (Ollama's default too)."""
DEFAULT_ATTRIBUTION = "Co-Authored-By: siGit Code <297239231+sigitc@users.noreply.github.com>"

PermissionDefault = Literal["ask", "allow", "deny"]
PermissionMode = Literal["default", "accept-edits", "plan", "bypass"]
DownloadPolicy = Literal["ask", "auto"]
ReasoningEffort = Literal["low", "medium", "xhigh"]
"""Qwen 3.8's efforts (onde's `REASONING_EFFORTS`; a test keeps the two equal)."""

PERMISSION_DEFAULTS: tuple[str, ...] = get_args(PermissionDefault)
PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)
DOWNLOAD_POLICIES: tuple[str, ...] = get_args(DownloadPolicy)
REASONING_EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)
MODE_ALIASES = {
    "acceptEdits": "accept-edits",
    "accept_edits": "accept-edits",
    "bypassPermissions": "bypass",
    "bypass-permissions": "bypass",
}
SAFE_MODES = frozenset({"plan", "bypass", "bypassPermissions", "bypass-permissions"})
"""Permission modes a project may set without trust: plan is the strictest, so it loosens no user's
mode (bypass is refused from a project file, trusted or not, with a warning, by the settings
loader). `default` would loosen a user's `plan`, so it needs trust like `accept-edits`."""

_TRAILER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: \S[^\n]*$")


def default_model() -> str:
    """The model a user with no `model` setting gets: the registry's choice for this machine's
    memory (Qwen3.6-35B-A3B or a Qwen 3.5 model), imported only when settings are built (onde pulls in the runtime)."""
    from onde import default_model as registry_default

    return registry_default()


# ---------------------------------------------------------------- values of Settings' own keys


def _attribution(value: Any) -> bool | str:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and _TRAILER_RE.match(value.strip()):
        return value.strip()
    raise PydanticCustomError("attribution", "not a trailer")


def _draft(value: str) -> str:
    """A draft source as the runtime reads it (the model file is checked when it loads)."""
    from onde import DraftSourceError, parse_draft

    try:
        return str(parse_draft(value, check_file=False))
    except DraftSourceError as exc:
        raise ValueError(str(exc)) from None


def _loads_a_model(value: object) -> bool:
    from onde import DraftSourceError, parse_draft

    if not isinstance(value, str):
        return True  # not a source (the value's own check says why)
    try:
        return parse_draft(value, check_file=False).loads_a_model
    except DraftSourceError:
        return True  # not a source: nothing a project's file may set


DRAFT_SOURCES = '"prompt-lookup" (or "ngram"), "mtp", "none" or a draft model\'s .gguf path'


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuleLists(_Table):
    """`[permissions.rules]`: a project's deny rules apply anywhere, its allow rules once trusted."""

    allow: Annotated[list[Rule], Key("a list of rules")] = Field(default_factory=list)
    deny: Annotated[list[Rule], Key("a list of rules")] = Field(default_factory=list)


class PermissionSettings(_Table):
    """`[permissions]`. `allow` and `deny` are the rule lists (`[permissions.rules]`)."""

    default: Annotated[PermissionDefault, Key(choices(PERMISSION_DEFAULTS))] = "ask"
    mode: Annotated[PermissionMode, Key(choices(PERMISSION_MODES))] = "default"
    tools: Annotated[
        dict[str, PermissionDefault],
        Key(f"a table of tool names to {choices(PERMISSION_DEFAULTS)}"),
    ] = Field(default_factory=dict)
    rules: Annotated[RuleLists, Key("a table with `allow` and `deny` lists")] = Field(default_factory=RuleLists)
    additional_directories: Annotated[list[Text], Key("a list of directory paths")] = Field(
        default_factory=list
    )
    """Directories the file tools may read besides the working directory (`~` and relative paths allowed)."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any, info: ValidationInfo) -> Any:
        """`PermissionSettings(allow=[...], deny=[...])` in code (never in a file): the rule lists."""
        if info.context is None and isinstance(data, dict) and ({"allow", "deny"} & data.keys()):
            data = dict(data)
            rules = {kind: data.pop(kind) for kind in ("allow", "deny") if kind in data}
            data["rules"] = RuleLists(**rules)
        if isinstance(data, dict) and isinstance(data.get("mode"), str):
            data = {**data, "mode": MODE_ALIASES.get(data["mode"], data["mode"])}
        return data

    @property
    def allow(self) -> list[str]:
        return self.rules.allow

    @property
    def deny(self) -> list[str]:
        return self.rules.deny


@with_config(ConfigDict(extra="forbid"))
class SandboxTable(TypedDict, total=False):
    """`[sandbox]` as written: its keys are known here; the sandbox checks their values when it is
    built (`SandboxPolicy.from_settings`, which also serves `--sandbox`)."""

    mode: Annotated[Any, Key("a sandbox mode")]
    network: Annotated[Any, Key("true or false")]
    loopback: Annotated[Any, Key("true or false")]
    writable_dirs: Annotated[Any, Key("a list of paths")]
    cache_dirs: Annotated[Any, Key("a list of paths")]


class Settings(_Table):
    """Every setting: the user's file, then the project's on top (see `sigit.config.settings`)."""

    model: Annotated[Text, Key("a non-empty string")] = Field(default_factory=default_model)
    n_ctx: Annotated[PositiveInt | None, Key("a positive integer")] = None
    max_tokens: Annotated[PositiveInt, Key("a positive integer")] = DEFAULT_MAX_TOKENS
    thinking_budget: Annotated[PositiveInt | None, Key("a positive integer")] = None
    """Reasoning tokens before `<think>` is closed and the model must answer (None: half of max_tokens)."""
    thinking: Annotated[bool, Key("true or false")] = True
    preserve_thinking: Annotated[bool | None, Key("true or false")] = None
    """Keep earlier turns' reasoning in the prompt (Qwen 3.6 / 3.8 templates); None: the model's default."""
    reasoning_effort: Annotated[ReasoningEffort | None, Key(choices(REASONING_EFFORTS))] = None
    """Qwen 3.8's reasoning effort: "low" (short thinking, what a CPU wants), "medium" or "xhigh"."""
    prompt_cache: Annotated[bool, Key("true or false")] = True
    """Save evaluated prompt states on disk (local GGUF models), so a new session restores them."""
    prompt_cache_max_gb: Annotated[float, Field(gt=0), AfterValidator(finite), Key("a positive number")] = (
        DEFAULT_PROMPT_CACHE_GB
    )
    keep_alive: Annotated[float, PlainValidator(keep_alive_seconds), Key(KEEP_ALIVE_FORMS)] = DEFAULT_KEEP_ALIVE
    """How long a local GGUF model stays loaded in its model host after the last command (`sigit -p`,
    Claude mode, eval) used it, so the next one does not load it again; 0 loads it in each process.
    `--keep-alive` and `SIGIT_KEEP_ALIVE` come first."""
    gpu_layers: Annotated[
        int | None, Field(ge=-1), Key("-1 (all layers on the GPU), 0 (none) or a number of layers")
    ] = None
    """Layers of a local GGUF model offloaded to the GPU: -1 all, 0 none; None all when llama.cpp has a GPU backend."""
    download: Annotated[DownloadPolicy, Key(choices(DOWNLOAD_POLICIES))] = "ask"
    """"ask": a model that is not cached is downloaded only when the user says so; "auto": whenever needed."""
    offline: Annotated[bool, Key("true or false")] = False
    """No network request but to the configured model endpoint: no download, no hub, no web tools, MCP
    servers only over stdio or loopback, commands' network off (`--offline`; a project may turn it on)."""
    draft: Annotated[
        str, AfterValidator(_draft), Key(f"a draft source: {DRAFT_SOURCES}")
    ] = "prompt-lookup"
    """Speculative decoding for local models: "prompt-lookup" (or "ngram"), "mtp" (the model's own
    multi-token-prediction head), "none", or a draft model's .gguf path (only a trusted project may name
    one); read by the runtime's one parser (`onde.parse_draft`), as the `--draft` flag is."""
    mmproj: Annotated[Text | None, Key("a non-empty string")] = None
    """The vision projector a local GGUF model sees with (an mmproj .gguf path, or "none"); by default the
    one beside the model, or a registry model's once downloaded."""
    chat_template: Annotated[Text | None, Key("a non-empty string")] = None
    """A chat template file (Jinja, or a tokenizer_config.json) a local model is rendered with over its own:
    for a GGUF without one (else siGit falls back to Qwen's and warns) or with a wrong one. A relative path
    is read from the folder sigit starts in; a project names one only once trusted."""
    permissions: Annotated[PermissionSettings, Key("a table")] = Field(default_factory=PermissionSettings)
    attribution: Annotated[
        bool | str,
        PlainValidator(_attribution),
        Key('true, false or a one-line trailer such as "Co-Authored-By: Name <email>"'),
    ] = True
    compaction_threshold: Annotated[
        float, Field(gt=0, le=1), AfterValidator(finite), Key("a number above 0 and at most 1")
    ] = DEFAULT_COMPACTION_THRESHOLD
    hooks: Annotated[HooksTable, Key("a table of events")] = Field(default_factory=lambda: HooksTable())
    """`[[hooks.EVENT]]` entries, checked here; `sigit.extensions.hooks` runs them."""
    mcp: Annotated[McpTable, Key("a table")] = Field(default_factory=lambda: McpTable())
    sandbox: Annotated[SandboxTable, Key("a table")] = Field(default_factory=lambda: SandboxTable())
    """The `[sandbox]` table as written (the project's loosening keys only in a trusted folder)."""

    _sources: list[Path] = PrivateAttr(default_factory=list)
    _warnings: list[str] = PrivateAttr(default_factory=list)

    @property
    def sources(self) -> list[Path]:
        """The files these settings were read from, in order."""
        return self._sources

    @property
    def warnings(self) -> list[str]:
        """What a file set that was ignored (bypass from a project file), for the frontend to say."""
        return self._warnings

    @property
    def attribution_trailer(self) -> str | None:
        """The commit trailer to add, or None when attribution is off."""
        if self.attribution is True:
            return DEFAULT_ATTRIBUTION
        if self.attribution is False:
            return None
        return self.attribution


# ---------------------------------------------------------------- reading one file

_TABLE_SAYS: dict[type, str] = {
    EventHook: "a table with a `command`",
    ToolHook: "a table with a `command`",
    McpServer: "a table with a `command` or a `url`",
}
"""What an entry of a list or table of tables must be, for errors about the entry itself."""

_NOT_HERE: dict[tuple[type, str], str] = {
    (EventHook, "matcher"): "a matcher only applies to pre_tool_use and post_tool_use",
}
"""Why a key that belongs elsewhere is unknown in this table."""


class SettingsFileError(ValueError):
    """Every problem of one settings file, each naming its key; the message starts with the file."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        if len(problems) == 1:
            message = f"{path}: {problems[0]}"
        else:
            message = f"{path}: {len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in problems)
        super().__init__(message)


def parse_settings_file(raw: Mapping[str, Any], path: Path) -> Settings:
    """One file's table as Settings; `model_fields_set` (at each level) says which keys it set.

    Raises SettingsFileError with every problem at once: unknown keys (with the nearest known
    one), wrong types and bad values, each named by its dotted key.
    """
    try:
        return Settings.model_validate(dict(raw), strict=True, context={"file": str(path)})
    except ValidationError as exc:
        errors = exc.errors()
        problems = list(dict.fromkeys(_problem(error) for error in errors if not _misspelt(error, errors)))
        raise SettingsFileError(path, problems) from None


def _misspelt(error: ErrorDetails, errors: list[ErrorDetails]) -> bool:
    """A required key reported missing beside an unknown key that is its misspelling (`comand`): the
    unknown key's problem says it all."""
    if error["type"] != "missing":
        return False
    *table, wanted = error["loc"]
    return any(
        other["type"] == "extra_forbidden" and list(other["loc"][:-1]) == table
        and difflib.get_close_matches(str(other["loc"][-1]), [str(wanted)], n=1, cutoff=0.6)
        for other in errors
    )


def _problem(error: ErrorDetails) -> str:
    parts = [part for part in error["loc"] if not (isinstance(part, str) and "[" in part)]  # no union tags
    name, key, _ = _walk(parts)
    if error["type"] == "extra_forbidden":
        parent, _, table = _walk(parts[:-1])
        known = list(_fields(table)) if table is not None else []
        prefix = f"{parent}." if parent else ""
        close = [prefix + match for match in difflib.get_close_matches(str(parts[-1]), known, n=1, cutoff=0.6)]
        # a key in the wrong table (`permissions.allow` for `permissions.rules.allow`)
        close = close or difflib.get_close_matches(name, [key for key, _ in setting_keys()], n=1, cutoff=0.8)
        hint = f"did you mean `{close[0]}`?" if close else "known: " + ", ".join(known)
        hint = _NOT_HERE.get((table, str(parts[-1])), hint) if table is not None else hint
        return f"unknown setting `{name}` ({hint})"
    if error["type"] == "value_error":
        return f"`{name}`: {error.get('ctx', {}).get('error', error['msg'])}"
    says = key.says if key is not None else "something else"
    if error["type"] == "missing":
        return f"`{name}` is missing: it must be {says}"
    return f"`{name}` must be {says}, got {_shown(error['input'])}"


def _walk(parts: Sequence[int | str]) -> tuple[str, Key | None, type | None]:
    """Follow an error's location from Settings: the dotted key (`hooks.stop[0].command`), the `Key`
    that describes it, and the table it names (None for a value)."""
    annotation: Any = Settings
    key: Key | None = None
    name = ""
    for part in parts:
        table = _table_of(annotation)
        fields = _fields(table) if table is not None else {}
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            name += f".{part}" if name else str(part)
        if isinstance(part, str) and part in fields:
            annotation, found = fields[part]
            key = found or key
            continue
        annotation = _element(annotation)  # a list's item or a table's entry (`mcp.servers.NAME`)
        entry = _table_of(annotation)
        if entry in _TABLE_SAYS:
            key = Key(_TABLE_SAYS[entry])
    return name, key, _table_of(annotation)


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _bare(annotation: Any) -> Any:
    """The type inside `Annotated[...]`, `Required[...]` and `NotRequired[...]`."""
    while get_origin(annotation) in (Annotated, Required, NotRequired):
        annotation = get_args(annotation)[0]
    return annotation


def _element(annotation: Any) -> Any:
    """The items' type of a `list[...]`, the values' type of a `dict[str, ...]`; None for anything else."""
    annotation = _bare(annotation)
    if get_origin(annotation) is list:
        return get_args(annotation)[0]
    if get_origin(annotation) is dict:
        return get_args(annotation)[1]
    return None


def _table_of(annotation: Any) -> type | None:
    """The table class a field holds (a model or a TypedDict), None for a value or a free table."""
    annotation = _bare(annotation)
    if isinstance(annotation, type) and (issubclass(annotation, BaseModel) or is_typeddict(annotation)):
        return annotation
    return None


def _fields(table: type) -> dict[str, tuple[Any, Key | None]]:
    """A table's keys: (the value's type, the key's `Key`)."""
    hints = typing.get_type_hints(table, include_extras=True)
    names = table.model_fields if issubclass(table, BaseModel) else hints
    out: dict[str, tuple[Any, Key | None]] = {}
    for name in names:
        hint = hints[name]
        while get_origin(hint) in (Required, NotRequired):
            hint = get_args(hint)[0]
        extras: tuple[Any, ...] = ()
        if get_origin(hint) is Annotated:
            hint, *rest = get_args(hint)
            extras = tuple(rest)
        out[name] = (hint, next((extra for extra in extras if isinstance(extra, Key)), None))
    return out


# ---------------------------------------------------------------- what an untrusted project may set

ANY: Final = True
"""A project may set this key in any folder: it loosens nothing."""


@dataclass(frozen=True)
class Each:
    """A table key whose entries are judged one by one (`permissions.tools`): `test` says, per entry,
    whether its value loosens nothing."""

    test: Callable[[Any], bool]


UntrustedTest = bool | Callable[[Any], bool] | Each

UNTRUSTED_MAY_SET: Final[Mapping[str, UntrustedTest]] = MappingProxyType({
    # the model's own behaviour: a project may tune it anywhere
    "n_ctx": ANY,
    "max_tokens": ANY,
    "thinking_budget": ANY,
    "thinking": ANY,
    "preserve_thinking": ANY,
    "reasoning_effort": ANY,
    "prompt_cache": ANY,
    "prompt_cache_max_gb": ANY,
    "keep_alive": ANY,
    "gpu_layers": ANY,
    "attribution": ANY,
    "compaction_threshold": ANY,
    "mcp.handshake_timeout_secs": ANY,
    "mcp.call_timeout_secs": ANY,
    "permissions.rules.deny": ANY,
    # only a value that tightens (or loosens nothing)
    "download": lambda v: v == "ask",
    "offline": lambda v: v is True,
    "draft": lambda v: not _loads_a_model(v),
    "mmproj": lambda v: v == "none",
    "permissions.default": lambda v: v == "deny",
    "permissions.mode": lambda v: not isinstance(v, str) or v in SAFE_MODES,  # bypass: refused by the loader
    "permissions.tools": Each(lambda v: v == "deny"),
    "sandbox.mode": lambda v: v == "read-only",
    "sandbox.network": lambda v: v is not True,
    "sandbox.loopback": lambda v: v is not True,
})
"""The one table of what a project's `.sigit/settings.toml` may set in a folder the user has not trusted,
by dotted key: `ANY` (any value), a test of the value (True when that value loosens nothing) or `Each`
(a test per entry of the key's table). Every key it does not name (`model`, `hooks`, `mcp.servers`,
`permissions.rules.allow`, `permissions.additional_directories`, `sandbox.writable_dirs`, a key added
tomorrow...) waits for trust, and a project file that sets one makes its folder ask for trust. A table
is split key by key only where this table names a key inside it; otherwise it waits whole (`hooks`)."""


def table_splits(dotted: str) -> bool:
    """Whether the table at `dotted` is split key by key (the table above names a key inside it)."""
    return any(name.startswith(dotted + ".") for name in UNTRUSTED_MAY_SET)


def untrusted_may_set(dotted: str, value: Any) -> bool:
    """Whether a project file may set the (leaf) key `dotted` to `value` in an untrusted folder."""
    test = UNTRUSTED_MAY_SET.get(dotted, False)
    if isinstance(test, Each):
        return isinstance(value, dict) and all(test.test(entry) for entry in value.values())
    return test(value) if callable(test) else bool(test)


def setting_keys(table: type = Settings, prefix: str = "") -> list[tuple[str, Key | None]]:
    """Every key a settings file may hold, dotted (`permissions.rules.allow`), with its `Key`: the
    keys of the tables inside where the table is split for trust (`UNTRUSTED_MAY_SET`), else the
    table itself (`hooks`, `mcp.servers`)."""
    out: list[tuple[str, Key | None]] = []
    for name, (annotation, key) in _fields(table).items():
        nested = _table_of(annotation)
        if nested is not None and table_splits(prefix + name):
            out += setting_keys(nested, f"{prefix}{name}.")
        else:
            out.append((prefix + name, key))
    return out


def untrusted_split(
    raw: Mapping[str, Any], table: type = Settings, prefix: str = ""
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(applies anywhere, applies only in a trusted folder): a project settings table split by
    `UNTRUSTED_MAY_SET`, both halves keeping the file's shape. Unknown keys and a table of the wrong
    type go to the first half, where the loader reports them; a known key the table does not let
    through goes to the second, whatever its value."""
    always: dict[str, Any] = {}
    gated: dict[str, Any] = {}
    fields = _fields(table)
    for name, value in raw.items():
        dotted = prefix + name
        if name not in fields:  # the loader reports it
            always[name] = copy.deepcopy(value)
            continue
        nested = _table_of(fields[name][0])
        test = UNTRUSTED_MAY_SET.get(dotted)
        if nested is not None and test is None and table_splits(dotted):
            if isinstance(value, dict):
                _add(always, gated, name, *untrusted_split(value, nested, dotted + "."))
            else:
                always[name] = copy.deepcopy(value)  # not a table: the loader reports it
        elif isinstance(test, Each) and isinstance(value, dict):
            _add(
                always,
                gated,
                name,
                {k: copy.deepcopy(v) for k, v in value.items() if test.test(v)},
                {k: copy.deepcopy(v) for k, v in value.items() if not test.test(v)},
            )
        else:
            (always if untrusted_may_set(dotted, value) else gated)[name] = copy.deepcopy(value)
    return always, gated


def _add(
    always: dict[str, Any], gated: dict[str, Any], name: str, mine: dict[str, Any], theirs: dict[str, Any]
) -> None:
    if mine:
        always[name] = mine
    if theirs:
        gated[name] = theirs
