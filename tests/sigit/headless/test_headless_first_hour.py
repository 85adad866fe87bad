"""A first hour of `sigit -p` (`sigit.cli.main` in this process): stop reasons that say what happened, refused calls
listed (and printed once), errors on stderr only, slash commands, and the dialect only when asked for."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..in_process import run_sigit_main

pytestmark = pytest.mark.slow

LOOPING_TEXT = "I will check the file again. " * 40
EDIT = {"name": "create_file", "arguments": {"path": "notes.txt", "content": "hello\n"}}


def run_sigit(args: list[str], work: Path, **env: str) -> subprocess.CompletedProcess[str]:
    unset: dict[str, str | None] = {name: None for name in (
        "SIGIT_PERMISSION_DEFAULT", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_AGENT_SDK_VERSION")}
    return run_sigit_main(args, cwd=work, env={**unset, "HF_HUB_OFFLINE": "1", **env}, timeout=90)


def scripted(tmp_path: Path, turns: list[Any]) -> str:
    path = tmp_path / f"scenario{len(list(tmp_path.glob('scenario*')))}.json"
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


def test_every_edit_refused_lists_the_denials_and_prints_each_once(workdir: Path, tmp_path: Path) -> None:
    model = scripted(tmp_path, [{"tool_calls": [EDIT]}, {"tool_calls": [EDIT]}, {"text": "I could not write it."}])
    proc = run_sigit(["-p", "write notes.txt", "--model", model, "--output-format", "json"], workdir)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["stop_reason"] == "permission_denied" and result["subtype"] == "success"
    denials = result["permission_denials"]
    assert [d["tool_name"] for d in denials] == ["create_file", "create_file"]
    assert denials[0]["tool_input"]["path"] == "notes.txt" and denials[0]["tool_use_id"]
    assert not (workdir / "notes.txt").exists()
    refusals = [line for line in proc.stderr.splitlines() if "create_file" in line and "✗" in line]
    assert len(refusals) == 2, proc.stderr  # one line per refused call, not two
    assert "Not run:" not in proc.stderr


def test_the_loop_guard_is_its_own_stop_reason(workdir: Path, tmp_path: Path) -> None:
    model = scripted(tmp_path, [{"text": LOOPING_TEXT}])
    proc = run_sigit(["-p", "check it", "--model", model, "--output-format", "json"], workdir)
    result = json.loads(proc.stdout)
    assert result["stop_reason"] == "loop_guard", result
    assert result["subtype"] == "error_during_execution" and result["is_error"]
    assert proc.returncode == 1
    text = run_sigit(["-p", "check it", "--model", scripted(tmp_path, [{"text": LOOPING_TEXT}])], workdir)
    assert "repeating itself" in text.stderr and "token limit" not in text.stderr + text.stdout


def test_errors_in_text_mode_go_to_stderr_only(workdir: Path, tmp_path: Path) -> None:
    proc = run_sigit(["-p", "hi", "--resume", "nope", "--model", scripted(tmp_path, [])], workdir)
    assert proc.returncode == 2
    assert proc.stdout == "" and "nope" in proc.stderr
    out_of_turns = run_sigit(["-p", "hi", "--model", scripted(tmp_path, [])], workdir)
    assert out_of_turns.returncode == 1
    assert out_of_turns.stdout == "" and "script" in out_of_turns.stderr


def test_the_round_limit_counts_in_words(workdir: Path, tmp_path: Path) -> None:
    model = scripted(tmp_path, [{"tool_calls": [{"name": "list_directory", "arguments": {"path": "."}}]}])
    proc = run_sigit(["-p", "list", "--max-turns", "1", "--model", model, "--output-format", "json"], workdir)
    assert "Stopped after 1 round of tool calls." in proc.stderr and "1 rounds" not in proc.stderr
    assert json.loads(proc.stdout)["subtype"] == "error_max_turns"


def test_a_slash_command_runs_as_a_command(workdir: Path, tmp_path: Path) -> None:
    proc = run_sigit(["-p", "/status", "--model", scripted(tmp_path, [])], workdir)  # the model is never asked
    assert proc.returncode == 0, proc.stderr
    assert "Session:" in proc.stdout and "Mode:" in proc.stdout
    as_json = run_sigit(["-p", "/help", "--model", scripted(tmp_path, []), "--output-format", "json"], workdir)
    result = json.loads(as_json.stdout)
    assert result["subtype"] == "success" and "/status" in result["result"] and result["num_turns"] == 0
    unknown = run_sigit(["-p", "/nosuchcommand", "--model", scripted(tmp_path, [])], workdir)
    assert unknown.returncode == 2 and "Unknown command" in unknown.stderr and unknown.stdout == ""


def test_verbose_stream_json_stays_sigits_dialect(workdir: Path, tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"name": "list_directory", "arguments": {"path": "."}}]}, {"text": "done"}]
    args = ["-p", "list", "--output-format", "stream-json", "--verbose"]
    ours = run_sigit([*args, "--model", scripted(tmp_path, turns)], workdir)
    assert ours.returncode == 0, ours.stderr
    lines = [json.loads(line) for line in ours.stdout.splitlines()]
    uses = [b for line in lines if line["type"] == "assistant" for b in line["message"]["content"]
            if b["type"] == "tool_use"]
    assert [u["name"] for u in uses] == ["list_directory"] and "uuid" not in lines[-1]
    notices = [line for line in ours.stderr.splitlines() if "--claude" in line]
    assert len(notices) == 1
    claude = run_sigit([*args, "--claude", "--model", scripted(tmp_path, turns)], workdir)
    assert claude.returncode == 0, claude.stderr
    claude_lines = [json.loads(line) for line in claude.stdout.splitlines()]
    assert "uuid" in claude_lines[-1] and "--claude" not in claude.stderr
    from_sdk = run_sigit([*args, "--model", scripted(tmp_path, turns)], workdir, CLAUDE_CODE_ENTRYPOINT="sdk-py")
    assert "uuid" in json.loads(from_sdk.stdout.splitlines()[-1])


def test_smoke_a_first_headless_hour(workdir: Path, tmp_path: Path) -> None:
    """One conversation, three runs: every edit refused, then `--continue` into a reply the loop guard
    stops, then a model error: each says what happened, in JSON and on stderr, and nothing else."""
    refused = run_sigit(["-p", "write notes.txt", "--output-format", "json", "--model",
                         scripted(tmp_path, [{"tool_calls": [EDIT]}, {"text": "Not allowed, so I stopped."}])], workdir)
    first = json.loads(refused.stdout)
    assert first["stop_reason"] == "permission_denied" and len(first["permission_denials"]) == 1
    looped = run_sigit(["-p", "try again", "--continue", "--output-format", "json", "--model",
                        scripted(tmp_path, [{"text": LOOPING_TEXT}])], workdir)
    second = json.loads(looped.stdout)
    assert second["session_id"] == first["session_id"] and second["stop_reason"] == "loop_guard"
    failed = run_sigit(["-p", "and now?", "--continue", "--model", scripted(tmp_path, [])], workdir)
    assert failed.returncode == 1 and failed.stdout == "" and failed.stderr.count("sigit:") == 1
