"""The real Claude Agent SDK driving `sigit` (its `cli_path`) on a scripted model."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions

SIGIT = str(Path(sys.executable).with_name("sigit"))

MakeOptions = Callable[..., ClaudeAgentOptions]


@pytest.fixture
def sdk_options(workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MakeOptions:
    """`sdk_options(turns, **options)`: ClaudeAgentOptions that start our `sigit` in `workdir` with
    a scripted model playing `turns` (the format of `scripted:FILE.json`)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK", "1")
    count = 0

    def make(turns: list[dict[str, Any]], **options: Any) -> ClaudeAgentOptions:
        nonlocal count
        count += 1
        scenario = tmp_path / f"scenario{count}.json"
        scenario.write_text(json.dumps({"turns": turns}))
        stderr = options.pop("stderr", None)
        return ClaudeAgentOptions(cli_path=SIGIT, cwd=workdir, model=f"scripted:{scenario}", stderr=stderr,
                                  **options)

    return make
