"""Issue 35's third audit, on the permission rules: a prefix grant on a program users think of as
read-only (`find*`, `sed*`, `awk*`, `tar*`, `man*`, `mapfile*`, `printf*`, `test*`, `env*`) no longer
covers the spellings with which it runs a command or writes a file. Judged by effect: a line the
policy allows is run under bash, and the file its hidden command would make must not appear."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sigit.config.settings import PermissionSettings, Settings
from sigit.permissions import PermissionPolicy
from sigit.permissions.shell_programs import awk_runs_or_writes, sed_runs_or_writes
from sigit.tools import default_registry
from sigit.tools.base import PreparedCall, ToolContext
from sigit.tools.processes import shell_argv, shell_env

GRANTS = ["find", "sed", "awk", "tar", "man", "mapfile", "printf", "test", "env", "xargs", "echo", "cat", "declare"]

# {M} is the marker a hidden command would create. Each got through on the code before this audit.
RUNS_CODE = [
    "find . -fprint {M}",
    "find . -fprintf {M} x",
    "find . -fls {M}",
    "find . -exec tou''ch {M} \\;",
    'awk \'BEGIN{{system("tou" "ch {M}")}}\'',
    "awk 'BEGIN{{print 1 > \"{M}\"}}'",
    "sed -n '1e tou''ch {M}' f.txt",
    "sed 'w {M}' f.txt",
    "sed -n -e p -e '/a/{{w {M}' -e '}}' f.txt",
    "tar -cf - f.txt | tar -xf - --to-command='tou''ch {M}'",
    "tar -cf x.tar --checkpoint=1 --checkpoint-action=exec='tou''ch {M}' f.txt",
    "tar -cf x.tar -I 'tou''ch {M}' f.txt",
    "mapfile -C 'tou''ch {M}' -c 1 arr < f.txt",
    "x='a[$(tou''ch {M})]'; printf -v \"$x\" %s y",
    "x='a[$(tou''ch {M})]'; test -v \"$x\"",
    "x='$(tou''ch {M})'; declare -a \"b=($x)\"",
    "env tou''ch {M}",
    "echo {M} | xargs tou''ch",
]
STILL_ALLOWED = [
    "find . -name '*.txt'",
    "sed -n 1p f.txt",
    "sed 's/hello/world/g' f.txt",
    "awk '{print $1}' f.txt",
    "awk '$1 > 0 {print}' f.txt",
    "tar -tf x.tar",
    "printf -v out '%s' \"$HOME\"",
    'test -n "$HOME"',
    "man ls",
]


def _decide(cwd: Path, line: str) -> str:
    perms = PermissionSettings(default="ask", allow=[f"run_command({g}*)" for g in GRANTS])
    policy = PermissionPolicy(Settings(permissions=perms), cwd, "default", env={})  # type: ignore[arg-type]
    tool = default_registry().get("run_command")
    assert tool is not None
    prepared = tool.prepare({"command": line}, ToolContext(cwd=cwd))
    assert isinstance(prepared, PreparedCall), prepared
    return policy.decide(prepared).kind


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "f.txt").write_text("a\nb\n")
    return tmp_path


@pytest.mark.parametrize("template", RUNS_CODE)
def test_a_prefix_grant_does_not_cover_what_runs_or_writes(work: Path, template: str) -> None:
    marker = work / "MARK"
    line = template.format(M=marker)
    kind = _decide(work, line)
    if kind == "allow":  # what the user would see happen
        subprocess.run(
            shell_argv(line),
            cwd=work,
            env=shell_env(os.environ),
            capture_output=True,
            timeout=20,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    assert kind == "ask" and not marker.exists(), (kind, line)


@pytest.mark.parametrize("line", STILL_ALLOWED)
def test_the_read_only_spellings_stay_granted(work: Path, line: str) -> None:
    assert _decide(work, line) == "allow"


_SAFE_SED = st.sampled_from(
    [
        "p",
        "d",
        "n",
        "N",
        "P",
        "D",
        "=",
        "s/a/b/g",
        "s|e|w|",
        "1p",
        "$d",
        "/re/d",
        "2,3p",
        "y/ew/we/",
        "{p}",
        "/w/!d",
        "s/x/y/2",
    ]
)
_EFFECT_SED = st.sampled_from(["e tou''ch x", "w out", "s/a/b/e", "s/a/b/w out", "1e x", "/x/W out", "{e x}"])


@given(st.lists(_SAFE_SED, max_size=5), st.lists(_SAFE_SED, max_size=5), _EFFECT_SED, st.sampled_from([";", "\n"]))
@settings(max_examples=100, deadline=None)
def test_a_sed_command_that_runs_or_writes_is_seen_among_any_others(
    before: list[str], after: list[str], effect: str, glue: str
) -> None:
    assert not sed_runs_or_writes(glue.join([*before, *after]))
    assert sed_runs_or_writes(glue.join([*before, effect, *after])), glue.join([*before, effect, *after])


@given(st.text(max_size=80))
@settings(max_examples=100, deadline=None)
def test_the_sed_and_awk_readers_take_any_text(script: str) -> None:
    assert isinstance(sed_runs_or_writes(script), bool) and isinstance(awk_runs_or_writes(script), bool)
