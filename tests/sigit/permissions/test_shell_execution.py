"""Rules judged by the shell that runs the line (issue 28, findings 1 and 2): lines run under bash, whose
grammar the rules read them with; lines the grammar cannot account for never match an allow rule, meet
deny rules from every word, and make bypass mode ask. Checked through the real policy and by running
the lines under bash and dash."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sigit.config.settings import PermissionSettings, Settings
from sigit.permissions import PermissionPolicy
from sigit.permissions.rules import deny_parts
from sigit.permissions.shell_grammar import parse_line
from sigit.tools import default_registry
from sigit.tools.base import PreparedCall, ToolContext
from sigit.tools.processes import run_shell, shell_argv, shell_env, spawn, wait_exit

ALLOW = ["run_command(echo*)", "run_command(cat*)"]
DENY = ["run_command(touch*)", "run_command(rm*)"]


def _policy(cwd: Path, mode: str = "default", deny: list[str] = DENY) -> PermissionPolicy:
    perms = PermissionSettings(default="ask", allow=ALLOW, deny=deny)
    return PermissionPolicy(Settings(permissions=perms), cwd, mode, env={})  # type: ignore[arg-type]


def _decide(policy: PermissionPolicy, line: str) -> str:
    tool = default_registry().get("run_command")
    assert tool is not None
    call = tool.prepare({"command": line}, ToolContext(cwd=policy.cwd))
    assert isinstance(call, PreparedCall), call
    return policy.decide(call).kind


def _run(line: str, cwd: Path, shell: str | None = None) -> None:
    argv = [shell, "-c", line] if shell else shell_argv(line)
    subprocess.run(argv, cwd=cwd, env=shell_env(os.environ), capture_output=True, timeout=20, check=False,
                   stdin=subprocess.DEVNULL)


def test_commands_run_under_bash_found_once() -> None:
    assert os.path.basename(run_shell()) == "bash" and os.path.isabs(run_shell())
    assert shell_argv("true")[:2] == [run_shell(), "-c"]


def test_the_ansi_c_quote_that_dash_misreads_runs_as_judged(tmp_path: Path) -> None:
    """Finding 1 as written: allow echo*, deny touch*: `echo $'\\' ; touch PWNED #'` is one echo to bash."""
    line = "echo $'\\' ; touch PWNED #'"
    assert _decide(_policy(tmp_path), line) == "allow"
    _run(line, tmp_path)
    assert not (tmp_path / "PWNED").exists()
    # the same line under dash would have run touch: this is what the rules must never face
    if shutil.which("dash"):
        _run(line, tmp_path, shutil.which("dash"))
        assert (tmp_path / "PWNED").exists()


def test_spawn_runs_bash(tmp_path: Path) -> None:
    async def main() -> None:
        proc = await spawn("echo $'\\' ; touch PWNED #' ; echo $BASH_VERSION > v", tmp_path)
        await wait_exit(proc)

    asyncio.run(main())
    assert not (tmp_path / "PWNED").exists()
    assert (tmp_path / "v").read_text().strip()


def test_bash_env_and_exported_functions_are_not_passed_to_the_shell(tmp_path: Path) -> None:
    env = shell_env({"BASH_ENV": "/tmp/x", "BASH_FUNC_echo%%": "() { touch P; }", "PATH": "/bin", "ENV": "x"})
    assert env == {"PATH": "/bin"}


def test_bypass_with_a_deny_rule(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    line = "echo $'\\' ; rm -f victim #'"
    assert _decide(_policy(tmp_path, "bypass"), line) == "allow"
    _run(line, tmp_path)
    assert victim.exists()


@pytest.mark.parametrize("bash_only", ["echo $'a'", "[[ -f x ]] && echo y", "cat <(echo)", "echo ${x/a/b}",
                                       "echo hi &> out.txt", "cat <<< x"])
def test_without_bash_bash_only_lines_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  bash_only: str) -> None:
    monkeypatch.setattr("sigit.permissions.policy.runs_bash", lambda: False)
    for mode in ("default", "bypass"):
        decision = _policy(tmp_path, mode)
        tool = default_registry().get("run_command")
        assert tool is not None
        call = tool.prepare({"command": bash_only}, ToolContext(cwd=tmp_path))
        assert isinstance(call, PreparedCall)
        verdict = decision.decide(call)
        assert verdict.kind == "deny" and "no bash" in verdict.reason
    assert _decide(_policy(tmp_path), "echo plain") == "allow"


# Finding 2: forms the grammar reads as text but bash runs, and wrappers that were not on the list.
HIDDEN = [
    "echo $'\\\\' ; touch PWNED #'",
    "echo ${x:-`touch PWNED`}",
    'echo "${x:-`touch PWNED`}"',
    "echo ${x=$(touch PWNED)}",
    "echo ${x:?$(touch PWNED)}",
    "echo ${x:-${y:-`touch PWNED`}}",
    'echo "${x:-${y:-$(touch PWNED)}}"',
    "cat <<EOF\n  $(touch PWNED)\nEOF",
    "cat <<EOF\n`touch PWNED`\nEOF",
    "cat <<-EOF\n\t`touch PWNED`\n\tEOF",
    "cat <<-EOF\n\t\t$(touch PWNED)\n\tEOF",
    "echo `echo \\`touch PWNED\\``",
    "{touch,PWNED}",
    "echo hi; {touch,PWNED}",
    "env -S 'touch PWNED'",
    "su -c 'touch PWNED'",
    "su root -c 'touch PWNED'",
    "runuser -u root -c 'touch PWNED'",
    "runuser -u root -- touch PWNED",
    "script -qc 'touch PWNED' /dev/null",
    "script -c 'touch PWNED' /dev/null",
    "watch -n 1 touch PWNED",
    "watch 'touch PWNED'",
    "chrt -f 1 touch PWNED",
    "unshare -r touch PWNED",
    "nsenter -t 1 -m touch PWNED",
    "coproc touch PWNED",
]


@pytest.mark.parametrize("line", HIDDEN)
def test_hidden_commands_meet_the_deny_rule(tmp_path: Path, line: str) -> None:
    assert _decide(_policy(tmp_path), line) == "deny"
    assert _decide(_policy(tmp_path, "bypass"), line) == "deny"
    assert _decide(_policy(tmp_path, "accept-edits"), line) == "deny"


@pytest.mark.parametrize("line", HIDDEN[:11])
def test_unanalysable_lines_never_match_an_allow_rule(tmp_path: Path, line: str) -> None:
    """With no deny rule for the hidden command, the allow rules for echo and cat still do not cover it,
    and bypass asks while any deny rule names run_command."""
    other = line.replace("touch PWNED", "date").replace("touch,PWNED", "date")
    assert _decide(_policy(tmp_path, deny=[]), other) == "ask"
    assert _decide(_policy(tmp_path, "bypass", deny=["run_command(rm*)"]), other) == "ask"
    assert _decide(_policy(tmp_path, "bypass", deny=[]), other) == "allow"


def test_deny_parts_come_from_the_grammar() -> None:
    assert "rm -rf x" in deny_parts("sudo FOO=1 rm -rf x")
    assert "rm -rf x" in deny_parts("{rm,-rf,x}")
    assert "touch PWNED" in deny_parts("su -c 'touch PWNED'")


def test_one_wrappers_table() -> None:
    import sigit.permissions.rules as rules

    assert not hasattr(rules, "_WRAPPERS") and not hasattr(rules, "_scan")


# -- property: generated lines hiding a command, run by bash and dash ------------------------------

FORMS = [
    "{c}",
    "echo ${{x:-`{c}`}}",
    'echo "${{x:-$({c})}}"',
    "echo ${{x=`{c}`}}",
    "echo ${{x:?$({c})}}",
    "echo ${{x:-${{y:-$({c})}}}}",
    "cat <<EOF\n  $({c})\nEOF",
    "cat <<EOF\n`{c}`\nEOF",
    "cat <<-EOF\n\t`{c}`\n\tEOF",
    "echo `echo \\`{c}\\``",
    "env -S '{c}'",
    "echo $'\\' ; {c} #'",
    "echo $'\\\\' ; {c} #'",
    "echo a; {c}",
    "echo $({c})",
    "cat <({c})",
    "echo a && {c}",
    "echo a | {c}",
    "script -qc '{c}' /dev/null",
    "setsid -w {c}",
    "nice -n 1 {c}",
    "BRACED",  # `{touch,PWNED}`: a command word bash builds by brace expansion
]
HIDDEN_COMMANDS = ["touch PWNED", "mkdir PWNED", "cp /dev/null PWNED"]


@pytest.fixture(scope="module")
def shells() -> list[str]:
    return [shell for shell in (shutil.which("bash"), shutil.which("dash")) if shell]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(FORMS), st.sampled_from(HIDDEN_COMMANDS), st.booleans())
def test_an_unallowed_command_never_runs_when_the_policy_allows(
        tmp_path_factory: pytest.TempPathFactory, shells: list[str], form: str, hidden: str, named: bool) -> None:
    """For each generated line: when the policy allows it (echo and cat allowed), the hidden command does
    not run under bash (sigit's shell) nor under dash (when the line has no bash-only syntax, the only
    lines sigit would give to `sh`). Under bypass, it runs only when no deny rule names it."""
    cwd = tmp_path_factory.mktemp("line")
    line = "{" + hidden.replace(" ", ",") + "}" if form == "BRACED" else form.format(c=hidden)
    program = hidden.split()[0]
    deny = [f"run_command({program}*)"] if named else []
    policy = _policy(cwd, deny=deny)
    if _decide(policy, line) == "allow":
        for shell in shells:
            if shell.endswith("dash") and parse_line(line).bash_only:
                continue
            _run(line, cwd, shell)
            assert not (cwd / "PWNED").exists(), (line, shell)
    bypass = _decide(_policy(cwd, "bypass", deny=deny), line)
    if not named:
        assert bypass == "allow", line
    elif bypass == "allow":  # a deny rule names it: bypass lets the line run only if bash will not run it
        _run(line, cwd)
        assert not (cwd / "PWNED").exists(), line
