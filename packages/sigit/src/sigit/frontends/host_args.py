"""The host options the command line's flags choose (a light module: `sigit -p` reads them before
importing the frontends, to start loading the model early)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..options import HostOptions


def host_options(args: argparse.Namespace, *, one_shot: bool = False) -> HostOptions:
    """`one_shot`: a headless run whose prompt is here (`sigit -p`): its turn starts at once and nothing
    follows it, so nothing is evaluated ahead (HostOptions.prefill); the TUI and the MCP server keep it."""
    return HostOptions(
        model=args.model,
        permission_mode=args.permission_mode,
        sandbox_mode=getattr(args, "sandbox", None),
        allow_tools=tuple(args.allow_tool),
        deny_tools=tuple(args.deny_tool),
        add_dirs=tuple(getattr(args, "add_dir", ())),
        max_rounds=args.max_turns,
        thinking=False if getattr(args, "no_think", False) else None,
        trust=getattr(args, "trust", False),
        download=getattr(args, "download", False),
        offline=getattr(args, "offline", False),
        draft=getattr(args, "draft", None),
        runtime_options=runtime_options(args),
        keep_alive=getattr(args, "keep_alive", None),
        prefill=not one_shot,
    )


def runtime_options(args: argparse.Namespace) -> dict[str, Any]:
    """What the flags ask of the model's runtime: `--n-ctx` and `--chat-template` (over their settings)."""
    options: dict[str, Any] = {}
    if n_ctx := getattr(args, "n_ctx", None):
        options["n_ctx"] = n_ctx
    if template := getattr(args, "chat_template", None):
        options["chat_template_file"] = template
    return options


def headless_host_options(args: argparse.Namespace) -> HostOptions:
    """A `sigit -p` run's options (one shot); where the process ends after it (`args.process_ends`, the
    `sigit` command) the model is left loaded at the end instead of freed object by object."""
    options = host_options(args, one_shot=True)
    options.unload_on_close = not getattr(args, "process_ends", False)
    options.host_notice = say_on_stderr
    return options


def say_on_stderr(line: str) -> None:
    """A notice from the model's loading (its host could not be used), as headless says its others."""
    print(f"sigit: {line}", file=sys.stderr, flush=True)
