"""What a permission rule's pattern is matched against: command lines split into simple commands,
and paths in the forms a rule must see. The rule grammar itself lives in `sigit.config.rules`.

A rule's pattern is matched against the command a call declares (`Subjects.command`) or its paths.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigit.config.rules import Rule, RuleSyntaxError, parse_rule, pattern_matches
from sigit.permissions.shell_grammar import parse_line
from sigit.permissions.shell_line import ShellLine, SimpleCommand
from sigit.permissions.shell_patterns import CommandPattern
from sigit.tools.base import PreparedCall

__all__ = [
    "CallSubject",
    "Rule",
    "RuleSyntaxError",
    "deny_parts",
    "display_path",
    "every_word",
    "is_inside",
    "normalize_command",
    "normalize_pattern",
    "parse_rule",
    "path_candidates",
    "path_matches",
    "pattern_matches",
    "string_arg",
    "subject_matches",
]

def normalize_command(command: str) -> str:
    """Whitespace runs collapsed, so `git  push` cannot slip past a rule for `git push`."""
    return " ".join(command.split())


def deny_parts(command: str) -> list[str]:
    """Every simple command in the line as text, substitutions and wrapped commands included, for deny
    rules and hook matchers; for an unanalysable line also its text from every word on.

    Best effort: a shell can always hide a command (`sh -c "$x"`), so deny rules on run_command
    are a guard rail, not a sandbox.
    """
    return list(_deny_texts(command, parse_line(command)))


_QUOTING = re.compile(r"[\"'\\]")
_WORD_BREAKS = re.compile(r"[\s;&|()<>{}`,$=]+")
_WINDOW = 32  # words per fallback command: deny patterns are short
_MAX_WINDOWS = 4096


@functools.lru_cache(maxsize=256)
def every_word(command: str) -> tuple[SimpleCommand, ...]:
    """An unanalysable line read crudely: from every word on, the words up to the next ones, quotes and
    backslashes dropped, split at operators, braces, commas and `$`, so a deny rule sees `rm -rf x` in
    ``${x:-`rm -rf x`}``, `{rm,-rf,x}` or a here-document body."""
    tokens = [token for token in _WORD_BREAKS.split(_QUOTING.sub("", command)) if token]
    return tuple(SimpleCommand(words=tuple(tokens[i : i + _WINDOW])) for i in range(min(len(tokens), _MAX_WINDOWS)))


def path_candidates(raw_path: str, cwd: Path) -> tuple[str, str]:
    """(lexically normalized, symlink-resolved) forms of a tool's path, relative to cwd when inside it.

    Deny rules are checked against both, so neither `a/../secrets` nor a symlink hides a target.
    """
    cwd_abs = Path(os.path.abspath(cwd))
    base = cwd_abs.resolve()
    expanded = Path(os.path.expanduser(raw_path))
    joined = expanded if expanded.is_absolute() else cwd_abs / expanded
    lexical = Path(os.path.normpath(joined))
    resolved = joined.resolve()
    lexical_base = cwd_abs if is_inside(lexical, cwd_abs) else base
    return display_path(lexical, lexical_base), display_path(resolved, base)


def display_path(path: Path, cwd: Path) -> str:
    """`path` relative to cwd (`.` for cwd itself) when inside it, else absolute, with `/` separators."""
    try:
        relative = path.relative_to(cwd)
    except ValueError:
        return path.as_posix()
    text = relative.as_posix()
    return text if text else "."


def normalize_pattern(pattern: str, cwd: Path) -> str:
    """A path pattern in the same form as path subjects: relative to cwd when inside it."""
    wildcard = ""
    stem = pattern
    if stem.endswith(":*"):
        wildcard, stem = ":*", stem[:-2]
    elif stem.endswith("*"):
        wildcard, stem = "*", stem.rstrip("*")  # Claude Code's `src/**` is the prefix `src/*`
    if not stem:
        return wildcard
    keep_slash = stem.endswith("/")
    lexical, _ = path_candidates(stem, cwd)
    if keep_slash and lexical != ".":
        lexical += "/"
    elif keep_slash:
        lexical = ""
    return lexical + wildcard


def is_inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def string_arg(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) and value.strip() else None


@dataclass(frozen=True)
class CallSubject:
    """What rules are matched against for one prepared call, in every form a deny rule must see.

    Built from the call's declared `Subjects`, so the policy and hook matchers judge the same
    normalised paths and command the tool will use.
    """

    command: str | None  # the whole line, whitespace-normalised
    line: ShellLine | None  # the line parsed by the bash grammar: its simple commands and writes
    deny_parts: tuple[str, ...]  # every command in the line, substitutions included (text forms)
    path_forms: tuple[tuple[str, str], ...]  # per path: (lexical, resolved), relative to cwd when inside
    url: str | None
    outside_target: str | None  # a write target outside the working directory, for the message
    outside_form: str | None  # that target's resolved form, which an allow rule must name
    git_target: str | None = None  # a write inside a `.git` directory (git runs its config and hooks later)

    @classmethod
    def of(cls, call: PreparedCall, cwd: Path) -> CallSubject:
        subjects = call.subjects
        root = Path(os.path.abspath(cwd)).resolve()
        command = subjects.command
        forms = tuple(path_candidates(str(path), cwd) for path in subjects.paths)
        outside: str | None = None
        outside_form: str | None = None
        if not call.read_only:
            if command is not None and subjects.command_cwd is not None:
                run_path = subjects.command_cwd.resolve()
                if not is_inside(run_path, root):
                    outside = run_path.as_posix()
            for lexical, resolved in (path_candidates(str(path), cwd) for path in subjects.writes):
                if outside is None and (Path(resolved).is_absolute() or Path(lexical).is_absolute()):
                    outside = resolved if Path(resolved).is_absolute() else lexical
                    outside_form = resolved
        line = parse_line(command) if command is not None else None
        git_target = None
        if not call.read_only:
            git_target = next((form for path in subjects.writes for form in path_candidates(str(path), cwd)
                               if ".git" in Path(form).parts), None)
        return cls(
            command=normalize_command(command) if command is not None else None,
            line=line,
            deny_parts=_deny_texts(command, line),
            path_forms=forms,
            url=subjects.url,
            outside_target=outside,
            outside_form=outside_form,
            git_target=git_target,
        )


def _deny_texts(command: str | None, line: ShellLine | None) -> tuple[str, ...]:
    """The text forms deny rules and hook matchers also see: each command the grammar found (with and
    without the command word's directory), plus, for a line the grammar cannot account for, its text
    from every word on (fail closed where the grammar has a gap)."""
    if command is None or line is None:
        return ()
    found = [*line.deny_candidates, *(every_word(command) if line.opaque else ())]
    texts = [" ".join(words) for command in found for words in (command.words, command.argv)]
    return tuple(dict.fromkeys(text for text in texts if text))


def subject_matches(rule: Rule, subject: CallSubject, cwd: Path) -> bool:
    """Whether a rule's pattern covers any form of what the call touches (deny rules, hook matchers):
    any simple command of the line, either form of any path, or the URL."""
    if rule.pattern is None:
        return True
    if subject.command is not None:
        words = CommandPattern.parse(rule.pattern)
        line = subject.line
        if words is not None and line is not None and any(words.denies(command) for command in line.commands):
            return True
        if words is not None and line is not None and line.opaque:
            # unanalysable: the pattern's words anywhere in the text, followed by anything
            loose = dataclasses.replace(words, prefix=True)
            if any(loose.denies(command) for command in every_word(line.source)):
                return True
        # the text forms too: a deny rule or hook matcher errs on the side of matching
        return any(rule.matches_subject(text) for text in (subject.command, *subject.deny_parts))
    if subject.path_forms:
        pattern = normalize_pattern(rule.pattern, cwd)
        return any(path_matches(pattern, form) for forms in subject.path_forms for form in forms)
    if subject.url is not None:
        return rule.matches_subject(subject.url)
    return False


def path_matches(pattern: str, path: str) -> bool:
    if pattern_matches(pattern, path):
        return True
    # `dir/*` also covers `dir` itself (deleting or creating the directory).
    return pattern.endswith("/*") and path == pattern[:-2]
