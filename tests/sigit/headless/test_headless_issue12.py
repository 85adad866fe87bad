"""Issue 12, findings 2, 4, 5 and 6 as a user meets them: `sigit -p` on a scripted
model that tries each trick, in headless mode where nobody can approve anything (`sigit.cli.main` in this
process: what the commands did and what the model was told is the point, not the process)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from ..in_process import run_sigit_main


def sigit(tmp_path: Path, calls: list[tuple[str, dict[str, Any]]], *flags: str,
          settings: str | None = None) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Run one headless turn whose model makes `calls` in order; the tool results, in order."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    if settings is not None:
        (config / "settings.toml").write_text(settings)
    scenario = tmp_path / "s.json"
    turns: list[dict[str, Any]] = [{"tool_calls": [{"name": name, "arguments": args}]} for name, args in calls]
    scenario.write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    env = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "HOME": str(tmp_path),
           "SIGIT_PERMISSION_DEFAULT": None}
    proc = run_sigit_main(["-p", "go", "--model", f"scripted:{scenario}", "--output-format", "stream-json", *flags],
                          cwd=work, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    results = [block for event in events if event["type"] == "user"
               for block in event["message"]["content"] if block["type"] == "tool_result"]
    assert len(results) == len(calls), proc.stdout
    return proc, results


def _text(result: dict[str, Any]) -> str:
    content = result["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


# ---------------------------------------------------------------- finding 2: allow rules walked around


@pytest.mark.parametrize("line", [
    "git status #'\ntouch PWNED",
    "git status >&PWNED",
    "git status; $'touch' PWNED",
    "git status $'x' && touch PWNED",
    "git status\n$'\\x74ouch' PWNED",
])
def test_an_allow_rule_does_not_cover_what_it_does_not_name(tmp_path: Path, line: str) -> None:
    _, [result] = sigit(tmp_path, [("run_command", {"command": line})],
                        "--allow-tool", "run_command(git status*)")
    assert result["is_error"] and "needs permission" in _text(result)
    assert not (tmp_path / "work" / "PWNED").exists()


def test_a_prefix_rule_stops_at_the_word(tmp_path: Path) -> None:
    _, [lsof, ls] = sigit(tmp_path, [("run_command", {"command": "lsof -v"}),
                                     ("run_command", {"command": "ls -a"})],
                          "--allow-tool", "run_command(ls*)")
    assert lsof["is_error"] and "needs permission" in _text(lsof)
    assert not ls["is_error"] and ".." in _text(ls)


# ---------------------------------------------------------------- finding 4: web to loopback


def test_read_website_does_not_reach_loopback_even_when_allowed(tmp_path: Path) -> None:
    _, [result] = sigit(tmp_path, [("read_website", {"url": "http://127.0.0.1:9/admin"})],
                        "--allow-tool", "read_website")
    assert result["is_error"] and "Refused to fetch 127.0.0.1" in _text(result) and "loopback" in _text(result)


# ---------------------------------------------------------------- finding 5: writes through links, hooks


def test_remember_through_a_symlinked_agents_md_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# not yours\n")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "AGENTS.md").symlink_to(outside)
    _, [result] = sigit(tmp_path, [("remember", {"note": "pwned"})], "--allow-tool", "remember")
    assert result["is_error"] and "needs permission" in _text(result)
    assert outside.read_text() == "# not yours\n"


def test_remember_into_a_plain_agents_md_goes_through_with_the_rule(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "AGENTS.md").write_text("# ours\n")
    _, [result] = sigit(tmp_path, [("remember", {"note": "use make test"})], "--allow-tool", "remember")
    assert not result["is_error"], _text(result)
    assert "- use make test" in (tmp_path / "work" / "AGENTS.md").read_text()


def test_a_hook_matcher_sees_every_spelling_of_the_path(tmp_path: Path) -> None:
    (tmp_path / "work" / "sub").mkdir(parents=True)
    secret = tmp_path / "work" / "secret.txt"
    secret.write_text("keep\n")
    hook = '[[hooks.pre_tool_use]]\nmatcher = "edit_file(secret.txt)"\ncommand = "echo no edits here >&2; exit 2"\n'
    spellings = ["secret.txt", "./secret.txt", "sub/../secret.txt", str(secret)]
    _, results = sigit(tmp_path, [("edit_file", {"path": p, "old_text": "keep", "new_text": "gone"})
                                  for p in spellings], "--permission-mode", "accept-edits", settings=hook)
    for spelling, result in zip(spellings, results, strict=True):
        assert result["is_error"] and "no edits here" in _text(result), spelling
    assert secret.read_text() == "keep\n"


# ---------------------------------------------------------------- finding 6: unbounded reads, escaping processes


def test_dev_zero_and_a_fifo_are_refused_with_what_they_are(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    os.mkfifo(tmp_path / "work" / "pipe")
    _, [zero, fifo] = sigit(tmp_path, [("read_file", {"path": "/dev/zero"}), ("read_file", {"path": "pipe"})],
                            "--add-dir", "/dev")
    assert zero["is_error"] and "/dev/zero is a character device, not a regular file" in _text(zero)
    assert fifo["is_error"] and "pipe is a FIFO (named pipe), not a regular file" in _text(fifo)


def _count(token: str) -> str:
    """A command printing how many processes run `sleep <token>` (`^` leaves out the shells whose
    command lines mention it, the [s] keeps grep from counting itself)."""
    return f"ps -eo args | grep -c '^[s]leep {token}' || true"


def test_detached_commands_end_with_the_command_and_with_a_background_kill(tmp_path: Path) -> None:
    """A command runs in a PID namespace of its own, so a later command cannot see another's processes (`ps`
    there shows only its own): the background one says it started through a file, and what is left is
    looked for from outside. That a foreground command's detached children are gone before the model's
    next request is test_headless_process_containment's."""
    fg, bg = (f"300.{uuid.uuid4().int % 10**9:09d}" for _ in range(2))
    _, results = sigit(tmp_path, [
        ("run_command", {"command": f"setsid sleep {fg} &\nnohup sleep {fg} &\necho started"}),
        ("run_command", {"command": _count(fg)}),
        ("run_command", {"command": f"setsid sleep {bg} > /dev/null 2>&1 & nohup sleep {bg} > /dev/null 2>&1 & "
                                    "touch bg-started; sleep 60", "run_in_background": True}),
        ("run_command", {"command": "until [ -e bg-started ]; do sleep 0.02; done; echo running"}),
        ("kill_command", {"task_id": "bg1"}),
    ], "--allow-tool", "run_command", "--allow-tool", "kill_command")
    started, after_fg, _, while_bg, killed = (_text(r).strip() for r in results)
    assert "started" in started
    assert after_fg.endswith("0"), after_fg
    assert while_bg.endswith("running"), while_bg
    assert "bg1" in killed
    assert subprocess.run(["pgrep", "-f", f"sleep {fg}|sleep {bg}"], capture_output=True).returncode == 1
