"""The fifth audit (issue 49) through `sigit -p` (`sigit.cli.main` in this process, a scripted model playing
the attacker, commands in the real OS sandbox where the machine has one):

- `/undo` puts files back through the same walk as the file tools: a file a command swapped for a link
  since its snapshot is not written through it, into siGit's settings or anywhere outside the workspace;
- a path the system refuses (a name over 255 bytes, a path over 4096) is the tool's error, not the end
  of the session (the snapshot taken before the write used to raise it).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from ..in_process import run_sigit_main

SETTINGS = '[permissions]\nmode = "default"\n'
HOOK = '[[hooks.session_start]]\ncommand = "touch planted"\n'


def _env(home: Path) -> dict[str, str | None]:
    """siGit's folders where they are by default under this HOME (no SIGIT_*_DIR override)."""
    return {"HOME": str(home), "SIGIT_CONFIG_DIR": None, "SIGIT_CACHE_DIR": None, "SIGIT_STATE_DIR": None,
            "XDG_CONFIG_HOME": None, "XDG_CACHE_HOME": None, "XDG_STATE_HOME": None, "HF_HUB_OFFLINE": "1",
            "SIGIT_PERMISSION_DEFAULT": None}


def _sigit(tmp_path: Path, home: Path, work: Path, prompt: str, turns: list[Any], *flags: str) -> list[dict[str, Any]]:
    """`sigit -p PROMPT` in `work` with a scripted model: the tool results, in order."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": turns}))
    proc = run_sigit_main(["-p", prompt, "--model", f"scripted:{scenario}", "--output-format", "stream-json",
                           *flags], cwd=work, env=_env(home), timeout=180)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return [block for event in events if event["type"] in ("user", "result")
            for block in (event.get("message") or {}).get("content", []) if block["type"] == "tool_result"]


def test_undo_does_not_write_through_a_link_a_command_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work, config, outside = home / "work", home / ".config" / "sigit", tmp_path / "outside"
    for folder in (work, config, outside):
        folder.mkdir(parents=True)
    (config / "settings.toml").write_text(SETTINGS)
    (outside / "target.txt").write_text("theirs\n")
    made = [{"name": "create_file", "arguments": {"path": name, "content": HOOK}} for name in ("a.md", "b.md")]
    _sigit(tmp_path, home, work, "write notes", [{"tool_calls": made}, {"text": "done"}], "--permission-mode",
           "accept-edits")
    edits = [{"name": "edit_file", "arguments": {"path": name, "old_text": "touch", "new_text": "echo"}}
             for name in ("a.md", "b.md")]
    swap = {"name": "run_command", "arguments": {
        "command": f"rm a.md b.md && ln -s {config / 'settings.toml'} a.md && ln -s {outside / 'target.txt'} b.md"}}
    results = _sigit(tmp_path, home, work, "edit them", [{"tool_calls": [*edits, swap]}, {"text": "done"}],
                     "--continue", "--permission-mode", "accept-edits", "--allow-tool", "run_command(rm *)",
                     "--allow-tool", "run_command(ln *)")
    assert [r["is_error"] for r in results] == [False, False, False], results

    (tmp_path / "none.json").write_text('{"turns": []}')
    undo = run_sigit_main(["-p", "/undo", "--continue", "--model", f"scripted:{tmp_path / 'none.json'}"],
                          cwd=work, env=_env(home), timeout=120)
    assert undo.returncode == 0, undo.stderr
    assert (config / "settings.toml").read_text() == SETTINGS
    assert (outside / "target.txt").read_text() == "theirs\n"
    assert undo.stdout.count("could not restore") == 2 and "leads outside" in undo.stdout, undo.stdout


def test_an_overlong_path_is_the_tools_error_not_the_sessions_end(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "home" / "work"
    work.mkdir(parents=True)
    calls = [{"name": "create_file", "arguments": {"path": path, "content": "x"}}
             for path in ("a" * 300 + "/f.txt", "/".join(["deep"] * 1200) + "/f.txt", "fine.txt")]
    results = _sigit(tmp_path, home, work, "write", [{"tool_calls": calls}, {"text": "done"}],
                     "--permission-mode", "accept-edits")
    assert [r["is_error"] for r in results] == [True, True, False], results
    assert all("too long" in r["content"] for r in results[:2]), results
    assert (work / "fine.txt").read_text() == "x"


def test_a_trusted_hooks_script_the_model_rewrites_is_not_run(tmp_path: Path) -> None:
    """A hook runs outside the sandbox: the script it names, rewritten by the model in accept-edits, is not
    run by the same session (the files a hook names are pinned when the session starts)."""
    home, work = tmp_path / "home", tmp_path / "home" / "work"
    (work / ".sigit").mkdir(parents=True)
    (work / ".sigit" / "settings.toml").write_text('[[hooks.post_tool_use]]\ncommand = "sh ./check.sh"\n')
    (work / "check.sh").write_text("true\n")
    marker = tmp_path / "ran-unconfined"
    calls = [{"name": "create_file", "arguments": {"path": "check.sh", "content": f"touch {marker}\n",
                                                   "overwrite": True}},
             {"name": "read_file", "arguments": {"path": "check.sh"}}]
    _sigit(tmp_path, home, work, "tidy", [{"tool_calls": calls}, {"text": "done"}], "--trust",
           "--permission-mode", "accept-edits")
    assert not marker.exists()


def test_the_guard_quarantines_config_based_hooks_and_sendmail_commands(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "home" / "work"
    work.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    planted = ('[hook "h"]\n\tcommand = touch planted\n\tevent = pre-commit\n'
               "[sendemail]\n\tsendmailCmd = touch planted\n\theaderCmd = touch planted\n")
    config = (work / ".git" / "config").read_text() + planted
    calls = [{"name": "create_file", "arguments": {"path": ".git/config", "content": config, "overwrite": True}}]
    _sigit(tmp_path, home, work, "set up", [{"tool_calls": calls}, {"text": "done"}], "--permission-mode", "bypass")
    kept = subprocess.run(["git", "config", "--file", str(work / ".git" / "config"), "--name-only", "--list"],
                          capture_output=True, text=True, check=True).stdout.lower()
    assert "hook.h.command" not in kept and "sendemail.sendmailcmd" not in kept and "sendemail.headercmd" not in kept
