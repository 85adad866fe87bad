"""Agent events to ACP session updates, and a saved conversation to the updates that replay it.

Pure mapping: no I/O here, so every card the editor sees is testable without a connection.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    tool_terminal_ref,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    ContentToolCallContent,
    CurrentModeUpdate,
    FileEditToolCallContent,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)
from onde import AssistantMessage, Message, ToolMessage, UserMessage

from ...events import (
    AgentEvent,
    Notice,
    ReasoningDelta,
    TextDelta,
    TodosUpdated,
    ToolCallRequested,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from ...tools import ToolContext, ToolOutput, ToolRegistry
from ..adapter import EventAdapter
from .client_fs import RecordingFileSystem
from .terminal import TerminalCalls

SessionUpdate: TypeAlias = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | UsageUpdate
)
ToolKind: TypeAlias = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
ToolContent: TypeAlias = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

TOOL_KINDS = frozenset(
    ("read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode")
)
MAX_CARD_TEXT = 20_000
PLAN_STATUSES = frozenset(("pending", "in_progress", "completed"))


def tool_kind(tools: ToolRegistry, name: str) -> ToolKind:
    tool = tools.get(name)
    kind = tool.kind if tool is not None else "other"
    return cast(ToolKind, kind if kind in TOOL_KINDS else "other")


def tool_title(tools: ToolRegistry, name: str, arguments: dict[str, Any]) -> str:
    tool = tools.get(name)
    return tool.title(arguments) if tool is not None else name


def as_kind(kind: str) -> ToolKind:
    return cast(ToolKind, kind if kind in TOOL_KINDS else "other")


def _card_text(text: str) -> list[ToolContent]:
    if not text:
        return []
    if len(text) > MAX_CARD_TEXT:
        text = text[:MAX_CARD_TEXT] + f"\n... ({len(text) - MAX_CARD_TEXT} more characters)"
    return [tool_content(text_block(text))]


def call_locations(
    tools: ToolRegistry, name: str, arguments: dict[str, Any], ctx: ToolContext
) -> list[ToolCallLocation]:
    """The paths a saved call declares (the tool says which), for a replayed card."""
    prepared = tools.prepare(name, arguments, ctx)
    if isinstance(prepared, ToolOutput):
        return []
    return [ToolCallLocation(path=str(path)) for path in prepared.subjects.paths]


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def parse_unified_diff(diff: str) -> list[tuple[str, str | None, str]]:
    """(path, old text or None for a new file, new text) per file; hunks only, joined in order."""
    files: list[tuple[str, str | None, str]] = []
    lines = diff.splitlines(keepends=True)
    path: str | None = None
    created = False
    old: list[str] = []
    new: list[str] = []
    in_hunk = False
    last: list[list[str]] = []
    for i, line in enumerate(lines):
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if path is not None:
                files.append((path, None if created else "".join(old), "".join(new)))
            label = line[4:].strip()
            created, old, new, in_hunk = label == "/dev/null", [], [], False
            path = None if created else _strip_label(label)
            continue
        if line.startswith("+++ ") and not in_hunk:
            label = line[4:].strip()
            if label != "/dev/null":
                path = _strip_label(label)
            continue
        if _HUNK.match(line):
            in_hunk = True
            continue
        if not in_hunk:
            continue
        if line.startswith("\\"):  # "\ No newline at end of file": the line before had none
            for side in last:
                side[-1] = side[-1].removesuffix("\n")
            continue
        if line.startswith("-"):
            last = [old]
        elif line.startswith("+"):
            last = [new]
        elif line.startswith(" ") or line == "\n":
            last = [old, new]
        else:
            continue
        body = "\n" if line == "\n" else line[1:]
        for side in last:
            side.append(body)
    if path is not None:
        files.append((path, None if created else "".join(old), "".join(new)))
    return files


def _strip_label(label: str) -> str:
    return label[2:] if label[:2] in ("a/", "b/") else label


def diff_contents(
    event: ToolFinished, kind: ToolKind, cwd: Path, recorder: RecordingFileSystem | None
) -> list[ToolContent]:
    """Diff cards for an edit: the exact texts seen by the file system, else the parsed unified diff."""
    if kind not in ("edit", "delete") or event.is_error:
        return []
    out: list[ToolContent] = []
    for location in event.locations:
        path = Path(location)
        if recorder is not None and path in recorder.after:
            out.append(tool_diff_content(str(path), recorder.after[path], recorder.before.get(path)))
        elif recorder is not None and kind == "delete" and path in recorder.before:
            out.append(tool_diff_content(str(path), "", recorder.before[path]))
    if out or not event.diff:
        return out
    for name, old, new in parse_unified_diff(event.diff):
        p = Path(name)
        full = p if p.is_absolute() else cwd / p
        out.append(tool_diff_content(str(full), new, old))
    return out


class UpdateMapper(EventAdapter[list[SessionUpdate]]):
    """One session's event-to-update mapping; remembers which tool cards the editor already has, which
    call runs now (the terminal tool shows its terminal on that card) and how the last turn finished."""

    def __init__(
        self, tools: ToolRegistry, cwd: Path, recorder: RecordingFileSystem | None = None,
        calls: TerminalCalls | None = None,
    ) -> None:
        self.tools = tools
        self.cwd = cwd
        self.recorder = recorder
        self.calls = calls if calls is not None else TerminalCalls()
        """The call running now, and each call's editor terminal (the card keeps showing it)."""
        self.finished: TurnFinished | None = None
        """How the turn under way ended (None until it has)."""
        self._cards: set[str] = set()

    def unhandled(self, event: AgentEvent) -> list[SessionUpdate]:
        return []

    def handle_turn_started(self, event: TurnStarted) -> list[SessionUpdate]:
        self.finished = None
        return []

    def handle_text_delta(self, event: TextDelta) -> list[SessionUpdate]:
        return [update_agent_message_text(event.text)] if event.text else []

    def handle_reasoning_delta(self, event: ReasoningDelta) -> list[SessionUpdate]:
        return [update_agent_thought_text(event.text)] if event.text else []

    def handle_tool_call_requested(self, event: ToolCallRequested) -> list[SessionUpdate]:
        self._cards.add(event.call_id)
        return [start_tool_call(
            event.call_id, event.title, kind=as_kind(event.kind), status="pending",
            locations=[ToolCallLocation(path=p) for p in event.locations], raw_input=event.arguments,
        )]

    def handle_tool_started(self, event: ToolStarted) -> list[SessionUpdate]:
        self.calls.current = event.call_id
        if self.recorder is not None:
            self.recorder.reset()
        return [update_tool_call(event.call_id, status="in_progress")]

    def handle_tool_finished(self, event: ToolFinished) -> list[SessionUpdate]:
        updates = self._finished(event)
        self.calls.current = None
        self.calls.terminals.pop(event.call_id, None)
        return updates

    def handle_todos_updated(self, event: TodosUpdated) -> list[SessionUpdate]:
        return [update_plan(
            plan_entry(content, status=status if status in PLAN_STATUSES else "pending")  # type: ignore[arg-type]
            for content, status in event.todos
        )]

    def handle_usage_updated(self, event: UsageUpdated) -> list[SessionUpdate]:
        if event.context_size <= 0:
            return []
        used = min(event.prompt_tokens + event.completion_tokens, event.context_size)
        return [UsageUpdate(session_update="usage_update", used=used, size=event.context_size)]

    def handle_notice(self, event: Notice) -> list[SessionUpdate]:
        marker = {"info": "ℹ", "warning": "⚠", "error": "✗"}[event.level]
        return [update_agent_message_text(f"\n\n_{marker} {event.message}_\n\n")]

    def handle_turn_finished(self, event: TurnFinished) -> list[SessionUpdate]:
        self.finished = event
        return [update_agent_message_text(f"\n\n**Error:** {event.error}\n")] if event.error else []

    def _finished(self, event: ToolFinished) -> list[SessionUpdate]:
        kind = tool_kind(self.tools, event.name)
        out: list[SessionUpdate] = []
        if event.call_id not in self._cards:  # refused before a card existed (bad arguments, repeat guard)
            self._cards.add(event.call_id)
            out.append(start_tool_call(event.call_id, event.name, kind=kind, status="pending"))
        terminal = self.calls.terminals.get(event.call_id)  # only calls that ran in an editor terminal have one
        content: list[ToolContent]
        if terminal is not None:  # the terminal shows the output; add only what it cannot (a kill, a note)
            extra = event.output if event.is_error and not event.output.startswith("Exit code") else ""
            content = [tool_terminal_ref(terminal), *_card_text(extra)]
        else:
            content = [*diff_contents(event, kind, self.cwd, self.recorder), *_card_text(event.output)]
        locations = [ToolCallLocation(path=p) for p in event.locations] or None
        out.append(update_tool_call(
            event.call_id, status="failed" if event.is_error else "completed", content=content,
            locations=locations,
            raw_output={"output": event.output[:MAX_CARD_TEXT], "is_error": event.is_error},
        ))
        return out


