"""Shell lines as the shell runs them: every simple command found, writes found, and what cannot be judged."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sigit.permissions.shell_grammar import SimpleCommand, parse_line


@dataclass(frozen=True)
class Case:
    line: str
    commands: list[tuple[str, ...]]  # the words of every simple command, in any order
    writes: tuple[str, ...] = ()
    opaque: bool = False


CASES = [
    # lists, pipelines, newlines, comments
    Case("git status", [("git", "status")]),
    Case("ls -la | grep foo", [("ls", "-la"), ("grep", "foo")]),
    Case("make test && make lint || echo failed", [("make", "test"), ("make", "lint"), ("echo", "failed")]),
    Case("sleep 1 & ls; pwd", [("sleep", "1"), ("ls",), ("pwd",)]),
    Case("ls\npwd\n", [("ls",), ("pwd",)]),
    Case("ls |& cat", [("ls",), ("cat",)]),
    Case("git status #'\ntouch PWNED", [("git", "status"), ("touch", "PWNED")]),  # issue 12 finding 2
    Case('echo "#not a comment" # echo hidden', [("echo", "#not a comment")]),
    Case("echo a#b", [("echo", "a#b")]),
    Case("ls \\\n  -la", [("ls", "-la")]),
    # groups and control flow
    Case("(cd sub && rm -rf build)", [("cd", "sub"), ("rm", "-rf", "build")]),
    Case("{ echo a; echo b; } > out.txt", [("echo", "a"), ("echo", "b")], writes=("out.txt",)),
    Case("if [ -f x ]; then cat x; else touch x; fi", [("cat", "x"), ("touch", "x")]),
    Case("while true; do date; done", [("true",), ("date",)]),
    Case("until false; do sleep 1; done", [("false",), ("sleep", "1")]),
    Case('for f in *.py; do wc -l "$f"; done', [("wc", "-l", "$f")]),
    Case('case "$1" in a) ls;; *) pwd;; esac', [("ls",), ("pwd",)]),
    Case("f() { rm -rf /; }; f", [("rm", "-rf", "/"), ("f",)]),
    Case("! grep -q x file", [("grep", "-q", "x", "file")]),
    # substitutions
    Case("echo $(whoami)", [("whoami",), ("echo", "$(whoami)")]),
    Case("echo `id`", [("id",), ("echo", "`id`")]),
    Case('echo "$(date) and `hostname`"', [("date",), ("hostname",), ("echo", "$(date) and `hostname`")]),
    Case("diff <(ls a) <(ls b)", [("ls", "a"), ("ls", "b"), ("diff", "<(ls a)", "<(ls b)")]),
    Case("ls | tee >(grep x > found.txt)", [("ls",), ("grep", "x"), ("tee", ">(grep x > found.txt)")],
         writes=("found.txt",)),
    Case("x=$(curl evil); echo ok", [("curl", "evil"), ("echo", "ok")]),
    # here-docs and here-strings
    Case("cat <<EOF\nhello $(date)\nEOF", [("date",), ("cat",)]),
    Case("cat <<'EOF'\nhello $(date)\nEOF", [("cat",)]),
    Case("cat <<EOF > notes.md\nhi\nEOF\nls", [("cat",), ("ls",)], writes=("notes.md",)),
    Case('cat <<< "$(uname)"', [("uname",), ("cat",)]),
    # quoting forms
    Case("echo 'single $(x) `y`'", [("echo", "single $(x) `y`")]),
    Case('echo "double \\"q\\" \\$HOME \\\\"', [("echo", 'double "q" $HOME \\')]),
    Case("echo $'\\x74ouch \\'q\\''", [("echo", "touch 'q'")]),
    Case("$'\\x72m' -rf /", [("rm", "-rf", "/")]),
    Case('r"m" -rf x', [("rm", "-rf", "x")]),
    Case("\\rm -rf x", [("rm", "-rf", "x")]),
    Case("echo a\\ b c\\;d", [("echo", "a b", "c;d")]),
    Case('echo $"translated"', [("echo", "translated")]),
    Case("git log --format='%H %s' -n 3", [("git", "log", "--format=%H %s", "-n", "3")]),
    # assignments
    Case('FOO=1 BAR="a b" make test', [("make", "test")]),
    Case("x=1; echo $x", [("echo", "$x")]),
    Case("export A=1; ls", [("export", "A=1"), ("ls",)]),
    # redirections
    Case("echo hi > out.txt", [("echo", "hi")], writes=("out.txt",)),
    Case("echo hi >> log.txt 2>&1", [("echo", "hi")], writes=("log.txt",)),
    Case("echo hi >&FILE", [("echo", "hi")], writes=("FILE",)),  # issue 12: `>&FILE` writes FILE
    Case("echo hi &> all.log", [("echo", "hi")], writes=("all.log",)),
    Case("echo hi &>> all.log", [("echo", "hi")], writes=("all.log",)),
    Case("echo hi >| forced.txt", [("echo", "hi")], writes=("forced.txt",)),
    Case("echo >out hi", [("echo", "hi")], writes=("out",)),
    Case("make 2>/dev/null >/dev/stdout 1>/dev/stderr", [("make",)]),
    Case("echo hi >&2; echo err 2>&1 1>&-", [("echo", "hi"), ("echo", "err")]),
    Case("sort < in.txt > 'out file.txt'", [("sort",)], writes=("out file.txt",)),
    Case("exec > out.log 2>&1", [("exec",)], writes=("out.log",)),
    # wrappers
    Case("env FOO=1 rm -rf /", [("env", "FOO=1", "rm", "-rf", "/")]),
    Case("exec rm -rf /", [("exec", "rm", "-rf", "/")]),
    Case("git ls-files | xargs -0 rm -f", [("git", "ls-files"), ("xargs", "-0", "rm", "-f")]),
    Case("find . -name '*.tmp' -exec rm {} +", [("find", ".", "-name", "*.tmp", "-exec", "rm", "{}", "+")]),
    Case("bash -c 'curl x | sh'", [("bash", "-c", "curl x | sh")]),
    # what cannot be judged from the text
    Case("ls > \"$OUT\"", [("ls",)], writes=("$OUT",), opaque=True),
    Case("$CMD -rf /", [("$CMD", "-rf", "/")], opaque=True),
    Case('"$(echo rm)" -rf /', [("echo", "rm"), ("$(echo rm)", "-rf", "/")], opaque=True),
    Case('eval "rm -rf /"', [("eval", "rm -rf /")], opaque=True),
    Case('echo "unterminated', [("echo",)], opaque=True),
    Case("echo $((x + 1))", [("echo", "$((x + 1))")], opaque=True),
    Case("echo $((1 + 2))", [("echo", "$((1 + 2))")]),
    Case("echo ${HOME:-/tmp} ${#PATH}", [("echo", "${HOME:-/tmp}", "${#PATH}")]),
    Case("echo ${!name}", [("echo", "${!name}")], opaque=True),
    Case("x='a[$(id)]'; [[ $x -eq 1 ]] && ls", [("ls",)], opaque=True),
    Case("printf -v 'a[$(id)]' x", [("printf", "-v", "a[$(id)]", "x")], opaque=True),
    Case("PATH=/tmp/evil; git status", [("git", "status")], opaque=True),
    Case("export LD_PRELOAD=/tmp/x.so; ls", [("export", "LD_PRELOAD=/tmp/x.so"), ("ls",)], opaque=True),
    Case("/bin/r? -rf /", [("/bin/r?", "-rf", "/")], opaque=True),
    Case("sudo $CMD", [("sudo", "$CMD")], opaque=True),
    Case("env -S 'rm -rf /'", [("env", "-S", "rm -rf /")], opaque=True),
    Case("trap 'rm -rf /' EXIT", [("trap", "rm -rf /", "EXIT")], opaque=True),
    Case("a=(x y); echo ${a[@]} ${#a[*]} ${a[0]}", [("echo", "${a[@]}", "${#a[*]}", "${a[0]}")]),
    Case("echo ${a[i]}", [("echo", "${a[i]}")], opaque=True),
    # where the grammar itself goes wrong, bash's reading still wins
    Case("ls && make 2>/dev/null check", [("ls",), ("make", "check")]),
    Case("ls | tee > out.txt extra", [("ls",), ("tee", "extra")], writes=("out.txt",)),
    Case("ls\n\\rm -rf /", [("ls",), ("rm", "-rf", "/")], opaque=True),
    Case("ls\n\\\nrm -rf /", [("ls",), ("rm", "-rf", "/")]),  # continuations go first, as in bash
    # a backslash-newline inside a word joins it, as bash joins it
    Case("r\\\nm -rf build", [("rm", "-rf", "build")]),
    Case("echo ok; r\\\nm -rf build", [("echo", "ok"), ("rm", "-rf", "build")]),
    Case("cu\\\nrl x | s\\\nh", [("curl", "x"), ("sh",)]),
    Case('echo "$(echo "it\'s")"; r\\\nm x', [("echo", "$(echo \"it's\")"), ("echo", "it's"), ("rm", "x")]),
    Case("echo 'a\\\nb' $'c\\\nd' # e\\\nls", [("echo", "a\\\nb", "c\\\nd"), ("ls",)]),
    Case("cat <<'E'\nr\\\nm\nE\nr\\\nm", [("cat",), ("rm",)]),
    # brace expansion acts on the whole word, which the grammar reads as pieces
    Case("echo x > {/root/.bashrc,}", [("echo", "x")], writes=("{/root/.bashrc,}",), opaque=True),
    Case("echo x > {..,}/y", [("echo", "x")], writes=("{..,}/y",), opaque=True),
    Case("echo x > '{a,}'", [("echo", "x")], writes=("{a,}",)),
    Case("git status # note\n\\rm -rf /", [("git", "status"), ("rm", "-rf", "/")], opaque=True),
]


def _words(commands: tuple[SimpleCommand, ...]) -> list[tuple[str, ...]]:
    return sorted(command.words for command in commands)


@pytest.mark.parametrize("case", CASES, ids=[case.line for case in CASES])
def test_every_simple_command_and_write_is_found(case: Case) -> None:
    line = parse_line(case.line)
    assert _words(line.commands) == sorted(case.commands)
    assert tuple(write.target for write in line.writes) == case.writes
    assert bool(line.opaque) == case.opaque, line.opaque


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 40


def test_assignments_are_kept_apart_from_the_words() -> None:
    (command,) = parse_line('FOO=1 BAR="a b" /usr/bin/make test').commands
    assert command.assignments == ("FOO=1", "BAR=a b")
    assert command.words == ("/usr/bin/make", "test")
    assert command.name == "make"
    assert command.argv == ("make", "test")


def test_redirect_details() -> None:
    line = parse_line("cmd 3> fd3.txt >> app.log")
    assert [(w.operator, w.target, w.fd) for w in line.writes] == [(">", "fd3.txt", 3), (">>", "app.log", None)]
    assert line.commands[0].redirects == line.writes


def _inner(line: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return [(c.words, c.assignments) for c in parse_line(line).deny_candidates]


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ("env FOO=1 rm -rf /", (("rm", "-rf", "/"), ("FOO=1",))),
        ("sudo -u root -E rm x", (("rm", "x"), ())),
        ("sudo --user=root rm x", (("rm", "x"), ())),
        ("nohup python3 server.py", (("python3", "server.py"), ())),
        ("time make test", (("make", "test"), ())),
        ("exec -a name rm x", (("rm", "x"), ())),
        ("command rm x", (("rm", "x"), ())),
        ("builtin cd /", (("cd", "/"), ())),
        ("nice -n 5 rm x", (("rm", "x"), ())),
        ("nice -10 rm x", (("rm", "x"), ())),
        ("timeout -s KILL 10 rm x", (("rm", "x"), ())),
        ("stdbuf -oL rm x", (("rm", "x"), ())),
        ("xargs -n 1 -I{} rm {}", (("rm", "{}"), ())),
        ("find . -execdir rm -f {} ;", (("rm", "-f", "{}"), ())),
        ("bash -lc 'git push --force'", (("git", "push", "--force"), ())),
        ("bash -euo pipefail -c 'git push --force'", (("git", "push", "--force"), ())),
        ("sudo env A=1 sh -c 'rm -rf ~'", (("rm", "-rf", "~"), ())),
    ],
)
def test_wrappers_yield_the_command_they_run(line: str, inner: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    assert inner in _inner(line)
    assert not parse_line(line).opaque


def test_command_v_runs_nothing() -> None:
    assert _inner("command -v git") == [(("command", "-v", "git"), ())]


def test_a_wrapper_with_unknown_options_is_opaque_but_still_checked() -> None:
    line = parse_line("sudo --frobnicate rm -rf /")
    assert line.opaque
    assert ("rm", "-rf", "/") in [c.words for c in line.deny_candidates]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $'\"\\`(){};|&<>#\n=*-")), max_size=40) | st.text(max_size=40))
def test_parse_line_never_raises(text: str) -> None:
    line = parse_line(text)
    assert all(command.words for command in line.commands)


def test_parsing_is_cached_and_deep_nesting_is_bounded() -> None:
    assert parse_line("git status") is parse_line("git status")
    deep = "(" * 400 + "ls" + ")" * 400
    assert parse_line(deep).opaque


# -- property: no command is ever hidden ------------------------------------------------------------

NAMES = ["alpha", "beta", "gamma", "delta", "omega"]
ARGS = ["x", "'a b'", '"#q"', "'#'", "\\;", '"it\'s"', "$'\\''", "'$(nope)'", '"a;b"', "'`no`'", "--flag",
        "2>/dev/null", "'&&'", '"|"', "'\n'", "\\#", "'\\'"]
DECOYS = ["alpha", "'beta", '"gamma', "$(delta", "`omega", "\\", "&& alpha", "' ; beta"]


def _spellings(name: str) -> list[str]:
    return [name, f"'{name}'", f'"{name}"', f"\\{name}", f"$'{name}'", f'{name[0]}""{name[1:]}',
            f"$'\\x{ord(name[0]):02x}{name[1:]}'", f"{name[:2]}''{name[2:]}"]


@st.composite
def simple(draw: st.DrawFn) -> tuple[str, set[str]]:
    name = draw(st.sampled_from(NAMES))
    spelled = draw(st.sampled_from(_spellings(name)))
    args = draw(st.lists(st.sampled_from(ARGS), max_size=3))
    return " ".join([spelled, *args]), {name}


SEPARATORS = [" ; ", " && ", " || ", " | ", " & ", "\n", " # {}\n"]
WRAPS = [
    "echo $( {} )",
    'echo "$( {} )"',
    "( {} )",
    "{{ {}; }}",
    "if {}; then :; fi",
    "cat <( {} )",
    "x=$( {} )",
    "while false; do {}; done",
]


def _combine(children: st.SearchStrategy[tuple[str, set[str]]]) -> st.SearchStrategy[tuple[str, set[str]]]:
    def sequence(parts: tuple[tuple[str, set[str]], str, str, tuple[str, set[str]]]) -> tuple[str, set[str]]:
        (a, ran_a), separator, decoy, (b, ran_b) = parts
        return a + separator.format(decoy) + b, ran_a | ran_b

    def wrapped(parts: tuple[tuple[str, set[str]], str]) -> tuple[str, set[str]]:
        (inner, ran), form = parts
        return form.format(inner), ran

    return st.one_of(
        st.tuples(children, st.sampled_from(SEPARATORS), st.sampled_from(DECOYS), children).map(sequence),
        st.tuples(children, st.sampled_from(WRAPS)).map(wrapped),
        simple().map(lambda generated: (f"echo `{generated[0]}`", generated[1])),
    )


LINES = st.recursive(simple(), _combine, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(LINES)
def test_every_command_in_a_random_line_is_found_or_the_line_is_opaque(generated: tuple[str, set[str]]) -> None:
    text, ran = generated
    line = parse_line(text)
    found = {command.name for command in line.commands}
    assert ran <= found or line.opaque, (text, ran, found)


@pytest.fixture(scope="module")
def stub_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stubs")
    for name in NAMES:
        stub = folder / name
        stub.write_text('#!/bin/sh\necho "${0##*/}" >> "$LOG"\n')
        stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    return folder


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(LINES)
def test_every_command_bash_runs_is_found(stub_path: Path, generated: tuple[str, set[str]]) -> None:
    """The same lines run by bash itself, with stub commands that log their names: nothing bash ran is hidden."""
    text, _ = generated
    log = stub_path / "ran.log"
    log.write_text("")
    bash = shutil.which("bash") or "bash"
    env = {"PATH": f"{stub_path}{os.pathsep}/usr/bin{os.pathsep}/bin", "LOG": str(log)}
    subprocess.run([bash, "--norc", "--noprofile", "-c", text + "\nwait"], env=env, capture_output=True,
                   timeout=20, cwd=stub_path, check=False)
    ran = set(log.read_text().split())
    line = parse_line(text)
    assert ran <= {command.name for command in line.commands} or line.opaque, (text, ran)


def test_code_points_that_crash_the_bash_grammar_are_parsed_safely() -> None:
    # tree-sitter-bash 0.25 segfaulted on `{` followed by U+F254E: a model's line must never end the process
    assert parse_line("{\U000f254e").opaque
    line = parse_line('echo "héllo wörld" ünï > "résumé.txt"')
    assert [c.words for c in line.commands] == [("echo", "héllo wörld", "ünï")]
    assert [w.target for w in line.writes] == ["résumé.txt"]
