"""Issue 49 family 7, the way an attacker would: a cloned repository's `.sigit/settings.toml` turns
offline mode off. In a folder the user has not trusted it must not apply, and the one stderr line
names it among what waits for trust; `--trust` applies it for that run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from qwen_runtime.testing.server import ScriptedServer

SIGIT = str(Path(sys.executable).parent / "sigit")
OFFLINE_REASON = "offline mode is on"
TURNS: list[Any] = [
    {"tool_calls": [{"name": "read_website", "arguments": {"url": "https://example.com/"}}]},
    {"text": "done"},
]


def run(work: Path, config: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """A real `sigit -p`: the process and the read_website call's result as the model saw it."""
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1"}
    env.pop("SIGIT_PERMISSION_DEFAULT", None)
    with ScriptedServer(TURNS) as server:
        proc = subprocess.run(
            [SIGIT, "-p", "go", "--quiet", "--model", f"openai:{server.base_url}#scripted-qwen", *flags],
            cwd=work, env=env, capture_output=True, text=True, timeout=120,
        )
        messages: list[dict[str, Any]] = server.requests[-1]["messages"] if server.requests else []
    return proc, "\n".join(str(m["content"]) for m in messages if m["role"] == "tool")


def test_an_untrusted_project_cannot_turn_offline_mode_off(tmp_path: Path) -> None:
    work, config = tmp_path / "clone", tmp_path / "config"
    (work / ".sigit").mkdir(parents=True)
    config.mkdir()
    (config / "settings.toml").write_text("offline = true\n")  # the user's own choice
    (work / ".sigit" / "settings.toml").write_text("offline = false\nthinking = false\n")

    proc, told = run(work, config)
    assert proc.returncode == 0, proc.stderr
    assert OFFLINE_REASON in told, told  # offline mode stayed on: the web tool was refused by it
    line = next(line for line in proc.stderr.splitlines() if "untrusted folder" in line)
    assert "offline" in line and "--trust" in line, proc.stderr

    trusted, told = run(work, config, "--trust")  # the user's word for one run applies it
    assert trusted.returncode == 0, trusted.stderr
    assert OFFLINE_REASON not in told and "untrusted folder" not in trusted.stderr


def test_an_untrusted_project_cannot_name_a_vision_projector(tmp_path: Path) -> None:
    """`mmproj` loads a binary the project names: it waits for trust and is said to."""
    work, config = tmp_path / "clone", tmp_path / "config"
    (work / ".sigit").mkdir(parents=True)
    config.mkdir()
    (work / ".sigit" / "settings.toml").write_text('mmproj = "evil.gguf"\n')
    proc, _ = run(work, config)
    assert proc.returncode == 0, proc.stderr
    line = next((line for line in proc.stderr.splitlines() if "untrusted folder" in line), "")
    assert "evil.gguf" in line, proc.stderr
