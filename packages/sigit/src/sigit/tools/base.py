"""The tool object, the per-session context every tool receives, and the registry.

A tool is declared once: name, description, a pydantic model for its arguments (which gives both the
JSON schema shown to the model and the validation with precise errors), its implementation, and what
it means: read-only or an edit, what a call touches (`Subjects`), its permission-prompt preview, its
ACP kind, its Claude Code names and its line of guidance in the system prompt. Nothing outside the
tool switches on its name. The registry is a plain list of these.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from onde import Image, ToolSpec
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sigit.beneath import RefusedPathError
from sigit.config.protected import ProtectedPlaces
from sigit.fileio import MAX_TEXT_BYTES, FileTooLargeError, has_lone_surrogate
from sigit.sandbox import Denial, RepositoryGuard, Sandbox
from sigit.tools.claude import NO_CLAUDE_FORM, ClaudeForm
from sigit.tools.confinement import Confinement
from sigit.tools.processes import ProcessManager
from sigit.tools.subjects import Preview, Subjects

DEFAULT_ATTRIBUTION = "Co-Authored-By: siGit Code <297239231+sigitc@users.noreply.github.com>"


class ToolError(Exception):
    """A failure the model should read and act on (bad path, no match, ...): becomes an error result."""


class BinaryFileError(ToolError):
    pass


class FileSystem(Protocol):
    """Where file tools read and write text (local disk by default; an editor's buffers under ACP)."""

    async def read_text(self, path: Path) -> str: ...

    async def write_text(self, path: Path, text: str) -> None: ...


_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def decode_text(data: bytes, path: Path) -> tuple[str, str]:
    """Decode file bytes, returning (text, encoding); refuses binary data with a clear error."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding), encoding
    if b"\x00" in data[:8192]:
        raise BinaryFileError(f"{path} is a binary file; it cannot be read as text.")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    sample = data[:8192]
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    if controls > len(sample) // 20:
        raise BinaryFileError(f"{path} is a binary file; it cannot be read as text.") from None
    return data.decode("latin-1"), "latin-1"  # round-trips every byte, so edits keep the encoding


class LocalFileSystem:
    """Reads and writes local files, remembering each file's encoding so writes keep it.

    Text is returned with its line endings untouched (CRLF stays CRLF). Every read and write walks
    the path through `confinement` (the session's, once a `ToolContext` takes this file system:
    `confine`), so no link leads it out of the working directory and no protected place is touched.
    """

    def __init__(self, confinement: Confinement | None = None) -> None:
        self._encodings: dict[Path, str] = {}
        self.confinement = confinement or Confinement((), ProtectedPlaces.default())

    def confine(self, confinement: Confinement) -> None:
        self.confinement = confinement

    async def read_text(self, path: Path) -> str:
        data = await asyncio.to_thread(self.confinement.read, path, MAX_TEXT_BYTES)
        if len(data) > MAX_TEXT_BYTES:
            raise FileTooLargeError(
                f"{path} is larger than {MAX_TEXT_BYTES // (1024 * 1024)} MiB, more than file tools read at once."
            )
        text, encoding = decode_text(data, path)
        self._encodings[path] = encoding
        return text

    async def write_text(self, path: Path, text: str) -> None:
        encoding = self._encodings.get(path, "utf-8")
        data = text.encode(encoding, errors="strict" if encoding != "latin-1" else "replace")
        await asyncio.to_thread(self.confinement.write, path, data)


def confine(fs: FileSystem, confinement: Confinement) -> None:
    """Give `fs` (and the local file system it falls back on) the session's confinement."""
    bind = getattr(fs, "confine", None)
    if callable(bind):
        bind(confinement)


@dataclass
class ToolContext:
    """Per-session state handed to every tool call. Tools never use the process's cwd."""

    cwd: Path
    processes: ProcessManager = field(default_factory=ProcessManager)
    todos: list[Todo] = field(default_factory=list)
    attribution: str | None = DEFAULT_ATTRIBUTION
    cancel: asyncio.Event | None = None
    fs: FileSystem = field(default_factory=LocalFileSystem)
    command_timeout: float = 120.0
    host_named: Callable[[str], bool] = field(default=lambda host: False)
    """Whether an allow rule names this host explicitly, so read_website may fetch it although it
    resolves to a loopback, private or link-local address (the permission policy's `names_host`)."""
    sandbox: Sandbox | None = None
    """The OS sandbox commands run in (the session's; None: unconfined, as `--sandbox off`)."""
    repo_guard: RepositoryGuard | None = None
    """The workspace's repositories as the session found them: after each command or write the agent
    removes config and hooks a step planted that would make the user's own git run programs."""
    can_see: bool = False
    """Whether the session's model takes images (read_file then returns a picture, not a description)."""
    places: ProtectedPlaces = field(default_factory=ProtectedPlaces.default)
    """Where no tool writes (or reads), in any permission mode (`sigit.config.protected`)."""
    roots: tuple[Path, ...] = ()
    """Folders besides the cwd that file tools walk from (`--add-dir`, `additional_directories`)."""
    confinement: Confinement = field(init=False, repr=False)
    """Made from the cwd, `roots` and `places`: every file tool's read and write goes through it."""

    def __post_init__(self) -> None:
        self.cwd = Path(os.path.abspath(self.cwd))
        self.roots = tuple(Path(os.path.normpath(self.cwd / os.path.expanduser(r))) for r in self.roots)
        self.confinement = Confinement((self.cwd, *self.roots), self.places)
        confine(self.fs, self.confinement)

    def resolve(self, path: str | Path) -> Path:
        """An absolute, normalised path; relative paths resolve against the session's cwd."""
        p = Path(os.path.expanduser(str(path)))
        if not p.is_absolute():
            p = self.cwd / p
        return Path(os.path.normpath(p))

    def display(self, path: Path) -> str:
        """A path as shown to the model: relative inside the cwd, absolute outside it."""
        try:
            rel = path.relative_to(self.cwd)
        except ValueError:
            return str(path)
        return str(rel) if str(rel) != "." else "."


@dataclass
class ToolOutput:
    text: str
    is_error: bool = False
    diff: str | None = None
    locations: list[Path] = field(default_factory=list)
    title: str = ""
    todos: tuple[tuple[str, str], ...] | None = None
    """The session's todo list after this call, as (content, status) pairs, when the call changed it."""
    images: tuple[Image, ...] = ()
    """Pictures the result shows the model (read_file on an image, for a model that can see)."""
    sandbox_denial: Denial | None = None
    """What the sandbox refused the command ("blocked by the sandbox: ..."): the agent may offer the
    user to run it once without the sandbox."""


class ToolArgs(BaseModel):
    """Base of every tool's argument model: unknown keys are ignored (small models add extras)."""

    model_config = ConfigDict(extra="ignore")


# ---------------------------------------------------------------- the session's todo list
# `ToolContext.todos` holds these items; `write_todos` (tools/todos.py) takes and writes them.

Status = Literal["pending", "in_progress", "completed"]
_SYNONYMS = {
    "done": "completed",
    "complete": "completed",
    "finished": "completed",
    "in progress": "in_progress",
    "in-progress": "in_progress",
    "inprogress": "in_progress",
    "active": "in_progress",
    "doing": "in_progress",
    "todo": "pending",
    "open": "pending",
    "not_started": "pending",
    "not started": "pending",
}


class Todo(ToolArgs):
    content: str = Field(min_length=1, description="What to do.")
    status: Status = Field("pending", description="pending, in_progress or completed.")

    @field_validator("status", mode="before")
    @classmethod
    def _synonyms(cls, value: Any) -> Any:
        if isinstance(value, str):
            key = value.strip().lower()
            return _SYNONYMS.get(key, key)
        return value


P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class Tool(Generic[P]):
    """Everything about one tool.

    `kind` is the ACP tool kind (read, edit, delete, search, execute, fetch, think, other). `edit`:
    accept-edits mode lets it through inside the working directory. `aliases`: Claude Code's names
    for it (the first is the one Claude Code shows), so rules and agent files written for Claude Code
    work; `claude`: how its arguments are spelt there (the Claude CLI frontend translates with it).
    `subagent_ok`: a read-only tool a subagent may get. `timeout`: seconds after which a call is
    stopped (None: the tool bounds itself).
    `prompt_hint`: its line in the system prompt's working rules. `subjects_of` says what a call
    touches; `preview_of` what a permission prompt shows (a file it reads, it reads through `ctx.fs`,
    so under ACP the prompt shows the editor's buffer, unsaved changes included).
    """

    name: str
    description: str
    params: type[P]
    run: Callable[[P, ToolContext], Awaitable[ToolOutput]]
    read_only: bool = False
    kind: str = "other"
    edit: bool = False
    aliases: tuple[str, ...] = ()
    claude: ClaudeForm = NO_CLAUDE_FORM
    subagent_ok: bool = True
    timeout: float | None = None
    prompt_hint: str = ""
    subjects_of: Callable[[P, ToolContext], Subjects] | None = None
    preview_of: Callable[[P, ToolContext], Awaitable[Preview | None]] | None = None

    def parameters_schema(self) -> dict[str, Any]:
        return plain_schema(self.params)

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters_schema())

    def known_as(self, name: str) -> bool:
        """Whether `name` is this tool's name or one of its Claude Code aliases."""
        return name == self.name or name in self.aliases

    @property
    def rule_names(self) -> tuple[str, ...]:
        """The names besides its own a permission rule may give this tool: its Claude Code aliases and
        the Claude Code rules that cover it (`Edit(...)` covers every file edit)."""
        return (*self.aliases, *self.claude.rule_names)

    def title(self, arguments: Mapping[str, Any]) -> str:
        """A one-line label for a pending call, before it runs."""
        for key in ("path", "command", "pattern", "url", "note", "task_id"):
            value = arguments.get(key)
            if isinstance(value, str) and value:
                return f"{self.name} {value if len(value) <= 80 else value[:77] + '...'}"
        return self.name

    def subjects(self, params: P, ctx: ToolContext) -> Subjects:
        return self.subjects_of(params, ctx) if self.subjects_of is not None else Subjects()

    async def preview(self, call: PreparedCall, ctx: ToolContext) -> Preview | None:
        """What the user is asked to approve; by default the arguments as JSON. May read files."""
        if self.preview_of is not None:
            return await self.preview_of(call.params, ctx)  # type: ignore[arg-type]
        if not call.arguments:
            return None
        return Preview(json.dumps(call.arguments, ensure_ascii=False)[:2000])

    def prepare(self, raw_args: Any, ctx: ToolContext) -> PreparedCall | ToolOutput:
        """Decode and validate the arguments and declare what the call touches, or the error result."""
        arguments = decode_arguments(self.name, raw_args)
        if isinstance(arguments, ToolOutput):
            return arguments
        if has_lone_surrogate(arguments):  # `"\ud800"` decodes, but no file name or command can hold it
            return ToolOutput(f"Invalid arguments for {self.name}: they hold a lone surrogate escape "
                              "(\\ud800-\\udfff), which is not Unicode text.", True, title=self.name)
        try:
            params = self.params.model_validate(arguments)
        except ValidationError as exc:
            return ToolOutput(format_validation_error(self, exc), True, title=self.name)
        return PreparedCall(self, arguments, params, self.subjects(params, ctx), self.title(arguments))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolOutput:
        """Run a prepared call; every failure becomes an error result, never an exception."""
        try:
            work = self.run(call.params, ctx)  # type: ignore[arg-type]
            if self.timeout is None:
                return await work
            return await asyncio.wait_for(work, self.timeout)
        except TimeoutError:
            return ToolOutput(f"{self.name} timed out after {self.timeout:g} s.", True, title=call.title)
        except ToolError as exc:
            return ToolOutput(str(exc), True, title=call.title)
        except RefusedPathError as exc:
            return ToolOutput(f"{self.name} was refused: {exc.strerror}", True, title=call.title)
        except FileTooLargeError as exc:
            return ToolOutput(f"{exc} Look into it with search_files, or with run_command (head, sed -n, wc).", True,
                              title=call.title)
        except OSError as exc:
            detail = exc.strerror or str(exc)
            where = f": {exc.filename}" if exc.filename else ""
            return ToolOutput(f"{self.name} failed: {detail}{where}", True, title=call.title)
        except Exception as exc:
            return ToolOutput(f"{self.name} failed: {type(exc).__name__}: {exc}", True, title=call.title)

    async def invoke(self, raw_args: Any, ctx: ToolContext) -> ToolOutput:
        """Validate the arguments and run; every failure becomes an error result, never an exception."""
        call = self.prepare(raw_args, ctx)
        if isinstance(call, ToolOutput):
            return call
        return await self.execute(call, ctx)


