"""What shell programs do with their arguments: wrappers that run a command, shells that run a script.

Word-level knowledge for `shell_grammar` and `shell_inner` (which find the commands a command runs)
and `shell_patterns` (which decides what a grant may cover). Imports nothing from sigit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "DANGEROUS_OPTIONS",
    "FIND_EXEC",
    "NAME_TAKING",
    "OPAQUE_PROGRAMS",
    "SHELLS",
    "WRAPPERS",
    "Danger",
    "WrapperSpec",
    "dangerous_words",
    "find_exec_spans",
    "git_subcommand_index",
    "is_risky_assignment",
    "names_built_at_run_time",
    "script_argument",
    "shell_script_index",
    "unwrap",
]

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh"})


@dataclass(frozen=True)
class WrapperSpec:
    """How a wrapper's own options are spelled, so its command can be found after them."""

    short_with_arg: str = ""
    short_flags: str = ""
    long_with_arg: frozenset[str] = frozenset()
    long_flags: frozenset[str] = frozenset()
    optional_attached: str = ""  # short options whose argument, if any, is attached (`xargs -i{}`)
    numeric_flags: bool = False  # `nice -10`
    assignments: bool = False  # `env A=1 cmd`, `sudo A=1 cmd`
    operands: int = 0  # words before the command (`timeout 10 cmd`)
    no_command_flags: str = ""  # `command -v x` runs nothing
    opaque_options: frozenset[str] = frozenset()  # `env -S '...'` splits a string into a command
    script_options: frozenset[str] = frozenset()  # `su -c SCRIPT`: the option's value is a shell script
    joins_script: bool = False  # `watch a b`: the words after the options are joined and run by `sh -c`


