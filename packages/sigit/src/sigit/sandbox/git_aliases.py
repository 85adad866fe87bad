"""Which repository aliases make the user's own git run a program, with or without `!`.

git runs a repository's alias when the user types its name, and a repository's alias wins over the
user's own alias of the same name; an alias that passes `-c core.pager=cmd`, `--upload-pack=cmd`,
`grep -O<cmd>` or names a command that runs programs (`bisect`, `submodule`) runs one without `!`.
The repository guard (`repo_guard`) quarantines what `alias_danger` names.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
from collections.abc import Collection

from sigit.git import git_executable

_GIT_TIMEOUT_S = 5.0
# An alias's expansion runs programs without `!` when it passes these (git takes any unambiguous
# prefix of a long option: `--upload-p=cmd` is `--upload-pack=cmd`).
_ALIAS_RISKY_LONG = (
    "upload-pack", "receive-pack", "exec", "extcmd", "open-files-in-pager", "config", "config-env", "template",
    "ext-diff", "textconv", "output", "exec-path", "git-dir", "work-tree", "tool", "strategy", "sendmail-cmd",
    "smtp-server", "to-cmd", "cc-cmd", "header-cmd",
)
# Short options that do, per command (`-c` for every command: `git -c core.pager=cmd` and `clone -c`).
_ALIAS_RISKY_SHORT = {
    "grep": "O", "rebase": "xs", "clone": "u", "ls-remote": "u", "merge": "s", "pull": "s",
    "cherry-pick": "s", "revert": "s", "difftool": "xt", "mergetool": "t",
}
# Commands that run programs by what they are (`bisect run`, `submodule foreach`, a diff or merge tool...).
_ALIAS_RUNS_PROGRAMS = frozenset({
    "bisect", "submodule", "filter-branch", "hook", "instaweb", "daemon", "difftool", "mergetool", "send-email",
    "web--browse", "credential", "upload-pack", "receive-pack", "upload-archive", "remote-ext", "remote-fd",
    "shell", "fsmonitor--daemon", "difftool--helper", "for-each-repo", "maintenance", "quiltimport",
})
# Global options that change nothing git runs (any other before the command counts as running code).
_ALIAS_SAFE_GLOBALS = frozenset({
    "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
    "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch", "--no-advice",
})
_FALLBACK_COMMANDS = frozenset({
    "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "checkout",
    "cherry", "cherry-pick", "clean", "clone", "commit", "config", "describe", "diff", "difftool", "fetch",
    "format-patch", "fsck", "gc", "grep", "help", "init", "log", "ls-files", "ls-remote", "ls-tree", "merge",
    "mergetool", "mv", "notes", "pull", "push", "rebase", "reflog", "remote", "reset", "restore", "revert", "rm",
    "shortlog", "show", "stash", "status", "submodule", "switch", "tag", "worktree",
})
"""Commands every git has: what `git_commands` falls back on where `--list-cmds` is missing."""


@functools.cache
def git_commands() -> frozenset[str]:
    """The commands this git has (built-ins and its exec-path's), which an alias cannot shadow."""
    try:
        done = subprocess.run(
            [git_executable(), "--list-cmds=builtins,main"], capture_output=True, timeout=_GIT_TIMEOUT_S,
            check=False, stdin=subprocess.DEVNULL, env=git_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return _FALLBACK_COMMANDS
    found = frozenset(done.stdout.decode("utf-8", "replace").split()) if done.returncode == 0 else frozenset()
    return found | _FALLBACK_COMMANDS


def alias_danger(name: str, value: str, user_aliases: Collection[str] = ()) -> str | None:
    """Why `alias.NAME = value` in a repository may make the user's git run a program, or None.

    With or without `!`: an alias named like a git command or like one of the user's own aliases
    (the repository's wins over theirs: `git st` would run this), one that expands to another alias
    or to a `git-WORD` program on PATH, one that passes global options (`-c core.pager=cmd`), or
    options that run programs (`fetch --upload-pack=cmd`, `grep -Ocmd`, `rebase -x`...)."""
    name = name.lower()
    if value.lstrip().startswith("!"):
        return "runs a shell command"
    if name in git_commands():
        return f"shadows the git command `{name}`"
    if name in user_aliases:
        return f"overrides your own alias `{name}`"
    try:
        words = shlex.split(value)
    except ValueError:
        return "cannot be read as git reads it"
    at = 0
    while at < len(words) and words[at].startswith("-"):
        if words[at] not in _ALIAS_SAFE_GLOBALS:
            return f"passes `{words[at]}` to git"
        at += 1
    if at == len(words):
        return None
    command, rest = words[at], words[at + 1 :]
    if command not in git_commands():
        return f"runs `{command}`, another alias or a program on PATH"
    if command in _ALIAS_RUNS_PROGRAMS:
        return f"runs `git {command}`, which runs programs"
    short = "c" + _ALIAS_RISKY_SHORT.get(command, "")
    for word in rest:
        if word == "--":
            break
        if word.startswith("--"):
            option = word[2:].split("=", 1)[0].lower()
            if option and not option.startswith("no-") and any(r.startswith(option) for r in _ALIAS_RISKY_LONG):
                return f"passes `{word}`"
        elif word.startswith("-") and len(word) > 1 and any(char in short for char in word[1:]):
            return f"passes `{word}`"
    return None


def git_env() -> dict[str, str]:
    """No GIT_* variable from siGit's environment (GIT_DIR, GIT_CONFIG_*...) reaches these git calls."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    return env


def user_aliases() -> frozenset[str]:
    """The names of the aliases in the user's global git config (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`)."""
    try:
        done = subprocess.run(
            [git_executable(), "config", "--global", "--name-only", "--get-regexp", r"^alias\."],
            capture_output=True, timeout=_GIT_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL, env=git_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    names = done.stdout.decode("utf-8", "replace").split() if done.returncode == 0 else []
    return frozenset(name.split(".", 1)[1].lower() for name in names if "." in name)


__all__ = ["alias_danger", "git_commands", "git_env", "user_aliases"]
