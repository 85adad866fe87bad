"""`sigit sessions`: list and delete saved sessions from scripts (the TUI's History tab does the same)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config.paths import config_dir
from ..sessions import SessionError, SessionStore


def run_sessions(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sigit sessions", description="List or delete saved sessions.")
    sub = parser.add_subparsers(dest="action")
    listing = sub.add_parser("list", help="saved sessions, newest first (the default action)")
    listing.add_argument("--cwd", default=None, help="only sessions of this directory (default: the current one)")
    listing.add_argument("--all", action="store_true", help="sessions of every directory")
    listing.add_argument("--json", action="store_true", help="one JSON array")
    delete = sub.add_parser("delete", help="delete a saved session")
    delete.add_argument("id")
    try:
        args = parser.parse_args(argv or ["list"])
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 2
    store = SessionStore(config_dir() / "sessions")
    if args.action == "delete":
        try:
            removed = store.delete(args.id)
        except SessionError as exc:
            print(f"sigit: {exc}", file=sys.stderr)
            return 2
        if not removed:
            print(f"sigit: no session {args.id!r} in {store.root}", file=sys.stderr)
            return 2
        print(f"deleted {args.id}")
        return 0
    cwd = None if args.all else Path(args.cwd or ".").resolve()
    found = store.list(cwd)
    if args.json:
        print(json.dumps([
            {"session_id": s.id, "title": s.title, "cwd": str(s.cwd), "model": s.model,
             "updated_at": s.updated_at, "messages": s.messages} for s in found
        ], ensure_ascii=False))
        return 0
    if not found:
        print(f"no saved sessions{'' if cwd is None else f' for {cwd}'}")
        return 0
    for s in found:
        print(f"{s.id}  {s.updated_at}  {s.messages:>4} msgs  {s.title[:60]}" + (f"  ({s.cwd})" if cwd is None else ""))
    return 0
