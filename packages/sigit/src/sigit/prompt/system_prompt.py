"""The system prompt: working rules for a small local model, the environment, and instruction files.

Building it runs `git status` (2 s timeout): call it from a worker thread inside an event loop.
"""

from __future__ import annotations

import platform
import subprocess
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

from sigit.config.paths import find_repo_root
from sigit.git import Confinement, run_git
from sigit.prompt.instructions import load_instructions, render_instructions

GIT_TIMEOUT_S = 2.0
GIT_STATUS_LINES = 20

INTRO = (
    "You are siGit Code, a coding agent running on the user's own computer. You help with software "
    "tasks in the working directory below by calling the tools you are given."
)

# The working rules before and after the offered tools' own lines of guidance (`Tool.prompt_hint`).
_RULES_BEFORE = (
    "Be concise: a few sentences or a short list. No preamble, no restating the question.",
    "Never invent file contents, paths, functions or command output. If you have not seen it, "
    "look first; if you cannot find out, say so.",
    "Make small, focused changes that do what was asked and nothing more. Keep the existing style.",
)
_RULES_AFTER = (
    "If a tool call fails, read the error and change your approach; do not repeat the same call. "
    "If the user refuses a tool call, do not retry it: adapt, or ask what they want.",
    "Ask before anything destructive or hard to undo (deleting data, force-pushing, rewriting "
    "history) unless the user asked for exactly that.",
    "When the task is done, stop calling tools and answer in plain text: what you changed, and "
    "anything the user must check or decide.",
)


class OfferedTool(Protocol):
    """What the prompt needs of a tool (a `sigit.tools.Tool`): its guidance, and whether it runs commands."""

    @property
    def prompt_hint(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def read_only(self) -> bool: ...


def build_system_prompt(
    cwd: Path,
    *,
    tools: Sequence[OfferedTool],
    config_dir: Path,
    attribution: str | None,
    now: datetime | None = None,
    sandbox: Confinement | None = None,
) -> str:
    """The whole prompt; `sandbox` is the session's, which the git summary's `git status` runs in."""
    hints = [tool.prompt_hint for tool in tools if tool.prompt_hint]
    rules = [*_RULES_BEFORE, *dict.fromkeys(hints), *_RULES_AFTER]
    runs_commands = any(tool.kind == "execute" and not tool.read_only for tool in tools)
    sections = [
        INTRO,
        "# How to work\n" + "\n".join(f"- {rule}" for rule in rules),
        _git_rules(attribution, runs_commands),
        _environment(cwd, now, sandbox),
        render_instructions(load_instructions(cwd, config_dir), cwd),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _git_rules(attribution: str | None, can_run: bool) -> str:
    if not can_run:
        return ""
    lines = [
        "# Git",
        "- Commit only when the user asks you to. Never push unless asked.",
    ]
    if attribution:
        lines.append(
            "- When you commit, end the commit message with a blank line followed by this trailer "
            f"line:\n  {attribution}"
        )
    return "\n".join(lines)


def _environment(cwd: Path, now: datetime | None, sandbox: Confinement | None) -> str:
    moment = now if now is not None else datetime.now().astimezone()
    system = platform.system() or "unknown"
    release = platform.release()
    machine = platform.machine()
    platform_text = " ".join(part for part in (system, release) if part)
    if machine:
        platform_text += f" ({machine})"
    return "\n".join(
        [
            "# Environment",
            f"Working directory: {cwd}",
            "Relative paths in tool calls resolve against the working directory.",
            f"Date: {moment:%Y-%m-%d} ({moment:%A})",
            f"Platform: {platform_text}",
            git_summary(cwd, sandbox),
        ]
    )


def git_summary(cwd: Path, sandbox: Confinement | None = None) -> str:
    """One line on the repository and branch, then up to 20 lines of `git status --porcelain`.

    `git status` runs hardened and in the session's `sandbox` (see `sigit.git`): a command may have
    configured the repository to run code on it (`core.fsmonitor`, a clean filter).
    """
    try:
        completed = run_git(cwd, "-c", "core.quotepath=off", "status", "--porcelain=v1", "--branch",
                            sandbox=sandbox, timeout=GIT_TIMEOUT_S)
    except FileNotFoundError:
        return "Git: git is not installed."
    except subprocess.TimeoutExpired:
        return f"Git: `git status` took over {GIT_TIMEOUT_S:g} s, so the repository state is unknown."
    except OSError as exc:
        return f"Git: could not run git ({exc.strerror or exc})."
    if completed.code != 0:
        if "not a git repository" in completed.stderr:
            return "Git: the working directory is not in a git repository."
        first = completed.stderr.strip().splitlines()[:1]
        return f"Git: `git status` failed: {first[0] if first else f'exit code {completed.code}'}"

    lines = completed.stdout.splitlines()
    header = lines[0][3:] if lines and lines[0].startswith("## ") else ""
    entries = [line for line in lines if not line.startswith("## ")]
    root = find_repo_root(cwd)
    where = f" at {root}" if root is not None and root != cwd.resolve() else ""
    summary = f"Git: repository{where}, {_branch(header)}; "
    if not entries:
        return summary + "no uncommitted changes."
    noun = "change" if len(entries) == 1 else "changes"
    shown = entries[:GIT_STATUS_LINES]
    more = len(entries) - len(shown)
    text = (
        summary + f"{len(entries)} uncommitted {noun} "
        "(git status --porcelain, paths relative to the repository root):\n" + "\n".join(shown)
    )
    if more:
        text += f"\n... and {more} more"
    return text


def _branch(header: str) -> str:
    if header.startswith("No commits yet on "):
        return f"branch {header.removeprefix('No commits yet on ')} (no commits yet)"
    if header.startswith("HEAD (no branch)"):
        return "detached HEAD"
    branch, _, tracking = header.partition("...")
    if not branch:
        return "branch unknown"
    ahead_behind = tracking.partition(" ")[2].strip(" []")
    return f"branch {branch}" + (f" ({ahead_behind} vs. upstream)" if ahead_behind else "")
