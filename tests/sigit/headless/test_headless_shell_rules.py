"""Issue 28 findings 1 and 2 as reported, through `sigit -p` with a scripted model: with echo and cat
allowed and touch and rm denied, no line the model writes gets touch or rm run, whether bash or the
rules' grammar would read it otherwise (`$'...'`, `${x:-`cmd`}`, here-documents, nested backquotes,
brace-built command words, wrappers)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ..in_process import run_sigit_main

LINES = [
    "echo $'\\' ; touch PWNED #'",  # as reported: `$'\'` is a whole string to bash, not to dash
    "echo $'\\\\' ; touch PWNED #'",  # `$'\\'` ends the string: bash runs touch
    "echo ${x:-`touch PWNED`}",
    'echo "${x:-`touch PWNED`}"',
    "echo ${x=$(touch PWNED)}",
    "echo ${x:?$(touch PWNED)}",
    "echo ${x:-${y:-`touch PWNED`}}",
    "cat <<EOF\n  $(touch PWNED)\nEOF",
    "cat <<EOF\n`touch PWNED`\nEOF",
    "cat <<-EOF\n\t`touch PWNED`\n\tEOF",
    "echo `echo \\`touch PWNED\\``",
    "{touch,PWNED}",
    "env -S 'touch PWNED'",
    "script -qc 'touch PWNED' /dev/null",
    "coproc touch PWNED",
    "unshare -r touch PWNED",
]


def _run(tmp_path: Path, lines: list[str], *flags: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    scenario = tmp_path / "s.json"
    turns = [{"tool_calls": [{"name": "run_command", "arguments": {"command": line}}]} for line in lines]
    scenario.write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    env = {"SIGIT_CONFIG_DIR": str(tmp_path / "config"), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}
    proc = run_sigit_main(["-p", "go", "--model", f"scripted:{scenario}", "--output-format", "stream-json",
                           *flags], cwd=work, env=env, timeout=120)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    results = [block["content"] for event in events if event["type"] == "user"
               for block in event["message"]["content"] if block["type"] == "tool_result"]
    return proc, results


def test_no_line_runs_the_denied_command(tmp_path: Path) -> None:
    proc, results = _run(tmp_path, LINES, "--allow-tool", "run_command(echo*)", "--allow-tool",
                         "run_command(cat*)", "--deny-tool", "run_command(touch*)", "--deny-tool", "run_command(rm*)")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "work" / "PWNED").exists()
    assert len(results) == len(LINES)
    assert "Exit code 0" in results[0]  # bash reads the first line as one echo, as the rules did
    for line, result in zip(LINES[1:], results[1:], strict=True):
        assert "denied by the rule run_command(touch*)" in result, (line, result)


def test_bypass_mode_with_a_deny_rule(tmp_path: Path) -> None:
    victim = tmp_path / "work" / "victim"
    victim.parent.mkdir()
    victim.write_text("keep")
    lines = ["echo $'\\' ; rm -f victim #'", "echo ${x:-`rm -f victim`}", "{rm,-f,victim}",
             "cat <<EOF\n\t$(rm -f victim)\nEOF", "echo ${x:-`date`}"]
    proc, results = _run(tmp_path, lines, "--permission-mode", "bypass", "--deny-tool", "run_command(rm*)")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep"
    assert "Exit code 0" in results[0]
    assert all("denied by the rule run_command(rm*)" in r for r in results[1:4]), results
    assert "needs permission" in results[4]  # unanalysable, and a deny rule might apply: bypass asks
