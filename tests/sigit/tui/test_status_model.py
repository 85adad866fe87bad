"""`/status` on a real local GGUF: what the runtime detected (template, call format, layers) and the
context window it chose and why, the same rows `qwen-runtime inspect` and `sigit doctor` show."""

from __future__ import annotations

from pathlib import Path

from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from sigit.commands import status_markdown
from sigit.frontends.tui.app import create_app
from sigit.frontends.tui.tabs import status_text
from textual.widgets import TabbedContent

from .helpers import SIZE, ready, send


async def test_status_shows_the_detected_model_and_its_context_window(
    workdir: Path, tmp_path: Path, tiny_hybrid_gguf: Path
) -> None:
    runtime = LlamaCppRuntime(str(tiny_hybrid_gguf), draft="none")
    app = create_app(workdir, runtime=runtime, config_dir=tmp_path / "config")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "/status")
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "status"
        status = app.require_session().status()
    details = dict(status.model_details)
    assert status.context_size == 32_768 and details["context window"].startswith("32,768 tokens (KV cache")
    assert details["template"] == "embedded (same as shipped qwen3.5)"
    shown = status_text(tmp_path / "config", status, "tiny").plain
    assert "Context window  32,768 tokens" in shown and "Tool calls" in shown and "hybrid: 1 of 4" in shown
    assert "- Model context window: 32,768 tokens (KV cache" in status_markdown(status)
