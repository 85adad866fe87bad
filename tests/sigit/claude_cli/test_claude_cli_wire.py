"""`sigit` with Claude Code's flags (`sigit.cli.main` in this process, stdin and stdout as the SDK's pipes
would carry them): older SDKs' command lines, partial messages, control requests we do not know,
`--system-prompt` and `--tools`, Claude model names. The SDKs start a real `sigit` in test_python_sdk.py
and test_typescript_sdk.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import StreamEvent
from claude_agent_sdk._internal.message_parser import parse_message
from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main

pytestmark = pytest.mark.slow


def run_sigit(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {"HF_HUB_OFFLINE": "1", "CLAUDE_CODE_ENTRYPOINT": "sdk-py"}  # as the SDKs start it
    return run_sigit_main(args, cwd=cwd, env=env, stdin=stdin, timeout=60)


def scenario(tmp_path: Path, turns: list[dict[str, Any]]) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


def lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def user_line(text: str) -> str:
    return json.dumps({"type": "user", "session_id": "", "parent_tool_use_id": None,
                       "message": {"role": "user", "content": text}}) + "\n"


def test_the_old_claude_code_sdk_command_line_works(workdir: Path, tmp_path: Path) -> None:
    """claude-code-sdk 0.0.25 sent `--verbose`, Claude's mode names and `--print -- PROMPT`."""
    model = scenario(tmp_path, [
        {"tool_calls": [{"name": "create_file", "arguments": {"path": "a.txt", "content": "A\n"}}]},
        {"text": "Wrote a.txt."},
    ])
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits",
                      "--model", model, "--max-turns", "4", "--print", "--", "write a.txt"], workdir)
    assert proc.returncode == 0, proc.stderr
    assert (workdir / "a.txt").read_text() == "A\n"
    parsed = [parse_message(obj) for obj in lines(proc.stdout)]  # the SDK's own parser accepts every line
    assert type(parsed[-1]).__name__ == "ResultMessage" and parsed[-1].result == "Wrote a.txt."  # type: ignore[union-attr]
    assert lines(proc.stdout)[0]["permissionMode"] == "acceptEdits"


def test_unknown_flags_are_accepted_with_one_warning(workdir: Path, tmp_path: Path) -> None:
    model = scenario(tmp_path, [{"text": "ok"}])
    proc = run_sigit(["--verbose", "--fallback-model", "sonnet", "--betas", "x", "--include-hook-events",
                      "--model", model, "-p", "hi"], workdir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    warnings = [line for line in proc.stderr.splitlines() if "not implemented" in line]
    assert len(warnings) == 1 and "--fallback-model" in warnings[0] and "--include-hook-events" in warnings[0]


def test_partial_messages_stream_the_text_as_it_comes(workdir: Path, tmp_path: Path) -> None:
    model = scenario(tmp_path, [{"text": "Streaming, piece by piece."}])
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--include-partial-messages",
                      "--input-format", "stream-json", "--model", model], workdir, stdin=user_line("hi"))
    assert proc.returncode == 0, proc.stderr
    parsed = [parse_message(obj) for obj in lines(proc.stdout)]
    events = [m.event for m in parsed if isinstance(m, StreamEvent)]
    assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == "Streaming, piece by piece."


def test_an_unknown_control_request_gets_an_error_response(workdir: Path, tmp_path: Path) -> None:
    model = scenario(tmp_path, [{"text": "still here"}])
    frob = json.dumps({"type": "control_request", "request_id": "r9", "request": {"subtype": "frobnicate"}})
    usage = json.dumps({"type": "control_request", "request_id": "r10", "request": {"subtype": "get_context_usage"}})
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                      "--model", model], workdir, stdin=f"{frob}\n{usage}\n{user_line('hi')}")
    assert proc.returncode == 0, proc.stderr
    out = lines(proc.stdout)
    responses = {o["response"]["request_id"]: o["response"] for o in out if o["type"] == "control_response"}
    assert responses["r9"]["subtype"] == "error" and "frobnicate" in responses["r9"]["error"]
    assert responses["r10"]["subtype"] == "success" and "totalTokens" in responses["r10"]["response"]
    assert out[-1]["type"] == "result" and out[-1]["result"] == "still here"


def test_system_prompt_replaces_ours_and_an_empty_one_keeps_it(workdir: Path) -> None:
    with ScriptedServer([{"text": "one"}, {"text": "two"}]) as server:
        model = f"openai:{server.base_url}#scripted-qwen"
        custom = run_sigit(["--verbose", "--system-prompt", "You are terse.", "--model", model, "-p", "hi"], workdir)
        empty = run_sigit(["--verbose", "--system-prompt", "", "--append-system-prompt", "Answer in French.",
                           "--model", model, "-p", "hi"], workdir)
        bodies = server.requests
    assert custom.returncode == 0 and empty.returncode == 0, custom.stderr + empty.stderr
    assert bodies[0]["messages"][0] == {"role": "system", "content": "You are terse."}
    ours = bodies[1]["messages"][0]["content"]
    assert "You are terse." not in ours and ours.endswith("Answer in French.") and len(ours) > 500


def test_tools_narrow_what_the_model_is_offered(workdir: Path, tmp_path: Path) -> None:
    model = scenario(tmp_path, [{"text": "ok"}])
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--tools", "Read,Grep", "--model", model,
                      "-p", "hi"], workdir)
    assert proc.returncode == 0, proc.stderr
    assert lines(proc.stdout)[0]["tools"] == ["Read", "Grep"]


def test_a_claude_model_name_means_the_configured_model(workdir: Path, tmp_path: Path) -> None:
    model = scenario(tmp_path, [{"text": "local answer"}])
    config = Path(os.environ["SIGIT_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(f"model = {json.dumps(model)}\n")
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5", "-p", "hi"],
                     workdir)
    assert proc.returncode == 0, proc.stderr
    assert "claude-sonnet-4-5 is a Claude model" in proc.stderr
    out = lines(proc.stdout)
    assert out[0]["model"] == model and out[-1]["result"] == "local answer"


def test_a_message_without_text_gets_an_error_result_not_silence(workdir: Path, tmp_path: Path) -> None:
    model = scenario(tmp_path, [{"text": "answered the second"}])
    image = json.dumps({"type": "user", "session_id": "", "parent_tool_use_id": None, "message": {
        "role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": ""}}]}})
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                      "--model", model], workdir, stdin=f"{image}\n{user_line('and now text')}")
    assert proc.returncode == 0, proc.stderr
    results = [o for o in lines(proc.stdout) if o["type"] == "result"]
    assert results[0]["is_error"] and "an image block holds no data" in results[0]["result"]
    assert results[1]["result"] == "answered the second"


def test_a_session_that_cannot_open_answers_initialize_before_its_error_result(workdir: Path) -> None:
    """The SDK fails a pending `initialize` on an early error result, so the app never saw the result:
    the answer comes first, the error result answers the first user message."""
    init = json.dumps({"type": "control_request", "request_id": "i1", "request": {"subtype": "initialize"}})
    proc = run_sigit(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                      "--model", "no-such-model"], workdir, stdin=f"{init}\n{user_line('hi')}")
    assert proc.returncode != 0
    out = lines(proc.stdout)
    kinds = [o["type"] for o in out]
    assert kinds == ["control_response", "result"], out
    assert out[0]["response"]["request_id"] == "i1" and out[0]["response"]["subtype"] == "success"
    assert out[1]["is_error"] and "no-such-model" in out[1]["result"]
