"""read_file, create_directory, list_directory, create_file, delete_file, and helpers file tools share."""

from __future__ import annotations

import asyncio
import difflib
import itertools
import os
import stat
from pathlib import Path

from onde import Image
from onde.images import describe_image, image_dimensions, sniff_image_type
from pydantic import Field

from sigit.attachments import MAX_IMAGE_BYTES
from sigit.fileio import NotRegularFileError, check_regular
from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.claude import EDIT_RULE, ClaudeForm, lines_to_offset, offset_to_lines
from sigit.tools.subjects import Preview, Subjects

READ_LIMIT = 10_000
LIST_LIMIT = 1000


# ---------------------------------------------------------------- shared helpers


def unified_diff(before: str, after: str, label: str) -> str:
    """A unified diff of two texts (`/dev/null` for a created or deleted file's missing side)."""
    old_label = "/dev/null" if before == "" and after != "" else f"a/{label}"
    new_label = "/dev/null" if after == "" and before != "" else f"b/{label}"
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), old_label, new_label
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def missing_path_error(ctx: ToolContext, path: Path, what: str = "File") -> ToolError:
    """'not found', with the closest names in that directory, or the deepest directory that exists.

    It lists a directory: call it through `asyncio.to_thread` from async code.
    """
    shown = ctx.display(path)
    parent = path.parent
    if parent.is_dir():
        names = sorted(p.name for p in parent.iterdir())
        close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.5)
        if close:
            suggestions = ", ".join(ctx.display(parent / name) for name in close)
            return ToolError(f"{what} not found: {shown}. Did you mean: {suggestions}?")
        return ToolError(f"{what} not found: {shown}. Use list_directory or glob to find the right path.")
    existing = parent
    while not existing.is_dir() and existing != existing.parent:
        existing = existing.parent
    return ToolError(
        f"{what} not found: {shown} (the directory {ctx.display(parent)} does not exist; "
        f"the nearest existing one is {ctx.display(existing)})."
    )


def require_file(ctx: ToolContext, raw: str) -> Path:
    """The path of an existing file; blocking, so call it through `asyncio.to_thread`."""
    path = ctx.resolve(raw)
    if path.is_dir():
        raise ToolError(f"{ctx.display(path)} is a directory, not a file; use list_directory to see it.")
    if not path.exists():
        raise missing_path_error(ctx, path)
    try:
        check_regular(path)  # a clear refusal before an editor is asked; the read checks again
    except NotRegularFileError as exc:
        raise ToolError(str(exc)) from None
    return path


async def read_preview_text(ctx: ToolContext, path: Path) -> str:
    """A file's text for a permission prompt's diff, through `ctx.fs` (an editor's buffer under ACP):
    "" when it is missing, not text or too large."""
    try:
        return await ctx.fs.read_text(path)
    except (OSError, ToolError):
        return ""


def numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start=first))


# ---------------------------------------------------------------- read_file


class ReadFileArgs(ToolArgs):
    path: str = Field(description="File to read, relative to the working directory.")
    start_line: int | None = Field(None, ge=1, description="First line to return (1-based).")
    end_line: int | None = Field(None, ge=1, description="Last line to return (inclusive).")


async def read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolOutput:
    path = await asyncio.to_thread(require_file, ctx, args.path)
    shown = ctx.display(path)
    image = await asyncio.to_thread(_image_at, ctx, path)
    if image is not None:
        return _image_output(image, shown, path, ctx)
    text = await ctx.fs.read_text(path)
    title = f"Read {shown}"
    if args.start_line is None and args.end_line is None:
        if not text:
            return ToolOutput(f"{shown} is empty.", title=title, locations=[path])
        if len(text) <= READ_LIMIT:
            return ToolOutput(text, title=title, locations=[path])
        cut = text.rfind("\n", 0, READ_LIMIT)
        cut = READ_LIMIT if cut <= 0 else cut + 1
        shown_lines = text[:cut].count("\n") or 1
        total = len(text.splitlines())
        note = (
            f"\n[Truncated at {cut:,} of {len(text):,} characters: showing lines 1-{shown_lines} of {total}. "
            f"Read more with start_line={shown_lines + 1} (and end_line).]"
        )
        return ToolOutput(text[:cut] + note, title=title, locations=[path])
    lines = text.splitlines()
    total = len(lines)
    start = args.start_line or 1
    end = min(args.end_line or total, total)
    if start > total:
        raise ToolError(f"start_line {start} is past the end of {shown}, which has {total} lines.")
    if end < start:
        raise ToolError(f"end_line {args.end_line} is before start_line {start}.")
    body_lines: list[str] = []
    size = 0
    for line in lines[start - 1 : end]:
        size += len(line) + 8
        if size > READ_LIMIT and body_lines:
            break
        body_lines.append(line)
    last = start + len(body_lines) - 1
    out = f"Lines {start}-{last} of {total} in {shown}:\n{numbered(body_lines, start)}"
    if last < end:
        out += f"\n[Truncated at {READ_LIMIT:,} characters. Read more with start_line={last + 1}.]"
    return ToolOutput(out, title=f"Read {shown}:{start}-{last}", locations=[path])