WRAPPERS: dict[str, WrapperSpec] = {
    "env": WrapperSpec(
        short_with_arg="uCP",
        short_flags="i0v",
        long_with_arg=frozenset({"unset", "chdir"}),
        long_flags=frozenset({"ignore-environment", "null", "debug"}),
        assignments=True,
        opaque_options=frozenset({"-S", "--split-string"}),
    ),
    "sudo": WrapperSpec(
        short_with_arg="ugpCrtUDRTc",
        short_flags="AbEeHhiKklnPSsVv",
        long_with_arg=frozenset(
            {"user", "group", "prompt", "close-from", "role", "type", "other-user", "chdir", "chroot",
             "command-timeout", "host", "login-class"}
        ),
        long_flags=frozenset(
            {"askpass", "background", "preserve-env", "set-home", "login", "non-interactive", "stdin", "shell",
             "remove-timestamp", "reset-timestamp", "preserve-groups", "bell"}
        ),
        assignments=True,
    ),
    "doas": WrapperSpec(short_with_arg="uC", short_flags="nsL"),
    "nohup": WrapperSpec(),
    "time": WrapperSpec(short_with_arg="fo", short_flags="apqv", long_with_arg=frozenset({"format", "output"}),
                         long_flags=frozenset({"append", "portability", "quiet", "verbose"})),
    "exec": WrapperSpec(short_with_arg="a", short_flags="cl"),
    "command": WrapperSpec(short_flags="pvV", no_command_flags="vV"),
    "builtin": WrapperSpec(),
    "nice": WrapperSpec(short_with_arg="n", long_with_arg=frozenset({"adjustment"}), numeric_flags=True),
    "xargs": WrapperSpec(
        short_with_arg="aEdILnPs",
        short_flags="0prtxo",
        optional_attached="eil",
        long_with_arg=frozenset(
            {"arg-file", "eof", "delimiter", "replace", "max-lines", "max-args", "max-procs", "max-chars",
             "process-slot-var"}
        ),
        long_flags=frozenset({"null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty",
                              "show-limits"}),
    ),
    "timeout": WrapperSpec(
        short_with_arg="sk",
        short_flags="v",
        long_with_arg=frozenset({"signal", "kill-after"}),
        long_flags=frozenset({"foreground", "preserve-status", "verbose"}),
        operands=1,
    ),
    "stdbuf": WrapperSpec(short_with_arg="ioe", long_with_arg=frozenset({"input", "output", "error"})),
    "setsid": WrapperSpec(short_flags="cfw", long_flags=frozenset({"ctty", "fork", "wait"})),
    "coproc": WrapperSpec(),
    "busybox": WrapperSpec(),  # `busybox rm -rf x`: the applet is the command
    "ionice": WrapperSpec(short_with_arg="cnpPu", short_flags="t",
                          long_with_arg=frozenset({"class", "classdata", "pid", "pgid", "uid"}),
                          long_flags=frozenset({"ignore"})),
    "chroot": WrapperSpec(long_with_arg=frozenset({"userspec", "groups"}), long_flags=frozenset({"skip-chdir"}),
                          operands=1),
    "flock": WrapperSpec(short_with_arg="wE", short_flags="sexunoFv",
                         long_with_arg=frozenset({"timeout", "conflict-exit-code"}),
                         long_flags=frozenset({"shared", "exclusive", "unlock", "nonblock", "close", "no-fork",
                                               "verbose"}),
                         operands=1, opaque_options=frozenset({"-c", "--command"})),
    "strace": WrapperSpec(short_with_arg="abeEIoOpPsSuXU", short_flags="cCdDfFhikqrtTvVwxyYzZn"),
    "ltrace": WrapperSpec(short_with_arg="aeAElnoOpsuwx", short_flags="bcCdfhiLrStTV"),
    "unbuffer": WrapperSpec(short_flags="p"),
    "taskset": WrapperSpec(short_flags="acp", long_flags=frozenset({"all-tasks", "cpu-list", "pid"}), operands=1),
    # Run a shell script given as an option's value, or the command after their own options.
    "su": WrapperSpec(short_with_arg="gGsw", short_flags="flmpP",
                      long_with_arg=frozenset({"group", "supp-group", "shell", "whitelist-environment"}),
                      long_flags=frozenset({"login", "preserve-environment", "pty", "fast"}),
                      script_options=frozenset({"-c", "--command", "--session-command"}), operands=1),
    "runuser": WrapperSpec(short_with_arg="ugGsw", short_flags="flmpP",
                           long_with_arg=frozenset({"user", "group", "supp-group", "shell",
                                                    "whitelist-environment"}),
                           long_flags=frozenset({"login", "preserve-environment", "pty", "fast"}),
                           script_options=frozenset({"-c", "--command", "--session-command"})),
    "script": WrapperSpec(short_with_arg="ETBIOmo", short_flags="aefqtk",
                          long_with_arg=frozenset({"echo", "log-in", "log-out", "log-io", "log-timing",
                                                   "logging-format", "output-limit", "timing"}),
                          long_flags=frozenset({"append", "flush", "force", "quiet", "return"}),
                          script_options=frozenset({"-c", "--command"}), operands=1),
    "watch": WrapperSpec(short_with_arg="nq", short_flags="bcCdegptwrx",
                         long_with_arg=frozenset({"interval", "equexit"}),
                         long_flags=frozenset({"beep", "color", "no-color", "differences", "errexit", "chgexit",
                                               "precise", "no-title", "no-wrap", "no-rerun", "exec"}),
                         joins_script=True),
    "chrt": WrapperSpec(short_with_arg="TPD", short_flags="abdefiorRmv",
                        long_with_arg=frozenset({"sched-runtime", "sched-period", "sched-deadline"}),
                        long_flags=frozenset({"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr",
                                              "reset-on-fork", "verbose"}), operands=1),
    "unshare": WrapperSpec(short_with_arg="SGR", short_flags="cfimnprTuUC",
                           long_with_arg=frozenset({"propagation", "setgroups", "setuid", "setgid", "root",
                                                    "wd", "map-user", "map-group", "map-users",
                                                    "map-groups", "monotonic", "boottime", "load-interp"}),
                           long_flags=frozenset({"mount", "uts", "ipc", "net", "pid", "user", "cgroup",
                                                 "time", "fork", "kill-child", "map-root-user",
                                                 "map-current-user", "map-auto", "mount-proc",
                                                 "mount-binfmt", "keep-caps"})),
    "nsenter": WrapperSpec(short_with_arg="tSG", short_flags="aFZ", optional_attached="muinpUCTrw",
                           long_with_arg=frozenset({"target", "setuid", "setgid", "env"}),
                           long_flags=frozenset({"all", "mount", "uts", "ipc", "net", "pid", "user", "cgroup",
                                                 "time", "root", "wd", "preserve-credentials", "no-fork",
                                                 "follow-context"})),
}

