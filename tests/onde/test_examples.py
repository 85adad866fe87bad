"""The examples run as they are, against the tiny test model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["onde_quickstart.py", "onde_tool_call.py"])
def test_example_runs(name: str, tiny_gguf: Path) -> None:
    env = {**os.environ, "ONDE_MODEL": str(tiny_gguf), "ONDE_MAX_TOKENS": "32", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    if name == "onde_tool_call.py":
        assert "-> days_until(" in done.stdout
        assert "history: ['user', 'assistant', 'tool', 'assistant'" in done.stdout
    else:
        assert "loaded tiny-qwen3" in done.stdout and "history: 4 messages" in done.stdout
