"""The host options the command line chooses: `sigit -p` evaluates nothing ahead, the app does."""

from __future__ import annotations

from pathlib import Path

from sigit.cli import _parse
from sigit.frontends.host_args import headless_host_options, host_options


def test_the_app_prefills_and_a_one_shot_run_does_not(tmp_path: Path) -> None:
    """The TUI and the MCP server take `host_options` (until this change the headless one, so the TUI
    evaluated neither the system prompt ahead nor a finished turn for the next message)."""
    args = _parse(["--cwd", str(tmp_path), "--model", "m.gguf", "--draft", "none"])
    assert not isinstance(args, int)
    app, one_shot = host_options(args), headless_host_options(args)
    assert app.prefill and not one_shot.prefill
    assert (app.model, app.draft) == (one_shot.model, one_shot.draft) == ("m.gguf", "none")
