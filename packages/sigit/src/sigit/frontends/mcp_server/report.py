"""What `run_task` answers: the final text, the diff, the commands run, usage and the stop reason,
read off the session's one event stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ...events import (
    AgentEvent,
    Notice,
    PermissionAnswered,
    ToolCallRequested,
    ToolFinished,
    TurnFinished,
    UsageUpdated,
    stop_sentence,
)
from ..usage import claude_usage

OUTPUT_LIMIT: Final = 2000
"""Characters of a command's output kept in the report (the model read all of it)."""
DIFF_LIMIT: Final = 200_000


@dataclass
class TaskReport:
    """Collects one turn's events; `progress` says what a progress notification should read."""

    session_id: str
    finished: TurnFinished | None = None
    commands: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    steps: int = 0
    _requested: dict[str, ToolCallRequested] = field(default_factory=dict)
    _refused: set[str] = field(default_factory=set)

    def handle(self, event: AgentEvent) -> str | None:
        """Take one event; the progress message it is worth, or None."""
        if isinstance(event, ToolCallRequested):
            self._requested[event.call_id] = event
            return self._step(event.title)
        if isinstance(event, PermissionAnswered) and not event.allowed:
            self._refused.add(event.call_id)
            return self._step(f"not allowed: {event.reason}")
        if isinstance(event, ToolFinished):
            requested = self._requested.get(event.call_id)
            if requested is not None and requested.command is not None:
                self.commands.append(
                    {
                        "command": requested.command,
                        "ran": event.call_id not in self._refused,
                        "is_error": event.is_error,
                        "output": _tail(event.output),
                    }
                )
            return None
        if isinstance(event, UsageUpdated):
            return self._step("the model replied")
        if isinstance(event, Notice):
            if event.level != "info":
                self.notices.append(event.message)
            return None
        if isinstance(event, TurnFinished):
            self.finished = event
            return self._step(f"finished: {event.stop_reason}")
        return None

    def _step(self, message: str) -> str:
        self.steps += 1
        return message

    def result(self, diff: str) -> dict[str, Any]:
        """The structured result (Claude Code's names for usage)."""
        finished = self.finished or TurnFinished("error", "", 0, "the turn ended without a result")
        if len(diff) > DIFF_LIMIT:
            diff = diff[:DIFF_LIMIT] + f"\n... (diff cut at {DIFF_LIMIT} characters)\n"
        return {
            "session_id": self.session_id,
            "answer": finished.text,
            "stop_reason": finished.stop_reason,
            "stop_sentence": stop_sentence(finished),
            "is_error": finished.stop_reason == "error",
            "error": finished.error,
            "turns": finished.rounds,
            "files_changed": changed_files(diff),
            "diff": diff,
            "commands": self.commands,
            "permission_denials": [
                {"tool_name": d.tool_name, "tool_input": d.tool_input, "reason": d.reason}
                for d in finished.permission_denials
            ],
            "usage": claude_usage(finished.usage),
            "notices": self.notices,
        }


def summary_text(result: dict[str, Any]) -> str:
    """The result as text, for callers that read only the text content (the answer first)."""
    lines = [result["answer"].strip() or "(no answer)", ""]
    lines.append(
        f"stop_reason: {result['stop_reason']}" + (f" ({result['stop_sentence']})" if result["stop_sentence"] else "")
    )
    lines.append(f"session_id: {result['session_id']} (pass it as session_id to continue this task)")
    if result["files_changed"]:
        lines.append("files changed: " + ", ".join(result["files_changed"]))
    for command in result["commands"]:
        state = "refused" if not command["ran"] else "failed" if command["is_error"] else "ok"
        lines.append(f"ran ({state}): {command['command']}")
    for denial in result["permission_denials"]:
        lines.append(f"refused: {denial['tool_name']}: {denial['reason']}")
    for notice in result["notices"]:
        lines.append(f"note: {notice}")
    if result["diff"]:
        lines += ["", result["diff"].rstrip("\n")]
    return "\n".join(lines)


def changed_files(diff: str) -> list[str]:
    """The paths a diff from `CheckpointStore.turn_diff` names, in order."""
    files: list[str] = []
    for line in diff.splitlines():
        for prefix in ("+++ b/", "--- a/", "Binary files a/"):
            if line.startswith(prefix):
                path = line[len(prefix) :].split(" and b/")[0]
                if path not in files:
                    files.append(path)
    return files


def _tail(text: str) -> str:
    return text if len(text) <= OUTPUT_LIMIT else "..." + text[-OUTPUT_LIMIT:]
