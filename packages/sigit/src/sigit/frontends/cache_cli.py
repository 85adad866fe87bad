"""`sigit cache`: where the prompt cache of local models is, how big it is, what it holds; clearing it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from onde import DiskPromptCache, human_size

from ..config.paths import config_dir, prompt_cache_dir
from ..config.settings import SettingsError, load_settings


def run_cache(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="sigit cache",
        description="The prompt cache: saved model states of evaluated prompts (system prompt, tools, "
        "conversations), so a new or resumed session on a local model does not evaluate them again.",
    )
    sub = parser.add_subparsers(dest="action")
    show = sub.add_parser("show", help="where the cache is and how big (the default action)")
    listing = sub.add_parser("list", help="the saved states, most recently used first")
    for p in (show, listing):
        p.add_argument("--json", action="store_true", help="one JSON value")
    sub.add_parser("clear", help="remove every saved state")
    try:
        args = parser.parse_args(argv or ["show"])
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 2
    root = prompt_cache_dir()
    enabled, cap_gb, problem = _settings()
    cache = DiskPromptCache(root)
    if args.action == "clear":
        removed = cache.clear()
        print(f"removed {removed} saved prompt state{'s' if removed != 1 else ''} from {root}")
        return 0
    entries = cache.entries()
    if problem:
        print(f"sigit: {problem}", file=sys.stderr)
    if args.action == "list":
        if args.json:
            print(json.dumps([{"path": str(e.path), "model": e.model, "tokens": e.n_tokens,
                               "bytes": e.size_bytes, "last_used": e.last_used} for e in entries]))
        elif not entries:
            print(f"the prompt cache is empty ({root})")
        for e in [] if args.json else entries:
            print(f"{e.n_tokens:>7} tokens  {human_size(e.size_bytes):>10}  {e.model}  {e.path.name}")
        return 0
    total = sum(e.size_bytes for e in entries)
    if args.json:
        print(json.dumps({"path": str(root), "enabled": enabled, "entries": len(entries), "bytes": total,
                          "max_gb": cap_gb}))
        return 0
    print(f"prompt cache: {root}")
    print(f"  {len(entries)} saved state{'s' if len(entries) != 1 else ''}, {human_size(total)}"
          + (f" of at most {cap_gb:g} GiB" if cap_gb is not None else ""))
    if not enabled:
        print("  off (settings: prompt_cache = false)")
    return 0


def _settings() -> tuple[bool, float | None, str | None]:
    """Whether the cache is on and its cap, from the settings (a project file without trust: its harmless keys)."""
    try:
        settings = load_settings(Path.cwd(), config_dir())
    except (SettingsError, OSError) as exc:
        return True, None, str(exc)
    return settings.prompt_cache, settings.prompt_cache_max_gb, None
