"""Issue 28 (LOW): text no JSON writer can break. A scripted model whose tool call and reply hold a lone
surrogate (`\\ud800`, valid JSON escape, not Unicode): `sigit -p` (`sigit.cli.main` here, writing to a
strict UTF-8 stdout as a process's on a pipe) ends normally, its stream-json output
is valid UTF-8 JSON, the tool call gets a clear error, and the session is saved and loads."""

from __future__ import annotations

import json
from pathlib import Path

from ..in_process import run_sigit_main


def test_a_lone_surrogate_from_the_model_neither_crashes_nor_loses_the_session(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    scenario = tmp_path / "s.json"
    scenario.write_text('{"turns": [{"tool_calls": [{"name": "run_command", "arguments": {"command": '
                        '"echo \\ud800"}}]}, {"text": "done \\ud800 NaN"}]}')
    config = tmp_path / "config"
    env = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}
    proc = run_sigit_main(["-p", "hi", "--model", f"scripted:{scenario}", "--output-format", "stream-json",
                           "--allow-tool", "run_command"], cwd=work, env=env, timeout=120,
                          text=False)  # bytes, as the process wrote them: stdout must be UTF-8
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert b"Traceback" not in proc.stderr
    events = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines() if line.strip()]
    results = [block["content"] for event in events if event["type"] == "user"
               for block in event["message"]["content"] if block["type"] == "tool_result"]
    assert results and "lone surrogate" in results[0]
    assert events[-1]["type"] == "result" and "\ud800" in events[-1]["result"]
    [saved] = list(config.rglob("*.jsonl"))
    lines = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    assert any("\ud800" in json.dumps(line) or "\\ud800" in json.dumps(line) for line in lines)
