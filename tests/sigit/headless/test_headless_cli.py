"""`sigit -p` against the scripted OpenAI-compatible server and the tiny GGUF: `sigit.cli.main` in this
process (in_process.py), and a real `sigit` subprocess where the process itself is the point (a one-shot
run ends without the interpreter's teardown, and what it wrote must all be there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main

SIGIT = str(Path(sys.executable).parent / "sigit")


def run_sigit(args: list[str], cwd: Path, config: Path, stdin: str | None = None,
              timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`sigit ARGS` in this process, with the test's config dir and no permission default from outside."""
    env = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}
    return run_sigit_main(args, cwd=cwd, env=env, stdin=stdin, timeout=timeout)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    return work, tmp_path / "config"


HELLO_TURNS = [
    {"tool_calls": [{"name": "create_file", "arguments": {"path": "hello.py", "content": "print('hi')\n"}}]},
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "python3 hello.py"}}]},
    {"text": "Created hello.py; running it prints hi."},
]
PROMPT = "create hello.py that prints hi, then run it"


def test_done_when_create_and_run_with_json_result(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": HELLO_TURNS}))
    proc = run_sigit(
        ["-p", PROMPT, "--model", f"scripted:{scenario}", "--permission-mode", "accept-edits",
         "--allow-tool", "run_command", "--output-format", "json"], work, config,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["type"] == "result" and result["subtype"] == "success" and not result["is_error"]
    assert result["result"] == "Created hello.py; running it prints hi."
    assert result["num_turns"] == 3 and result["session_id"]
    assert set(result["usage"]) >= {"input_tokens", "output_tokens"}
    assert (work / "hello.py").read_text() == "print('hi')\n"
    assert "run_command" in proc.stderr  # progress goes to stderr


def test_against_scripted_openai_server_stream_json(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    with ScriptedServer(HELLO_TURNS) as server:
        proc = run_sigit(
            ["-p", PROMPT, "--model", f"openai:{server.base_url}#scripted-qwen", "--permission-mode",
             "accept-edits", "--allow-tool", "run_command", "--output-format", "stream-json", "--quiet"],
            work, config,
        )
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init"
    assert "create_file" in lines[0]["tools"]
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    tool_results = [b for line in lines if line["type"] == "user" for b in line["message"]["content"]]
    assert any("hi" in block["content"] for block in tool_results)
    assert proc.stderr == ""  # --quiet
    # the server saw the tool results of each round
    assert bodies[-1]["messages"][-1]["role"] == "tool"


def test_denied_tool_without_allow_in_headless(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [HELLO_TURNS[1], {"text": "could not run it"}]}))
    proc = run_sigit(["-p", "run it", "--model", f"scripted:{scenario}"], work, config)
    assert proc.returncode == 0
    assert proc.stdout.strip() == "could not run it"
    assert "--allow-tool" in proc.stderr


def test_prompt_on_stdin_and_resume(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": ["first answer"]}))
    proc = run_sigit(["-p", "--model", f"scripted:{scenario}", "--output-format", "json"], work, config,
                     stdin="hello from stdin")
    assert proc.returncode == 0, proc.stderr
    session_id = json.loads(proc.stdout)["session_id"]
    scenario.write_text(json.dumps({"turns": ["second answer"]}))
    again = run_sigit(["-p", "more", "--model", f"scripted:{scenario}", "--continue",
                       "--output-format", "json"], work, config)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["session_id"] == session_id
    saved = (config / "sessions" / f"{session_id}.jsonl").read_text()
    assert "hello from stdin" in saved and "second answer" in saved


def test_usage_errors_exit_2(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    assert run_sigit(["--bogus-flag"], work, config).returncode == 2
    assert run_sigit(["-p", "x", "--resume", "nope"], work, config).returncode == 2
    assert run_sigit(["-p", "x", "--cwd", str(work / "missing")], work, config).returncode == 2
    bad_model = run_sigit(["-p", "x", "--model", "no-such-model"], work, config)
    assert bad_model.returncode == 2 and "no-such-model" in bad_model.stderr  # a UsageError, not a crash
    version = run_sigit(["--version"], work, config)
    assert version.returncode == 0 and version.stdout.startswith("sigit-agent ")


def test_model_error_exits_1_with_clear_message(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    proc = run_sigit(["-p", "x", "--model", str(work / "missing.gguf"), "--output-format", "json"],
                     work, config)
    assert proc.returncode == 1
    assert "missing.gguf" in proc.stderr
    assert json.loads(proc.stdout)["is_error"] is True


def test_dead_server_is_a_clear_error(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    proc = run_sigit(["-p", "x", "--model", "openai:http://127.0.0.1:9/v1#m"], work, config)
    assert proc.returncode == 1
    assert "127.0.0.1:9" in proc.stderr


@pytest.mark.slow
def test_tiny_gguf_completes_whatever_the_model_emits(dirs: tuple[Path, Path], tiny_gguf: Path) -> None:
    work, config = dirs
    proc = run_sigit(
        ["-p", PROMPT, "--model", str(tiny_gguf), "--permission-mode", "accept-edits", "--allow-tool",
         "run_command", "--output-format", "json", "--max-turns", "3"], work, config, timeout=240,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["type"] == "result" and result["session_id"]
    usage = result["usage"]  # ours, besides Claude Code's keys: speculative decoding's counts
    assert usage["drafted_tokens"] >= usage["accepted_draft_tokens"] >= 0


def test_blocking_hook_stops_run_command_headless(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    (work / ".sigit").mkdir()
    (work / ".sigit" / "settings.toml").write_text(
        '[[hooks.pre_tool_use]]\nmatcher = "run_command"\ncommand = "echo no-way >&2; exit 2"\n'
    )
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ran"}}]}, "blocked"]}))
    proc = run_sigit(["-p", "touch", "--model", f"scripted:{scenario}", "--permission-mode", "bypass",
                      "--trust"], work, config)
    assert proc.returncode == 0
    assert not (work / "ran").exists()
    assert "no-way" in proc.stderr


def test_fork_session_leaves_the_original_alone(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": ["one"]}))
    first = json.loads(run_sigit(["-p", "start", "--model", f"scripted:{scenario}", "--output-format", "json"],
                                 work, config).stdout)
    scenario.write_text(json.dumps({"turns": ["two"]}))
    forked = run_sigit(["-p", "more", "--model", f"scripted:{scenario}", "--resume", first["session_id"],
                        "--fork-session", "--output-format", "json"], work, config)
    fork_id = json.loads(forked.stdout)["session_id"]
    assert fork_id != first["session_id"]
    original = (config / "sessions" / f"{first['session_id']}.jsonl").read_text()
    assert "more" not in original
    assert "more" in (config / "sessions" / f"{fork_id}.jsonl").read_text()


def test_sigit_init_writes_agents_md(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    (work / "Makefile").write_text("test:\n\tpytest\n")
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "Makefile"}}]},
        {"tool_calls": [{"name": "create_file", "arguments": {
            "path": "AGENTS.md", "content": "# AGENTS.md\n\n- Test: `make test`\n"}}]},
        "Wrote AGENTS.md.",
    ]}))
    proc = run_sigit(["init", "--model", f"scripted:{scenario}"], work, config)
    assert proc.returncode == 0, proc.stderr
    assert "make test" in (work / "AGENTS.md").read_text()
    assert proc.stdout.strip() == "Wrote AGENTS.md."


def test_sessions_list_and_delete(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    work, config = dirs
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": ["one"]}))
    made = json.loads(run_sigit(["-p", "remember me", "--model", f"scripted:{scenario}", "--output-format",
                                 "json"], work, config).stdout)
    listed = json.loads(run_sigit(["sessions", "list", "--json"], work, config).stdout)
    assert [s["session_id"] for s in listed] == [made["session_id"]] and listed[0]["title"] == "remember me"
    assert made["session_id"] in run_sigit(["sessions"], work, config).stdout
    assert run_sigit(["sessions", "delete", made["session_id"]], work, config).returncode == 0
    assert json.loads(run_sigit(["sessions", "list", "--json"], work, config).stdout) == []
    assert run_sigit(["sessions", "delete", "nope"], work, config).returncode == 2


def test_a_repository_cannot_switch_on_bypass_mode(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    """A cloned repo's `.sigit/settings.toml` saying `mode = "bypass"` is ignored, with a warning."""
    work, config = dirs
    (work / ".sigit").mkdir()
    (work / ".sigit" / "settings.toml").write_text('[permissions]\nmode = "bypass"\n')
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch PWNED"}}]},
        {"text": "I could not."},
    ]}))
    proc = run_sigit(["-p", "summarize this repo", "--model", f"scripted:{scenario}"], work, config)
    assert proc.returncode == 0, proc.stderr
    assert not (work / "PWNED").exists()  # asked, and headless asks nobody: refused
    assert "bypass" in proc.stderr and "is ignored in a project file" in proc.stderr


def test_a_one_shot_run_ends_with_its_output_log_and_session_whole(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    # `sigit -p` ends without the interpreter's teardown (`cli.run`): what it wrote must all be there
    work, config = dirs
    reply = "".join(f"line {i}: the answer goes on\n" for i in range(8000))  # ~240 KB, past a pipe's buffer
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": [{"text": reply}]}))
    state = tmp_path / "state"
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(config), "SIGIT_STATE_DIR": str(state), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([SIGIT, "-p", "tell me", "--model", f"scripted:{scenario}", "--output-format",
                           "stream-json", "-q"], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[-1]["type"] == "result" and lines[-1]["result"].strip() == reply.strip()
    log = (state / "logs" / "sigit.log").read_text()
    last = log.rstrip().splitlines()[-1]  # the last record, flushed by the exit functions
    assert last.endswith("no session uses it, and the process ends")  # the model left to the exit
    listed = run_sigit(["sessions", "list"], work, config)
    assert lines[-1]["session_id"] in listed.stdout