# Builtins that run or evaluate text they are given in ways a rule cannot see.
OPAQUE_PROGRAMS = {
    "eval": "`eval` runs text built at run time",
    "let": "`let` evaluates arithmetic, which can run commands through array subscripts",
    "trap": "`trap` runs a command given as text",
    "enable": "`enable` loads or hides builtins",
    "alias": "`alias` redefines command names",
    "hash": "`hash` remaps command names to paths",
    "fc": "`fc` runs commands from the history",
    "compgen": "`compgen` can run commands given as text",
    "complete": "`complete` can run commands given as text",
    "shopt": "`shopt` changes how the shell reads the rest of the line",
}
# Builtins that take variable names, where `a[$(cmd)]` runs cmd.
NAME_TAKING = frozenset({"printf", "read", "unset", "mapfile", "readarray", "getopts", "wait", "test", "declare",
                          "typeset", "local", "export", "readonly"})

_DECLARING = frozenset({"declare", "typeset", "local", "export", "readonly"})


def names_built_at_run_time(name: str, words: Sequence[str], static: Sequence[bool]) -> bool:
    """Whether a builtin that takes variable names is given one built at run time (`printf -v "$x"`,
    `test -v "$x"`, `read "$x"`, `declare "$x"`): the value may be `a[$(cmd)]`, whose subscript bash
    evaluates, running cmd, or (`declare "b=($x)"`) an array assignment bash parses again."""
    if name == "printf":
        for index in range(1, len(words)):
            text = words[index]
            if text == "-v":
                return index + 1 < len(words) and not static[index + 1]
            if text.startswith("-v"):
                return not static[index]
            if text == "--" or not text.startswith("-"):
                return False
        return False
    if name in ("test", "["):
        return any(words[i] in ("-v", "-R") and i + 1 < len(words) and not static[i + 1] for i in range(1, len(words)))
    if name in _DECLARING:
        flags = "".join(w[1:] for w, fixed in zip(words[1:], static[1:], strict=True) if fixed and w[:1] in "-+")
        if set(flags) & set("aAin"):  # arrays, integers (arithmetic on the value), name references
            return not all(static[1:])
        return any(not fixed and (not _ASSIGNMENT_WORD.match(text) or text.split("=", 1)[1].startswith("("))
                   for text, fixed in zip(words[1:], static[1:], strict=True))
    if name in NAME_TAKING:
        return not all(static[1:])
    return False


_RISKY_NAME = re.compile(
    r"^(PATH|IFS|ENV|BASH_ENV|CDPATH|GLOBIGNORE|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|HOME|TMPDIR|SHELL"
    r"|LD_\w*|DYLD_\w*|BASH_\w*|PYTHON\w*|NODE_\w*|NPM_CONFIG_\w*|PERL\w*|RUBY\w*|GEM_\w*|GIT_\w*"
    r"|\w*PAGER|\w*EDITOR|VISUAL|LESS\w*|BROWSER|\w*ASKPASS|\w*_COMMAND|\w*_PROGRAM|\w*_OPTIONS|\w*_OPTS"
    r"|\w*_PATH|\w*_HOME|\w*_SHELL|\w*_CMD|\w*_EXEC\w*|\w*_HOOK\w*|\w*_PRELOAD|\w*_CONFIG\w*)$",
    re.IGNORECASE,
)


def is_risky_assignment(assignment: str) -> bool:
    """Whether `NAME=value` can change which code runs (`PATH`, `LD_PRELOAD`, `GIT_SSH_COMMAND`, `*_PAGER`...)."""
    name = assignment.split("=", 1)[0].removesuffix("+")
    return bool(_RISKY_NAME.match(name))


FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_ASSIGNMENT_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


