"""search_files and glob, both on ripgrep: .gitignore respected, dot entries and binary files skipped."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path

from pydantic import Field
from wcmatch import glob as wglob

from sigit.fileio import NotRegularFileError, check_regular
from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.claude import ClaudeForm
from sigit.tools.files import missing_path_error
from sigit.tools.subjects import Subjects

MAX_RESULTS_CAP = 1000
GLOB_CAP = 1000
LINE_CHARS = 300
GLOB_FLAGS = wglob.GLOBSTAR | wglob.BRACE | wglob.DOTGLOB


def ripgrep() -> str:
    """The `rg` binary: next to this interpreter (the `ripgrep` package's script) or on PATH."""
    here = Path(sys.executable).parent / "rg"
    if here.exists():
        return str(here)
    found = shutil.which("rg")
    if found is None:
        raise ToolError("ripgrep (rg) is not installed; install the `ripgrep` Python package.")
    return found


# Outside a git repository rg would ignore .gitignore files without --no-require-git.
_RG_BASE = ("--no-require-git", "--no-config", "--color", "never")


async def _rg(args: list[str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        ripgrep(),
        *_RG_BASE,
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 24,
    )


async def _stop(proc: asyncio.subprocess.Process) -> None:
    # os.kill, not proc.kill(): Popen.send_signal polls (reaps) the child, racing asyncio's watcher.
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
    await proc.wait()


def _search_root(ctx: ToolContext, raw: str | None) -> Path:
    root = ctx.resolve(raw or ".")
    refused = ctx.places.refusal(Path(os.path.realpath(root)), writing=False)  # by name: ripgrep opens it
    if refused is not None:
        raise ToolError(refused)
    if not root.exists():
        raise missing_path_error(ctx, root, "Path")
    if not root.is_dir():
        try:
            check_regular(root)  # ripgrep would wait on a FIFO or read /dev/zero to the end
        except NotRegularFileError as exc:
            raise ToolError(str(exc)) from None
    return root


def _readable(ctx: ToolContext, found: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """The matches outside no-read places (a token, an eval task's answers) that lie below the searched
    folder: ripgrep walked into them, but their lines never reach the model."""
    verdicts: dict[str, bool] = {}
    kept = []
    for match in found:
        path = match[0]
        if path not in verdicts:
            real = Path(os.path.realpath(ctx.resolve(path)))
            verdicts[path] = ctx.places.refusal(real, writing=False) is None
        if verdicts[path]:
            kept.append(match)
    return kept


def _shown(ctx: ToolContext, path: str) -> str:
    return ctx.display(ctx.resolve(path))


# ---------------------------------------------------------------- search_files


class SearchFilesArgs(ToolArgs):
    pattern: str = Field(description="Regular expression to search for (Rust regex syntax).")
    path: str | None = Field(None, description="File or directory to search (default: working directory).")
    file_glob: str | None = Field(
        None, description="Only search files whose name matches, e.g. *.py or *.{ts,tsx}."
    )
    max_results: int = Field(50, ge=1, description="Most matching lines to return (at most 1000).")


async def search_files(args: SearchFilesArgs, ctx: ToolContext) -> ToolOutput:
    root = await asyncio.to_thread(_search_root, ctx, args.path)
    limit = min(args.max_results, MAX_RESULTS_CAP)
    # rg searches in parallel (`--sort path` would make it single-threaded, 2x slower); matches are
    # sorted here instead, which is deterministic whenever they number under `read_limit`
    read_limit = max(limit * 20, 2000)
    rg_args = ["--json", "--no-messages", "--max-columns", "2000", "--regexp", args.pattern]
    if args.file_glob:
        rg_args += ["--glob", args.file_glob]
    proc = await _rg([*rg_args, "--", str(root)], ctx.cwd)
    found: list[tuple[str, int, str]] = []
    more = False
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(ctx.command_timeout):
            async for raw_line in proc.stdout:
                event = json.loads(raw_line)
                if event.get("type") != "match":
                    continue
                if len(found) >= read_limit:
                    more = True
                    break
                data = event["data"]
                found.append((data["path"].get("text", "?"), int(data["line_number"]),
                              data["lines"].get("text", "").rstrip("\r\n")))
    except TimeoutError:
        more = True
    finally:
        await _stop(proc)
    found = _readable(ctx, found)
    found.sort(key=lambda item: (item[0], item[1]))
    if len(found) > limit:
        more = True
    results = [
        f"{_shown(ctx, path)}:{line}: {text[:LINE_CHARS] + ' ...' if len(text) > LINE_CHARS else text}"
        for path, line, text in found[:limit]
    ]
    assert proc.stderr is not None
    stderr = (await proc.stderr.read()).decode("utf-8", errors="replace").strip()
    title = f"Search {args.pattern!r}"
    if proc.returncode == 2 and not results and stderr:
        raise ToolError(f"search_files failed: {stderr}")
    if not results:
        where = ctx.display(root) + (f" (files matching {args.file_glob})" if args.file_glob else "")
        return ToolOutput(f"No matches for {args.pattern!r} in {where}.", title=title, locations=[root])
    text = "\n".join(results)
    if more:
        text += (
            f"\n[Showing the first {len(results)} matches; there are more. Narrow the pattern, path or "
            f"file_glob{', or raise max_results (up to 1000)' if limit < MAX_RESULTS_CAP else ''}.]"
        )
    return ToolOutput(text, title=title, locations=[root])


def _searched(args: SearchFilesArgs | GlobArgs, ctx: ToolContext) -> Subjects:
    return Subjects(reads=(ctx.resolve(args.path),) if args.path else ())


SEARCH_FILES = Tool(
    name="search_files",
    description=(
        "Search file contents with a regular expression; returns `path:line: text` lines. Skips files "
        "ignored by .gitignore, hidden entries and binary files."
    ),
    params=SearchFilesArgs,
    run=search_files,
    read_only=True,
    kind="search",
    aliases=("Grep",),
    claude=ClaudeForm(keys=(("glob", "file_glob"), ("head_limit", "max_results"))),
    prompt_hint="Find code with search_files (a regex over file contents) rather than reading files at random.",
    subjects_of=_searched,
)


# ---------------------------------------------------------------- glob


class GlobArgs(ToolArgs):
    pattern: str = Field(
        description="Glob such as **/*.py, src/*.{js,ts} or test_?.py; without a / it matches at any depth."
    )
    path: str | None = Field(None, description="Directory to search in (default: working directory).")


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


async def glob(args: GlobArgs, ctx: ToolContext) -> ToolOutput:
    root = await asyncio.to_thread(_search_root, ctx, args.path)
    if not root.is_dir():
        raise ToolError(f"{ctx.display(root)} is a file, not a directory.")
    pattern = args.pattern.strip()
    if os.path.isabs(pattern):
        try:
            pattern = str(Path(pattern).relative_to(root))
        except ValueError:
            raise ToolError(
                f"The pattern {args.pattern!r} is outside {ctx.display(root)}; pass path."
            ) from None
    pattern = pattern.removeprefix("./")
    if "/" not in pattern:
        pattern = "**/" + pattern
    # ripgrep filters by the glob in Rust (fast on big trees); wcmatch re-checks the few results
    proc = await _rg(["--files", "--glob", pattern], root)
    try:
        async with asyncio.timeout(ctx.command_timeout):
            out, err = await proc.communicate()
    except TimeoutError:
        raise ToolError(f"glob timed out listing {ctx.display(root)}; pass a narrower path.") from None
    finally:
        await _stop(proc)
    if proc.returncode not in (0, 1):
        raise ToolError(f"glob failed: {err.decode('utf-8', errors='replace').strip()}")
    names = [n for n in out.decode("utf-8", errors="replace").splitlines() if n]
    matcher = wglob.compile(pattern, flags=GLOB_FLAGS)  # compiled once: globmatch() recompiles per name
    matched = [root / n for n in names if matcher.match(n)]
    title = f"Glob {args.pattern}"
    if not matched:
        return ToolOutput(
            f"No files match {args.pattern!r} in {ctx.display(root)}.", title=title, locations=[root]
        )
    times = await asyncio.to_thread(lambda: [(_mtime(p), p) for p in matched])
    times.sort(key=lambda item: (-item[0], str(item[1])))
    shown = [ctx.display(p) for _, p in times[:GLOB_CAP]]
    text = "\n".join(shown)
    if len(times) > GLOB_CAP:
        text += f"\n[Showing the {GLOB_CAP} newest of {len(times)} files; narrow the pattern.]"
    return ToolOutput(text, title=title, locations=[root])


GLOB = Tool(
    name="glob",
    description=(
        "Find files by name pattern (*, **, ?, {a,b}), newest first. Skips files ignored by .gitignore "
        "and hidden entries."
    ),
    params=GlobArgs,
    run=glob,
    read_only=True,
    kind="search",
    aliases=("Glob",),
    prompt_hint="Find files by name with glob, e.g. `**/*.py`.",
    subjects_of=_searched,
)
