"""What a run_command rule pattern covers, and what an "always allow" answer should grant.

Patterns are matched word by word against the simple commands of `shell_grammar.parse_line`, never
against raw text: `ls*` (or Claude Code's `ls:*`) covers `ls` and `ls -la`, not `lsof`. Deny matching
is wider than allow matching: it also sees the command word without its directory (`/bin/rm`), the
commands a command runs from its arguments (`sudo rm`, `xargs rm`, `sh -c "rm ..."`), and common
flag spellings (`rm -r -f`, `rm -fr`, `rm --recursive --force` all match `rm -rf*`).
Imports nothing from sigit but its siblings `shell_grammar`, `shell_line` and `shell_programs`.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from sigit.permissions.shell_grammar import parse_line
from sigit.permissions.shell_line import ShellLine, SimpleCommand
from sigit.permissions.shell_programs import (
    DANGEROUS_OPTIONS,
    SHELLS,
    WRAPPERS,
    dangerous_words,
    git_subcommand_index,
    is_risky_assignment,
)

__all__ = [
    "CommandPattern",
    "Grant",
    "commands_allowed",
    "describe_pattern",
    "grant_prefix",
    "prefix_matches",
    "runs_code_from_args",
]

_PYTHONS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*)$")
# Option letters that make an interpreter run code given on its command line.
_CODE_FLAGS: dict[str, str] = {
    "node": "ep",
    "nodejs": "ep",
    "bun": "e",
    "deno": "",  # `deno eval`
    "perl": "eE",
    "ruby": "e",
    "php": "rR",
    "lua": "e",
    "luajit": "e",
    "Rscript": "e",
    "osascript": "e",
    "tclsh": "",
}
_CODE_LONG = frozenset({"--eval", "--print", "--exec", "--command"})
_ALWAYS_CODE = frozenset(
    {"eval", "source", ".", "xargs", "trap", "let", "awk", "gawk", "mawk", "nawk", "busybox", "parallel", "watch",
     "su", "runuser", "script", "expect", "fc"}
)
_FIND_CODE = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})
_INFO_ONLY = frozenset({"--version", "-V", "--help", "-h"})

# Programs an "always" answer never grants beyond the exact line: given other arguments they run code.
_MAY_RUN_CODE = (
    _ALWAYS_CODE
    | SHELLS
    | frozenset(WRAPPERS)
    | frozenset(_CODE_FLAGS)
    | {"find", "sed", "gsed", "ssh", "chroot", "npx", "pnpx", "bunx", "uvx", "pipx", "nix", "nix-shell"}
)
# Programs whose option-only form (`ls -la`) may be granted as the bare command word: they only read.
_READ_ONLY = frozenset(
    {"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "pwd", "echo", "printf", "which",
     "type", "file", "stat", "du", "df", "tree", "diff", "cmp", "sort", "uniq", "cut", "tr", "date", "whoami",
     "id", "uname", "hostname", "basename", "dirname", "realpath", "readlink", "true", "false", "test", "nl",
     "column", "jq", "yq", "md5sum", "sha1sum", "sha256sum", "fd", "locate", "ps", "free", "uptime", "printenv",
     "lsof"}
)
# Programs whose second word is a subcommand (`git status`, `make test`): granted as those two words.
_SUBCOMMAND_PROGRAMS = frozenset(
    {"git", "npm", "pnpm", "yarn", "cargo", "go", "make", "gmake", "just", "docker", "podman", "kubectl", "pip",
     "pip3", "uv", "poetry", "pdm", "hatch", "tox", "nox", "gh", "brew", "apt", "apt-get", "dnf", "yum", "pacman",
     "systemctl", "journalctl", "rake", "bundle", "mvn", "gradle", "./gradlew", "dotnet", "terraform", "helm",
     "conda", "rustup", "bazel", "swift", "mix", "composer", "deno", "bun", "zig", "flutter", "dart", "stack",
     "cabal", "opam", "dune", "sigit"}
)
# Subcommands that run a command or code named in their own arguments: granted exactly.
_RUNNING_SUBCOMMANDS = frozenset(
    {"exec", "x", "dlx", "run", "eval", "repl", "shell", "foreach", "submodule", "bisect", "rebase", "config",
     "alias", "debug", "attach", "create", "env", "task"}
)
_SUBCOMMAND = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_:-]*[A-Za-z0-9_])?$")


def prefix_matches(pattern_words: Sequence[str], cmd_words: Sequence[str]) -> bool:
    """Whether `cmd_words` begins with all of `pattern_words`, whole words only (`ls` covers `ls -la`, not `lsof`)."""
    return len(cmd_words) >= len(pattern_words) and tuple(cmd_words[: len(pattern_words)]) == tuple(pattern_words)


def runs_code_from_args(cmd: SimpleCommand) -> bool:
    """Whether `cmd` runs code given in its own arguments (or on stdin), so a prefix of it grants too much.

    `sh -c`, `python -c`, `node -e`, `perl -e`, `ruby -e`, `find -exec/-delete`, `xargs`, `env CMD`, `sudo CMD`,
    `eval`, `source`, any wrapper running a command; and any of these with a word built at run time.
    """
    name = cmd.name
    args = cmd.words[1:]
    if not cmd.static and name in _MAY_RUN_CODE:
        return True
    if name in _ALWAYS_CODE:
        return True
    if name in WRAPPERS:
        return bool(cmd.inner) or (name in ("sudo", "doas") and bool(set(args) & {"-s", "-i"}))
    if name == "find":
        return any(arg in _FIND_CODE for arg in args)
    if name in SHELLS:
        return _interpreter_runs_code(args, "cs", script_needed=True, arg_options=_ARG_OPTIONS["shell"])
    if _PYTHONS.match(name):
        if "-m" in args:  # `python -m module ARGS`: ARGS are the module's
            args = args[: args.index("-m")]
            return _interpreter_runs_code(args, "c", script_needed=False, arg_options=_ARG_OPTIONS["python"])
        return _interpreter_runs_code(args, "c", script_needed=True, arg_options=_ARG_OPTIONS["python"])
    if name in _CODE_FLAGS:
        if name == "deno":
            return bool(args) and args[0] in ("eval", "repl")
        return _interpreter_runs_code(
            args,
            _CODE_FLAGS[name],
            script_needed=name not in ("Rscript", "osascript"),
            arg_options=_ARG_OPTIONS.get(name.removesuffix("js").removesuffix("jit"), frozenset()),
        )
    return False


# Options that take the next word as their argument, so that word is not the script.
_ARG_OPTIONS: dict[str, frozenset[str]] = {
    "shell": frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}),
    "python": frozenset({"-W", "-X", "-Q"}),
    "node": frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"}),
    "ruby": frozenset({"-I", "-r", "-C"}),
    "perl": frozenset({"-I", "-M", "-m"}),
}


def _interpreter_runs_code(
    args: Sequence[str], letters: str, *, script_needed: bool, arg_options: frozenset[str] = frozenset()
) -> bool:
    """Code from an option (`-c`, `-e`, or clustered: `-lc`, `-ne`), or from stdin when no script is named."""
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--":
            return False  # the script follows
        if arg in arg_options:
            skip = True
            continue
        if arg in _CODE_LONG or arg.split("=", 1)[0] in _CODE_LONG:
            return True
        if len(arg) > 1 and arg[0] in "-+" and arg[1] != "-":
            if arg[0] == "-" and letters and any(letter in arg[1:] for letter in letters):
                return True
            skip = f"-{arg[-1]}" in arg_options  # `-euo pipefail`: the cluster's last option takes a word
            continue
        if arg.startswith("-") and arg != "-":
            continue
        return arg == "-"  # `-` is stdin; otherwise a script file: the code is in the file, not the arguments
    if not script_needed:
        return False
    return not any(arg in _INFO_ONLY for arg in args)


@dataclass(frozen=True)
class Grant:
    """What an "always allow" answer grants: `words` exactly, or as a prefix (`pattern` is the rule text)."""

    words: tuple[str, ...]
    exact: bool

    @property
    def pattern(self) -> str:
        """The pattern for `run_command(...)`: `git status*`, or the exact line quoted (`python3 -c 'print(1)'`)."""
        text = shlex.join(self.words)
        return text if self.exact else text + "*"

    def covers(self) -> str:
        """What the grant lets run, in words: `sort` with any arguments but `-o`, `--compress-program`..."""
        return describe_pattern(self.words, prefix=not self.exact)


def describe_pattern(words: Sequence[str], *, prefix: bool) -> str:
    """What a run_command pattern covers, naming the options it leaves out."""
    text = shlex.join(words)
    if not prefix:
        return f"exactly `{text}`"
    if not words:
        return "any command"
    bare = (_bare(words[0]), *words[1:])
    key = f"{bare[0]} {bare[1]}" if len(bare) > 1 and f"{bare[0]} {bare[1]}" in DANGEROUS_OPTIONS else bare[0]
    if bare[0] == "git" and len(bare) > 1:
        key = f"git {bare[git_subcommand_index(bare)]}" if git_subcommand_index(bare) < len(bare) else "git"
    danger = DANGEROUS_OPTIONS.get(key)
    if danger is None:
        return f"`{text}` with any arguments"
    left_out = [f"`{o}`" for o in sorted(danger.options)]
    if danger.assignments:
        left_out.append("`NAME=value` overrides")
    if danger.operands is not None:
        left_out.append(f"more than {danger.operands} file operand")
    return f"`{text}` with any arguments except {', '.join(left_out)}"


def grant_prefix(cmd: SimpleCommand) -> Grant:
    """The narrowest useful grant for `cmd`; leading `VAR=value` words are never part of it.

    Code runners and programs that may run code given other arguments (`find`, `sed`, shells,
    interpreters, wrappers): the exact command. Otherwise the command word and its subcommand
    (`git status`, `make test`); a read-only program given only options or paths: the command word
    (`ls -la` -> `ls`); anything else: the exact command.
    """
    words = cmd.words
    if not words or runs_code_from_args(cmd) or cmd.name in _MAY_RUN_CODE or _PYTHONS.match(cmd.name):
        return Grant(words, exact=True)
    if words[0] in _SUBCOMMAND_PROGRAMS and len(words) >= 2:
        if _SUBCOMMAND.match(words[1]) and words[1] not in _RUNNING_SUBCOMMANDS:
            return Grant(words[:2], exact=False)
        return Grant(words, exact=True)
    if words[0] in _READ_ONLY:
        return Grant(words[:1], exact=False)
    return Grant(words, exact=True)


# -- patterns --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandPattern:
    """A run_command rule pattern as words: `git status*` (prefix), `git log:*` (prefix), `make test` (exact)."""

    words: tuple[str, ...]
    assignments: tuple[str, ...]
    prefix: bool

    @staticmethod
    @functools.lru_cache(maxsize=512)
    def parse(text: str) -> CommandPattern | None:
        """None for a pattern that is not one simple command (`a | b`, `$(x)`): it matches no command."""
        stem = text.strip()
        prefix = stem.endswith("*")
        if stem.endswith(":*"):
            stem = stem[:-2]
        elif prefix:
            stem = stem[:-1]
        if not stem.strip():
            return CommandPattern((), (), prefix=True) if prefix else None
        line = parse_line(stem)
        if line.opaque or line.writes or len(line.commands) != 1:
            return None
        command = line.commands[0]
        return CommandPattern(command.words, command.assignments, prefix)

    @functools.cached_property
    def _bare_words(self) -> tuple[str, ...]:
        return (_bare(self.words[0]), *self.words[1:]) if self.words else ()

    def allows(self, cmd: SimpleCommand) -> bool:
        """Allow matching: the words as written; `VAR=value` words must be named by the pattern or be inert."""
        if self.words and (not cmd.words or cmd.words[0] != self.words[0]):
            return False
        if cmd.assignments or self.assignments:
            extra = set(cmd.assignments) - set(self.assignments)
            if any(is_risky_assignment(assignment) for assignment in extra):
                return False
            if not set(self.assignments) <= set(cmd.assignments):
                return False
        if not self._words_match(cmd.words, self.words):
            return False
        # a prefix covers the program's arguments, not the options that make it run code or write files
        return not (self.prefix and dangerous_words(cmd.argv, max(1, len(self.words))))

    def denies(self, cmd: SimpleCommand) -> bool:
        """Deny matching: `cmd` or any command it runs, by its words, its bare name, or its flags however spelt.

        Give it the commands of a line (`ShellLine.commands`): it walks what each of them runs itself.
        """
        return any(self._denies_one(candidate) for candidate in cmd.walk())

    def _denies_one(self, cmd: SimpleCommand) -> bool:
        if not self.words:
            return set(self.assignments) <= set(cmd.assignments)
        if self.assignments and not set(self.assignments) <= set(cmd.assignments):
            return False
        return any(self._denies_words(words, argv) for words, argv in _spellings(cmd))

    def _denies_words(self, words: tuple[str, ...], argv: tuple[str, ...]) -> bool:
        bare = self._bare_words
        if argv[0] != bare[0] and words[0] != self.words[0]:
            return False
        if self._words_match(words, self.words) or self._words_match(argv, bare):
            return True
        return _flags_match(bare, argv, prefix=self.prefix)

    def _words_match(self, cmd_words: Sequence[str], pattern_words: Sequence[str]) -> bool:
        if self.prefix:
            return prefix_matches(pattern_words, cmd_words)
        return tuple(cmd_words) == tuple(pattern_words)


def _spellings(cmd: SimpleCommand) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(words, argv) of `cmd` as written and, for git, also without its global options, so that
    `git -C . push` and `git --no-pager push` meet a deny rule for `git push`."""
    if not cmd.words:
        return []
    spellings = [(cmd.words, cmd.argv)]
    if cmd.name == "git":
        start = git_subcommand_index(cmd.argv)
        if start > 1:
            spellings.append(((cmd.words[0], *cmd.words[start:]), (cmd.argv[0], *cmd.argv[start:])))
    return spellings


