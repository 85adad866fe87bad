"""`sigit -p` (`sigit.cli.main` in this process; the commands run in the real OS sandbox), sandbox on by
default: a refused write reaches the model as a plain sentence with the flag that would allow it, is never
rerun unconfined, and bad sandbox input is a usage error (exit 2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main


def run_sigit(args: list[str], cwd: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", "SIGIT_PERMISSION_DEFAULT": None}
    return run_sigit_main(args, cwd=cwd, env=env, timeout=60)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def test_a_refused_write_is_explained_to_the_model_and_not_rerun(work: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    turns = [{"tool_calls": [{"name": "run_command", "arguments": {"command": f"echo changed > {outside}"}}]},
             {"text": "It was refused."}]
    with ScriptedServer(turns) as server:
        proc = run_sigit(["-p", "change it", "--model", f"openai:{server.base_url}#scripted-qwen",
                          "--permission-mode", "bypass", "--output-format", "json"], work, tmp_path / "config")
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    assert outside.read_text() == "untouched\n"
    told = bodies[-1]["messages"][-1]  # the model's next request: the tool result
    assert told["role"] == "tool"
    assert f"blocked by the sandbox: write to {outside} outside the workspace" in told["content"]
    assert "--sandbox off" in told["content"] and "Not rerun without the sandbox" in told["content"]


def test_sandbox_off_runs_it_as_before(work: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": f"echo changed > {outside}"}}]},
        {"text": "done"}]}))
    proc = run_sigit(["-p", "change it", "--model", f"scripted:{scenario}", "--allow-tool", "run_command",
                      "--sandbox", "off"], work, tmp_path / "config")
    assert proc.returncode == 0, proc.stderr
    assert outside.read_text() == "changed\n"


@pytest.mark.parametrize(("args", "settings", "message"), [
    (["--sandbox", "loose"], None, "argument --sandbox: invalid choice: 'loose'"),
    ([], '[sandbox]\nmode = "loose"\n', "sandbox mode must be one of read-only, workspace-write, off"),
    ([], "[sandbox]\nnetwork = 1\n", "[sandbox] network must be true or false"),
])
def test_bad_sandbox_input_is_a_usage_error(work: Path, tmp_path: Path, args: list[str], settings: str | None,
                                            message: str) -> None:
    config = tmp_path / "config"
    config.mkdir()
    if settings is not None:
        (config / "settings.toml").write_text(settings)
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": []}))
    proc = run_sigit(["-p", "hi", "--model", f"scripted:{scenario}", *args], work, config)
    assert proc.returncode == 2
    assert message in proc.stderr
