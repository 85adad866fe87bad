"""The terminal UI (Textual): `sigit` in a terminal with no -p."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["run_tui"]


def run_tui(args: argparse.Namespace) -> int:
    from ..host_args import host_options
    from ..terminal_text import terminal_safe
    from .app import SigitApp, TuiOptions

    options = TuiOptions(Path(args.cwd).resolve(), host_options(args), args.resume, args.continue_last,
                         args.fork_session)
    app = SigitApp(options)
    code = app.run()
    for sentence in app.closing_notes:
        print(f"sigit: {terminal_safe(sentence)}", file=sys.stderr)
    return int(code or 0)
