"""edit_file and multi_edit: find/replace with tolerant matching, keeping line endings and encoding."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, PrivateAttr, field_validator

from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.claude import EDIT_RULE, ClaudeForm, rename_keys
from sigit.tools.files import require_file, unified_diff
from sigit.tools.matching import EditPlan, MatchError, plan_edit
from sigit.tools.subjects import Preview, Subjects

EDIT_KEYS = (("old_string", "old_text"), ("new_string", "new_text"))
"""Claude Code's names of an edit's two texts, and ours."""


@dataclass(frozen=True)
class _Planned:
    """The edits matched against one reading of the file: what the permission prompt showed and,
    when the file still reads the same, exactly what the run writes (no second `plan_edit`)."""

    path: Path
    original: str
    """The text as read (its own line endings): the run compares it with what it reads."""
    before: str
    after: str
    notes: tuple[str, ...]


class EditFileArgs(ToolArgs):
    path: str = Field(description="File to edit, relative to the working directory.")
    old_text: str = Field(description="Exact text to replace, copied from the file (include enough context).")
    new_text: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of exactly one.")


class EditSpec(ToolArgs):
    old_text: str = Field(description="Exact text to replace.")
    new_text: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence.")


class MultiEditArgs(ToolArgs):
    path: str = Field(description="File to edit, relative to the working directory.")
    edits: list[EditSpec] = Field(
        min_length=1,
        description="Edits applied in order, each to the result of the previous; all or nothing.",
    )

    _planned: _Planned | None = PrivateAttr(None)
    """Set by the permission prompt's preview: the edits as matched against the file it showed."""

    @property
    def planned(self) -> _Planned | None:
        return self._planned

    @planned.setter
    def planned(self, value: _Planned | None) -> None:
        self._planned = value

    @field_validator("edits", mode="before")
    @classmethod
    def _edits_as_json_string(cls, value: Any) -> Any:
        if isinstance(value, str):  # small models often send the list as a JSON string
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                return value
        return value


def _describe(plan: EditPlan) -> str:
    count = len(plan.replacements)
    lines = ", ".join(str(r.line) for r in plan.replacements[:10])
    where = f"line {lines}" if count == 1 else f"lines {lines}{', ...' if count > 10 else ''}"
    how = "" if plan.strategy == "exact" else f" (matched after ignoring {plan.strategy})"
    return f"{count} replacement{'s' if count != 1 else ''} at {where}{how}"


def _plan(path: Path, original: str, edits: list[EditSpec], shown: str, tool: str) -> _Planned:
    """Every edit matched in order (each against the previous result); ToolError naming the one that fails."""
    content = before = original.replace("\r\n", "\n")
    notes = []
    for index, edit in enumerate(edits, start=1):
        old = edit.old_text.replace("\r\n", "\n")
        new = edit.new_text.replace("\r\n", "\n")
        try:
            plan = plan_edit(content, old, new, edit.replace_all)
        except MatchError as exc:
            prefix = (
                f"{tool} on {shown}: "
                if len(edits) == 1
                else (f"{tool} on {shown}: edit {index} of {len(edits)} failed, so no edit was written. ")
            )
            raise ToolError(prefix + str(exc)) from None
        content = plan.apply(content)
        notes.append(_describe(plan))
    return _Planned(path, original, before, content, tuple(notes))


async def _apply(
    path_arg: str, edits: list[EditSpec], ctx: ToolContext, tool: str, planned: _Planned | None = None
) -> ToolOutput:
    path = await asyncio.to_thread(require_file, ctx, path_arg)
    shown = ctx.display(path)
    original = await ctx.fs.read_text(path)
    if planned is None or planned.path != path or planned.original != original:
        planned = _plan(path, original, edits, shown, tool)  # no preview, or the file changed since
    before, content = planned.before, planned.after
    if content == before:
        raise ToolError(f"{tool} on {shown}: the edits leave the file unchanged.")
    await ctx.fs.write_text(path, content.replace("\n", "\r\n") if "\r\n" in original else content)
    notes = planned.notes
    if len(notes) == 1:
        summary = f"Edited {shown}: {notes[0]}."
    else:
        summary = f"Edited {shown} with {len(notes)} edits:\n" + "\n".join(
            f"{i}. {note}" for i, note in enumerate(notes, start=1)
        )
    return ToolOutput(
        summary, diff=unified_diff(before, content, shown), locations=[path], title=f"Edit {shown}"
    )


async def edit_file(args: EditFileArgs, ctx: ToolContext) -> ToolOutput:
    spec = EditSpec(old_text=args.old_text, new_text=args.new_text, replace_all=args.replace_all)
    return await _apply(args.path, [spec], ctx, "edit_file")


async def multi_edit(args: MultiEditArgs, ctx: ToolContext) -> ToolOutput:
    return await _apply(args.path, args.edits, ctx, "multi_edit", args.planned)


def _edits_path(args: EditFileArgs | MultiEditArgs, ctx: ToolContext) -> Subjects:
    return Subjects(writes=(ctx.resolve(args.path),))


async def _edit_preview(args: EditFileArgs, ctx: ToolContext) -> Preview:
    text = f"--- {args.path}\n-{args.old_text}\n+{args.new_text}"
    return Preview(text, ctx.resolve(args.path), args.old_text, args.new_text)


async def _multi_edit_preview(args: MultiEditArgs, ctx: ToolContext) -> Preview:
    """The real diff of all edits, read through `ctx.fs` (under ACP the editor's buffer, unsaved
    changes included); the plan stays with the call for the run. The edits as JSON when they would
    not apply."""
    path = ctx.resolve(args.path)
    try:
        planned = _plan(path, await ctx.fs.read_text(path), args.edits, args.path, "multi_edit")
    except (OSError, ToolError):
        return Preview(args.model_dump_json())
    args.planned = planned
    return Preview(unified_diff(planned.before, planned.after, args.path), path, planned.before, planned.after)


EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace old_text with new_text in a file. old_text must match exactly one place (small "
        "whitespace or indentation differences are tolerated when the match is unique); set "
        "replace_all for every occurrence."
    ),
    params=EditFileArgs,
    run=edit_file,
    kind="edit",
    edit=True,
    aliases=("Edit",),
    claude=ClaudeForm(keys=(("file_path", "path"), *EDIT_KEYS)),
    prompt_hint="edit_file replaces old_text with new_text. Copy old_text exactly from the read_file output: "
    "same spaces, tabs and line breaks, without line numbers. Include just enough surrounding "
    "lines that it occurs once. If an edit fails, read the file again before retrying.",
    subjects_of=_edits_path,
    preview_of=_edit_preview,
)

MULTI_EDIT = Tool(
    name="multi_edit",
    description="Several find/replace edits to one file, applied in order; if any fails, none is written.",
    params=MultiEditArgs,
    run=multi_edit,
    kind="edit",
    edit=True,
    aliases=("MultiEdit",),
    claude=ClaudeForm(keys=(("file_path", "path"),), to_claude=rename_keys({b: a for a, b in EDIT_KEYS}, "edits"),
                      from_claude=rename_keys(dict(EDIT_KEYS), "edits"), rule_names=(EDIT_RULE,)),
    prompt_hint="Use multi_edit for several changes to one file in one call.",
    subjects_of=_edits_path,
    preview_of=_multi_edit_preview,
)