def replay_updates(messages: Sequence[Message], tools: ToolRegistry, cwd: Path) -> list[SessionUpdate]:
    """A saved conversation as the updates a client would have seen live (session/load)."""
    out: list[SessionUpdate] = []
    names: dict[str, str] = {}
    ctx = ToolContext(cwd=cwd)  # only to resolve the saved calls' paths as their tools would
    for message in messages:
        if isinstance(message, UserMessage):
            if message.content:
                out.append(update_user_message_text(message.content))
        elif isinstance(message, AssistantMessage):
            if message.reasoning:
                out.append(update_agent_thought_text(message.reasoning))
            if message.content:
                out.append(update_agent_message_text(message.content))
            for call in message.tool_calls:
                names[call.id] = call.name
                args = call.arguments if isinstance(call.arguments, dict) else {}
                out.append(start_tool_call(
                    call.id, tool_title(tools, call.name, args), kind=tool_kind(tools, call.name),
                    status="pending", locations=call_locations(tools, call.name, args, ctx), raw_input=args,
                ))
        elif isinstance(message, ToolMessage):
            failed = message.content.startswith(("Not run:", "Cancelled by the user"))
            if message.tool_call_id not in names:
                name = message.name or "tool"
                out.append(start_tool_call(message.tool_call_id, name, kind=tool_kind(tools, name)))
            out.append(update_tool_call(
                message.tool_call_id, status="failed" if failed else "completed",
                content=_card_text(message.content),
            ))
    return out
