"""write_todos: the model's task list, kept on the session context (the ACP frontend shows it as a plan)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator

from sigit.tools.base import Status as Status  # the todo item lives with the context that holds the list
from sigit.tools.base import Todo as Todo
from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolOutput
from sigit.tools.claude import ClaudeForm, keep_item_keys

MARKS: dict[str, str] = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


class WriteTodosArgs(ToolArgs):
    todos: list[Todo] = Field(description="The whole list, replacing the previous one.")

    @field_validator("todos", mode="before")
    @classmethod
    def _todos_as_json_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                return value
        return value


def render_todos(todos: list[Todo]) -> str:
    return "\n".join(f"{MARKS[t.status]} {t.content}" for t in todos)


async def write_todos(args: WriteTodosArgs, ctx: ToolContext) -> ToolOutput:
    ctx.todos = list(args.todos)
    todos = tuple((t.content, t.status) for t in args.todos)
    if not args.todos:
        return ToolOutput("The todo list is now empty.", title="Todos", todos=todos)
    done = sum(t.status == "completed" for t in args.todos)
    text = f"Todos ({done}/{len(args.todos)} completed):\n{render_todos(args.todos)}"
    return ToolOutput(text, title="Todos", todos=todos)


WRITE_TODOS = Tool(
    name="write_todos",
    description=(
        "Write the task list for multi-step work (replaces the previous list). Mark one item in_progress "
        "at a time and mark items completed as soon as they are done."
    ),
    params=WriteTodosArgs,
    run=write_todos,
    read_only=True,
    kind="think",
    aliases=("TodoWrite",),
    claude=ClaudeForm(from_claude=keep_item_keys("todos", ("content", "status"))),
    subagent_ok=False,  # a subagent's list would be thrown away
    prompt_hint="For a task with several steps, write a todo list with write_todos first and update it as "
    "each step is done.",
)
