"""Fixtures: the app on a scripted model, with its config dir and working directory in tmp."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.frontends.tui.app import SigitApp, create_app

MakeApp = Callable[..., tuple[SigitApp, ScriptedRuntime]]


@pytest.fixture
def make_app(workdir: Path, tmp_path: Path) -> MakeApp:
    def _make(turns: list[Any], **options: Any) -> tuple[SigitApp, ScriptedRuntime]:
        runtime = ScriptedRuntime(turns, chunk_delay=options.pop("chunk_delay", 0.0),
                                  chunk_size=options.pop("chunk_size", 8))
        app = create_app(workdir, runtime=runtime, config_dir=tmp_path / "config", **options)
        return app, runtime

    return _make