def unwrap(spec: WrapperSpec, words: Sequence[str], static: Sequence[bool]) -> tuple[list[str], int] | None:
    """(assignments, index where the wrapped command starts) after a wrapper's own options.

    The index is `len(words)` when the wrapper runs nothing (`env`, `command -v x`); None when its
    options are not understood or built at run time, so the command cannot be told.
    """
    assignments: list[str] = []
    operands = spec.operands
    i = 1
    while i < len(words):
        text = words[i]
        if not static[i]:
            return None
        if text == "--":
            i += 1
            break
        if text in spec.opaque_options or text.split("=", 1)[0] in spec.opaque_options:
            return None
        if spec.script_options and (text in spec.script_options or text.split("=", 1)[0] in spec.script_options
                                    or (text[:2] in spec.script_options and not text.startswith("--"))):
            return None  # the script is found by `script_argument`
        if text.startswith("--"):
            name, eq, _ = text[2:].partition("=")
            if name in spec.long_with_arg:
                i += 1 if eq else 2
                continue
            if name in spec.long_flags:
                i += 1
                continue
            return None
        if text.startswith("-") and len(text) > 1:
            if spec.numeric_flags and text[1:].isdigit():
                i += 1
                continue
            skip = 1
            for position, char in enumerate(text[1:], start=1):
                if char in spec.no_command_flags:
                    return [], len(words)
                if char in spec.short_with_arg:
                    if position == len(text) - 1:
                        skip = 2
                    break
                if char in spec.optional_attached:
                    break
                if f"-{char}" in spec.opaque_options or char not in spec.short_flags:
                    return None
            i += skip
            continue
        if text == "-" and spec.assignments:  # `env -`: an empty environment
            i += 1
            continue
        if spec.assignments and _ASSIGNMENT_WORD.match(text):
            assignments.append(text)
            i += 1
            continue
        if operands:
            operands -= 1
            i += 1
            continue
        break
    return assignments, min(i, len(words))


def script_argument(spec: WrapperSpec, words: Sequence[str]) -> int | str | None:
    """The shell script a wrapper runs from an option (`su -c SCRIPT`, `--command=SCRIPT`, `-cSCRIPT`):
    its word index, or the text itself when it is attached to the option; None when it has no such option."""
    for index, text in enumerate(words[1:], start=1):
        if text == "--":
            return None
        name, eq, value = text.partition("=")
        if text in spec.script_options:
            return index + 1 if index + 1 < len(words) else None
        if eq and text.startswith("--") and name in spec.script_options:
            return value
        if not text.startswith("--") and text[:2] in spec.script_options and len(text) > 2:
            return text[2:]
    return None


