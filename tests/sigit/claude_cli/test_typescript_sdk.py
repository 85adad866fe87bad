"""The TypeScript `@anthropic-ai/claude-agent-sdk`, installed from npm at test time, driving `sigit`
(its `pathToClaudeCodeExecutable`): one query that reads a file, asks `canUseTool` about a Bash call
(denied) and answers. Skipped only where `node` is absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import SIGIT

pytestmark = pytest.mark.slow

NPM_PACKAGE = "@anthropic-ai/claude-agent-sdk@^0.3"
SDK_DIR = Path(__file__).with_name("node_sdk")
"""npm's install of the SDK (gitignored), kept between runs; the optional native `claude` binaries are
left out: `sigit` is the executable here."""


@pytest.fixture(scope="module")
def ts_sdk() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node is not installed")
    if not (SDK_DIR / "node_modules" / "@anthropic-ai" / "claude-agent-sdk" / "package.json").is_file():
        SDK_DIR.mkdir(exist_ok=True)
        subprocess.run([npm, "install", "--prefix", str(SDK_DIR), "--omit=optional", "--no-audit", "--no-fund",
                        "--no-save", "--loglevel=error", NPM_PACKAGE], check=True, timeout=300)
    return SDK_DIR


def test_typescript_sdk_query_with_can_use_tool(ts_sdk: Path, workdir: Path, tmp_path: Path) -> None:
    (workdir / "notes.txt").write_text("hello from the notes\n")
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ts.txt"}}]},
        {"text": "The notes say hello."},
    ]}))
    script = Path(__file__).with_name("ts_sdk_query.mjs")
    proc = subprocess.run(
        ["node", str(script), str(ts_sdk), SIGIT, str(workdir), f"scripted:{scenario}", "what do the notes say?"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["asked"] == [{"toolName": "Bash", "input": {"command": "touch ts.txt"}}]
    assert not (workdir / "ts.txt").exists()
    seen = report["seen"]
    assert seen[0]["type"] == "system" and seen[0]["subtype"] == "init"
    uses = [b for m in seen if m["type"] == "assistant" for b in m["message"]["content"] if b["type"] == "tool_use"]
    assert [(u["name"], u["input"]) for u in uses] == [("Read", {"file_path": "notes.txt"}),
                                                      ("Bash", {"command": "touch ts.txt"})]
    results = [b for m in seen if m["type"] == "user" for b in m["message"]["content"]]
    assert "hello from the notes" in results[0]["content"] and "not from TypeScript" in results[1]["content"]
    assert seen[-1]["type"] == "result" and seen[-1]["subtype"] == "success"
    assert seen[-1]["result"] == "The notes say hello."