@dataclass(frozen=True)
class PreparedCall:
    """A validated call, made once: the policy, hooks, checkpoints, preview and execution all use it.

    It lives beside `Tool`, which makes it (`Tool.prepare`) and runs it (`Tool.execute`)."""

    tool: Tool[Any]
    arguments: dict[str, Any]
    """The decoded arguments as the model sent them (hook payloads, saved history)."""
    params: BaseModel
    """The same arguments validated by the tool's parameter model."""
    subjects: Subjects
    title: str

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def read_only(self) -> bool:
        """Read-only as declared, and only when the tool knows what the call touches."""
        return self.tool.read_only and self.subjects.known


def truncate(text: str, limit: int, note: Callable[[int], str], *, note_inside: bool = False) -> str:
    """`text` cut to `limit` characters plus `note(kept)`, so the model knows something is missing.

    With `note_inside` the note counts against the limit. Text within the limit is returned as is.
    """
    if len(text) <= limit:
        return text
    if not note_inside:
        return text[:limit] + note(limit)
    keep = max(0, limit - len(note(limit)))
    return text[:keep] + note(keep)


def format_validation_error(tool: Tool[Any], exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or "arguments"
        if err["type"] == "missing":
            problems.append(f"`{where}` is required but missing")
        else:
            got = json.dumps(err.get("input"), ensure_ascii=False, default=str)
            got = got if len(got) <= 80 else got[:77] + "..."
            problems.append(f"`{where}`: {err['msg']} (got {got})")
    expected = ", ".join(
        f"{name}{'' if info.is_required() else '?'}" for name, info in tool.params.model_fields.items()
    )
    return f"Invalid arguments for {tool.name}: " + "; ".join(problems) + f". Parameters: {expected}."


# ---------------------------------------------------------------- schema


def plain_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without titles, $defs/$ref or `anyOf [X, null]` (small models read it)."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    cleaned: dict[str, Any] = _clean(raw, defs)
    cleaned.setdefault("properties", {})
    return cleaned


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs)
    if "anyOf" in node:
        options = [opt for opt in node["anyOf"] if opt != {"type": "null"}]
        if len(options) == 1:
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return _clean({**options[0], **rest}, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" or (key == "default" and value is None):
            continue
        if key == "properties":
            out[key] = {name: _clean(prop, defs) for name, prop in value.items()}
        else:
            out[key] = _clean(value, defs)
    if "type" in out:  # "type" first reads better in a prompt
        out = {"type": out.pop("type"), **out}
    return out


# ---------------------------------------------------------------- registry


class ToolRegistry:
    """The tools offered in a session, in order. Others add tools (task, skill, MCP) with `register`."""

    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Any:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool[Any]]:
        return list(self._tools.values())

    def read_only_tools(self) -> list[Tool[Any]]:
        return [tool for tool in self._tools.values() if tool.read_only]

    def to_specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        wanted = None if names is None else set(names)
        return [tool.spec() for tool in self._tools.values() if wanted is None or tool.name in wanted]

    def prepare(self, tool_name: str, raw_args: Any, ctx: ToolContext) -> PreparedCall | ToolOutput:
        """The validated call, or the error result for an unknown tool or bad arguments."""
        tool = self._tools.get(tool_name)
        if tool is None:
            close = difflib.get_close_matches(tool_name, list(self._tools), n=1)
            hint = f" Did you mean {close[0]}?" if close else ""
            return ToolOutput(
                f"Unknown tool {tool_name!r}.{hint} Available tools: {', '.join(self._tools)}.",
                True,
                title=tool_name,
            )
        return tool.prepare(raw_args, ctx)

    async def invoke(self, tool_name: str, raw_args: Any, ctx: ToolContext) -> ToolOutput:
        call = self.prepare(tool_name, raw_args, ctx)
        if isinstance(call, ToolOutput):
            return call
        return await call.tool.execute(call, ctx)


def decode_arguments(tool_name: str, raw_args: Any) -> dict[str, Any] | ToolOutput:
    """A call's arguments as a dict (JSON text decoded, none meaning {}), or the error result to return."""
    if isinstance(raw_args, str):
        try:
            raw_args = json.loads(raw_args) if raw_args.strip() else {}
        except json.JSONDecodeError as exc:
            return ToolOutput(f"Arguments for {tool_name} are not valid JSON: {exc}", True, title=tool_name)
    if raw_args is None:
        return {}
    if not isinstance(raw_args, dict):
        return ToolOutput(
            f"Arguments for {tool_name} must be a JSON object, got {type(raw_args).__name__}.",
            True,
            title=tool_name,
        )
    return raw_args