def find_exec_spans(words: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of each command `find` runs: the words after `-exec`/`-execdir`/`-ok`/`-okdir` up to `;`/`+`."""
    spans: list[tuple[int, int]] = []
    i = 1
    while i < len(words):
        if words[i] in FIND_EXEC:
            j = i + 1
            while j < len(words) and words[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                spans.append((i + 1, j))
            i = j
        i += 1
    return spans


def shell_script_index(words: Sequence[str]) -> int | None:
    """Where the script of `sh -c SCRIPT` is (any shell; `-c` in any cluster: `bash -lc`); None without `-c`."""
    has_c = False
    i = 1
    while i < len(words):
        text = words[i]
        if text == "--":
            i += 1
            break
        if text in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if text.startswith("--"):
            i += 1
            continue
        if len(text) > 1 and text[0] in "-+":
            has_c = has_c or (text[0] == "-" and "c" in text[1:])
            i += 2 if text[-1] in "oO" else 1  # `-euo pipefail`: the cluster's last option takes a word
            continue
        break
    return i if has_c and i < len(words) else None


# git's global options that take the next word as their value (`git -C DIR push`).
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                                "--super-prefix", "--attr-source", "--exec-path"})


def git_subcommand_index(words: Sequence[str]) -> int:
    """Where git's subcommand is in `git [global options] SUBCOMMAND ...` (len(words) if none).

    Every option before the subcommand is a global one (`-C DIR`, `-c K=V`, `--no-pager`, `-P`,
    `--git-dir=..`): git refuses any other, so skipping them all never skips a subcommand.
    """
    index = 1
    while index < len(words) and words[index].startswith("-") and words[index] != "-":
        index += 2 if words[index] in _GIT_VALUE_OPTIONS else 1
    return min(index, len(words))


# -- options that make a "read-only" or build program run code, write files or load config -----------


@dataclass(frozen=True)
class Danger:
    """A program's options that run code, write a file or load config: a prefix grant never covers them.

    `options` match as a word, as `--opt=value`, and (with `clusters`, GNU style) a short `-o` also
    inside a cluster (`-ro`) or with its value attached (`-ofile`); `assignments`: `NAME=value`
    arguments (make's variable overrides change what recipes run); `operands`: more operands than
    this write a file (`uniq IN OUT`).
    """

    options: frozenset[str] = frozenset()
    clusters: bool = True
    assignments: bool = False
    operands: int | None = None
    script: Callable[[str], bool] | None = None  # a program text (sed's, awk's) that runs code or writes
    script_options: frozenset[str] = frozenset()  # options whose value is such a text (`sed -e`)
    valued: frozenset[str] = frozenset()  # short options that take the next word (`awk -F ,`)

    def words(self, args: Sequence[str]) -> list[str]:
        """The words of `args` that are dangerous."""
        found = self._option_words(args)
        if self.script is not None:
            found += [text for text in self._scripts(args) if self.script(text) and text not in found]
        return found

    def _scripts(self, args: Sequence[str]) -> list[str]:
        """The program texts: each `-e TEXT` (`--expression=TEXT`, `-eTEXT`), else the first operand."""
        scripts: list[str] = []
        first: str | None = None
        index = 0
        while index < len(args):
            word = args[index]
            name, eq, value = word.partition("=")
            if word in self.script_options and index + 1 < len(args):
                scripts.append(args[index + 1])
                index += 2
                continue
            if eq and name in self.script_options:
                scripts.append(value)
            elif word[:2] in self.script_options and len(word) > 2 and not word.startswith("--"):
                scripts.append(word[2:])
            elif word in self.valued:
                index += 1
            elif first is None and (not word.startswith("-") or word == "-"):
                first = word
            index += 1
        return scripts if scripts else [first] if first is not None else []

    def _option_words(self, args: Sequence[str]) -> list[str]:
        found: list[str] = []
        shorts = {o[1] for o in self.options if len(o) == 2 and o[0] == "-" and o[1] != "-"}
        operands = 0
        ended = False
        for word in args:
            if ended or not word.startswith("-") or word == "-":
                if self.assignments and not ended and _ASSIGNMENT_WORD.match(word):
                    found.append(word)
                    continue
                operands += 1
                if self.operands is not None and operands > self.operands:
                    found.append(word)
                continue
            if word == "--":
                ended = True
                continue
            name = word.split("=", 1)[0]
            clustered = self.clusters and not word.startswith("--") and bool(shorts & set(word[1:]))
            if name in self.options or word in self.options or clustered:
                found.append(word)
            elif not self.clusters and name.lstrip("-") in {o.lstrip("-") for o in self.options}:
                found.append(word)  # go's `--exec` is `-exec`
        return found


_MAKE = Danger(frozenset({"--eval", "-E", "-f", "--file", "--makefile", "-C", "--directory", "-I",
                          "--include-dir"}), assignments=True)
_GIT_OUTPUT = Danger(frozenset({"--output", "--ext-diff", "--textconv", "-O", "--open-files-in-pager"}))
_GIT_REMOTE = Danger(frozenset({"--upload-pack", "--receive-pack", "--exec", "-u", "--config", "-c", "--template"}))
_FD = Danger(frozenset({"-x", "--exec", "-X", "--exec-batch"}))
_GO = Danger(frozenset({"-exec", "-toolexec", "-vettool", "-o", "-overlay", "-modfile"}), clusters=False)
_CARGO = Danger(frozenset({"--config", "-Z", "--manifest-path"}))

_SED_ADDRESS = re.compile(r"^\s*(?:(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/[IM]*|\\(.)(?:(?!\1).|\\.)*\1[IM]*)"
                          r"\s*(?:,\s*(?:[+~]?\d+|\$|/(?:[^/\\]|\\.)*/[IM]*))?)?\s*!*\s*")


def sed_runs_or_writes(script: str) -> bool:
    """Whether a sed script runs a command (`e`, the `s///e` flag) or writes a file (`w`, `W`,
    `s///w FILE`): read command by command, skipping addresses, `s` and `y` bodies and texts."""
    rest = script
    while rest:
        rest = _SED_ADDRESS.sub("", rest, count=1)
        if not rest:
            return False
        command, rest = rest[0], rest[1:]
        if command in "{};\n":
            continue
        if command in "ewW":
            return True
        if command in "sy":
            if not rest:
                return False
            delimiter, rest = rest[0], rest[1:]
            for _ in range(2):  # pattern and replacement (or source and target)
                end = _body_end(rest, delimiter)
                if end is None:
                    return False
                rest = rest[end + 1:]
            flags = re.match(r"[^;}\n]*", rest)
            if command == "s" and flags is not None and re.search(r"[ewW]", flags.group(0).split(" ")[0]):
                return True
        elif command in "aic#:rR":  # the text, label or file name runs to the end of the line
            newline = rest.find("\n")
            rest = "" if newline < 0 else rest[newline + 1:]
            continue
        separator = re.search(r"[;\n}{]", rest)
        rest = "" if separator is None else rest[separator.end():]
    return False


def _body_end(text: str, delimiter: str) -> int | None:
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == delimiter:
            return index
        index += 1
    return None


_AWK_EFFECTS = re.compile(r"system\s*\(|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}\n]*>|@\s*(?:load|include)|\bclose\s*\(")


def awk_runs_or_writes(program: str) -> bool:
    """Whether an awk program may run a command (`system()`, a `|` pipe, `@load`) or write a file
    (`print > FILE`); a comparison inside a print counts too: asking is the safe side."""
    return bool(_AWK_EFFECTS.search(program))


_SED = Danger(frozenset({"-i", "--in-place", "-f", "--file"}), script=sed_runs_or_writes,
              script_options=frozenset({"-e", "--expression"}), valued=frozenset({"-l", "--line-length"}))
_AWK = Danger(frozenset({"-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"}), clusters=False,
              script=awk_runs_or_writes, valued=frozenset({"-F", "-v", "--assign", "--field-separator"}))
_MAPFILE = Danger(frozenset({"-C"}))

# Keyed by program (`sort`) or program and subcommand (`git log`).
DANGEROUS_OPTIONS: dict[str, Danger] = {
    "sort": Danger(frozenset({"--compress-program", "-o", "--output", "-T", "--temporary-directory"})),
    "rg": Danger(frozenset({"--pre", "--hostname-bin"})),
    "fd": _FD,
    "fdfind": _FD,
    "ag": Danger(frozenset({"--pager"})),
    "tree": Danger(frozenset({"-o"})),
    "uniq": Danger(operands=1),
    "make": _MAKE,
    "gmake": _MAKE,
    **{f"git {sub}": _GIT_OUTPUT for sub in ("log", "diff", "show", "grep", "format-patch", "whatchanged",
                                              "range-diff", "blame", "difftool", "stash")},
    **{f"git {sub}": _GIT_REMOTE for sub in ("fetch", "pull", "clone", "ls-remote", "push", "archive",
                                              "remote", "submodule")},
    **{f"go {sub}": _GO for sub in ("test", "build", "vet", "install", "run", "generate", "list")},
    "cargo": _CARGO,
    "find": Danger(FIND_EXEC | {"-fprint", "-fprint0", "-fprintf", "-fls", "-delete"}, clusters=False),
    "env": Danger(frozenset({"-S", "--split-string"}), operands=0),  # an operand is the command it runs
    "xargs": Danger(operands=0),
    "tar": Danger(frozenset({"-I", "--use-compress-program", "--to-command", "--checkpoint-action", "--info-script",
                             "-F", "--new-volume-script", "--rsh-command", "--rmt-command"})),
    "man": Danger(frozenset({"-P", "--pager", "-H", "--html", "-X", "--gxditview", "-C", "--config-file", "-p",
                             "--preprocessor"})),
    "less": Danger(frozenset({"-o", "-O", "--log-file", "--LOG-FILE", "-k", "--lesskey-file"})),
    "sed": _SED,
    "gsed": _SED,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _AWK),
    "mapfile": _MAPFILE,
    "readarray": _MAPFILE,
}


def dangerous_words(words: Sequence[str], start: int = 1) -> list[str]:
    """The words from `start` on of a command (`words[0]` its bare name) that its program's table
    marks dangerous: what a prefix grant such as `sort*` or `git log*` must not cover."""
    if not words:
        return []
    name = words[0]
    if name == "git":
        index = git_subcommand_index(words)
        danger = DANGEROUS_OPTIONS.get(f"git {words[index]}") if index < len(words) else None
        return danger.words(words[max(start, index + 1):]) if danger is not None else []
    if len(words) > 1 and f"{name} {words[1]}" in DANGEROUS_OPTIONS:
        return DANGEROUS_OPTIONS[f"{name} {words[1]}"].words(words[max(start, 2):])
    danger = DANGEROUS_OPTIONS.get(name)
    return danger.words(words[start:]) if danger is not None else []