def _image_at(ctx: ToolContext, path: Path) -> Image | None:
    """The picture at `path` (its bytes now: what the model sees stays what it read), or None."""
    if sniff_image_type(_head(path)) is None:
        return None
    try:
        data = ctx.confinement.read(path, MAX_IMAGE_BYTES)
    except OSError:
        return None  # the text read that follows says why
    if sniff_image_type(data[:16]) is None or len(data) > MAX_IMAGE_BYTES:
        return None
    image = Image.from_bytes(data)
    return image if image_dimensions(image) is not None else None  # a damaged one is just binary


def _head(path: Path) -> bytes:
    """The first bytes of the file, to tell a picture (read whole after) from text; b"" if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return os.read(fd, 16) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)


def _image_output(image: Image, shown: str, path: Path, ctx: ToolContext) -> ToolOutput:
    """An image for a model that can see (as Claude Code's Read does); its size and type otherwise."""
    about = describe_image(image)
    if ctx.can_see:
        return ToolOutput(f"{shown} is an image ({about}); it is attached for you to look at.",
                          title=f"Read {shown} (image)", locations=[path], images=(image,))
    return ToolOutput(f"{shown} is an image ({about}). This model cannot see images: only its size and type "
                      "are known.", title=f"Read {shown} (image)", locations=[path])


def reads_path(args: ReadFileArgs | ListDirectoryArgs, ctx: ToolContext) -> Subjects:
    return Subjects(reads=(ctx.resolve(args.path),))


READ_FILE = Tool(
    name="read_file",
    description=(
        "Read a text file. Without a range the whole file is returned (cut at 10,000 characters); "
        "with start_line/end_line the lines come numbered. An image file (PNG, JPEG, GIF, WebP) comes back "
        "as the picture when the model can see, else as its size and type."
    ),
    params=ReadFileArgs,
    run=read_file,
    read_only=True,
    kind="read",
    aliases=("Read",),
    claude=ClaudeForm(keys=(("file_path", "path"),), to_claude=lines_to_offset, from_claude=offset_to_lines),
    prompt_hint="Read a file with read_file before you change it, and read the code around what you change.",
    subjects_of=reads_path,
)


# ---------------------------------------------------------------- directories


class PathArgs(ToolArgs):
    path: str = Field(description="Path relative to the working directory.")


class ListDirectoryArgs(ToolArgs):
    path: str = Field(".", description="Directory to list, relative to the working directory.")


async def create_directory(args: PathArgs, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(args.path)
    shown = ctx.display(path)
    if path.is_dir():
        return ToolOutput(f"Directory {shown} already exists.", title=f"mkdir {shown}", locations=[path])
    if path.exists():
        raise ToolError(f"{shown} exists and is a file, not a directory.")
    await asyncio.to_thread(ctx.confinement.make_directories, path)
    return ToolOutput(f"Created directory {shown}.", title=f"mkdir {shown}", locations=[path])


async def list_directory(args: ListDirectoryArgs, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(args.path)
    shown = ctx.display(path)
    if not path.exists():
        raise await asyncio.to_thread(missing_path_error, ctx, path, "Directory")
    if not path.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file to read it.")
    entries = await asyncio.to_thread(ctx.confinement.list, path)
    if not entries:
        return ToolOutput(f"{shown} is empty.", title=f"List {shown}", locations=[path])
    lines = [f"{'[FILE]' if is_file else '[DIR]'} {name}" for is_file, name in entries[:LIST_LIMIT]]
    if len(entries) > LIST_LIMIT:
        lines.append(f"[... {len(entries) - LIST_LIMIT} more entries not shown; use glob to narrow down]")
    return ToolOutput("\n".join(lines), title=f"List {shown}", locations=[path])


def _creates(args: PathArgs | CreateFileArgs, ctx: ToolContext) -> Subjects:
    return Subjects(writes=(ctx.resolve(args.path),), creates_parents=True)


CREATE_DIRECTORY = Tool(
    name="create_directory",
    description="Create a directory, with any missing parents (like mkdir -p).",
    params=PathArgs,
    run=create_directory,
    kind="edit",
    edit=True,
    subjects_of=_creates,
)

LIST_DIRECTORY = Tool(
    name="list_directory",
    description="List a directory: [DIR] entries first, then [FILE] entries, each sorted by name.",
    params=ListDirectoryArgs,
    run=list_directory,
    read_only=True,
    kind="read",
    aliases=("LS",),
    subjects_of=reads_path,
)


# ---------------------------------------------------------------- create_file and delete_file


class CreateFileArgs(ToolArgs):
    path: str = Field(description="New file's path, relative to the working directory.")
    content: str = Field(description="The whole content of the file.")
    overwrite: bool = Field(
        False, description="Replace an existing file's whole content (read it first). Default false."
    )


async def create_file(args: CreateFileArgs, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(args.path)
    shown = ctx.display(path)
    if path.is_dir():
        raise ToolError(f"{shown} is an existing directory.")
    before = ""
    existed = path.exists()
    if existed:
        if not args.overwrite:
            raise ToolError(
                f"{shown} already exists; change it with edit_file, or rewrite it whole with "
                "create_file and overwrite=true."
            )
        before = await ctx.fs.read_text(path)  # refuses binary files: never overwrite those blind
    await ctx.fs.write_text(path, args.content)
    count = len(args.content.splitlines())
    verb = "Rewrote" if existed else "Created"
    return ToolOutput(
        f"{verb} {shown} ({count} line{'s' if count != 1 else ''}).",
        diff=unified_diff(before, args.content, shown),
        locations=[path],
        title=f"Create {shown}",
    )


def _first_names(directory: Path, count: int) -> list[str]:
    """Up to `count` entry names, sorted, without reading a huge directory to the end."""
    with os.scandir(directory) as entries:
        return sorted(entry.name for entry in itertools.islice(entries, count))


async def delete_file(args: PathArgs, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(args.path)
    shown = ctx.display(path)
    if path.is_dir() and not path.is_symlink():
        remaining = await asyncio.to_thread(_first_names, path, 6)
        if remaining:
            listed = ", ".join(remaining[:5]) + (", ..." if len(remaining) > 5 else "")
            raise ToolError(
                f"{shown} is a directory that is not empty ({listed}); "
                "only files and empty directories can be deleted."
            )
        await asyncio.to_thread(ctx.confinement.remove, path)
        return ToolOutput(f"Deleted empty directory {shown}.", locations=[path], title=f"Delete {shown}")
    if not path.exists() and not path.is_symlink():
        raise await asyncio.to_thread(missing_path_error, ctx, path)
    try:
        before = await ctx.fs.read_text(path)
        diff: str | None = unified_diff(before, "", shown)
    except (ToolError, OSError):
        diff = f"Binary or special file {shown} deleted\n"
    await asyncio.to_thread(ctx.confinement.remove, path)
    return ToolOutput(f"Deleted {shown}.", diff=diff, locations=[path], title=f"Delete {shown}")


async def _create_preview(args: CreateFileArgs, ctx: ToolContext) -> Preview:
    """The whole new content, or a real diff when an existing file is rewritten. Reads the file."""
    path = ctx.resolve(args.path)
    if not args.overwrite:
        return Preview(f"+++ {args.path}\n{args.content}", path, None, args.content)
    old = await read_preview_text(ctx, path)
    diff = "".join(difflib.unified_diff(
        old.splitlines(keepends=True), args.content.splitlines(keepends=True),
        f"a/{args.path}", f"b/{args.path}",
    ))
    return Preview(diff or f"(no change to {args.path})", path, None, args.content)


async def _delete_preview(args: PathArgs, ctx: ToolContext) -> Preview:
    return Preview(f"delete {args.path}")


def _deletes(args: PathArgs, ctx: ToolContext) -> Subjects:
    return Subjects(writes=(ctx.resolve(args.path),))


CREATE_FILE = Tool(
    name="create_file",
    description="Create a new file with the given content (parents are created). Fails if it exists.",
    params=CreateFileArgs,
    run=create_file,
    kind="edit",
    edit=True,
    aliases=("Write",),
    claude=ClaudeForm(keys=(("file_path", "path"),), rule_names=(EDIT_RULE,)),
    prompt_hint="Use create_file for new files. To rewrite most of a file you have read, create_file "
    "with overwrite=true and the whole new content is often easier than many edits.",
    subjects_of=_creates,
    preview_of=_create_preview,
)

DELETE_FILE = Tool(
    name="delete_file",
    description="Delete a file or an empty directory.",
    params=PathArgs,
    run=delete_file,
    kind="delete",
    claude=ClaudeForm(rule_names=(EDIT_RULE,)),
    subjects_of=_deletes,
    preview_of=_delete_preview,
)