def _bare(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1] or word


# Long options and their short spellings, per program, for deny matching.
_FLAG_ALIASES: dict[str, dict[str, str]] = {
    "rm": {"--recursive": "-r", "-R": "-r", "--force": "-f", "--dir": "-d"},
    "cp": {"--recursive": "-r", "-R": "-r", "--force": "-f"},
    "mv": {"--force": "-f"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "chgrp": {"--recursive": "-R"},
    "git": {"--force": "-f", "--delete": "-d", "--recursive": "-r"},
    "shred": {"--remove": "-u", "--force": "-f"},
}


def _canonical(argv: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """(flags, operands): short clusters split (`-rf` -> `-r`, `-f`), long forms mapped to short ones."""
    aliases = _FLAG_ALIASES.get(argv[0], {}) if argv else {}
    flags: set[str] = set()
    operands: list[str] = []
    ended = False
    for word in argv[1:]:
        if ended or word == "-" or not word.startswith("-"):
            operands.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            name = word.split("=", 1)[0]
            flags.add(aliases.get(name, name))
        else:
            flags.update(aliases.get(f"-{char}", f"-{char}") for char in word[1:])
    return frozenset(flags), tuple(operands)


def _flags_match(pattern_argv: Sequence[str], cmd_argv: Sequence[str], *, prefix: bool) -> bool:
    if not pattern_argv or not cmd_argv or pattern_argv[0] != cmd_argv[0]:
        return False
    pattern_flags, pattern_operands = _canonical(pattern_argv)
    if not pattern_flags:
        return False  # nothing to respell: the word match already decided
    cmd_flags, cmd_operands = _canonical(cmd_argv)
    if not pattern_flags <= cmd_flags:
        return False
    if prefix:
        return prefix_matches(pattern_operands, cmd_operands)
    return pattern_operands == cmd_operands


def commands_allowed(line: ShellLine, patterns: Sequence[CommandPattern]) -> bool:
    """Whether allow `patterns` cover the whole line: it can be judged, and each of its commands is allowed.

    Writes (`line.writes`) are left to the caller, which knows the working directory.
    """
    return bool(line.commands) and not line.opaque and all(
        any(pattern.allows(command) for pattern in patterns) for command in line.commands
    )
