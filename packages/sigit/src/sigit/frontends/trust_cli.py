"""`sigit trust`: trust a folder's project settings, list the trusted folders, or forget one."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config.paths import config_dir
from ..config.trust import project_requests, record_trust, revoke_trust, trust_file, trusted_folders
from ..errors import UsageError

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def run_trust(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="sigit trust",
        description="Trust a folder: its .sigit/settings.toml hooks, MCP servers, model and permission "
        "settings, and its .mcp.json, apply from now on (until they change).",
    )
    parser.add_argument("dir", nargs="?", default=None, help="the folder (default: the current one)")
    parser.add_argument("--list", action="store_true", help="the trusted folders")
    parser.add_argument("--revoke", metavar="DIR", default=None, help="stop trusting DIR")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    config = config_dir()
    try:
        if args.list:
            folders = trusted_folders(config)
            for folder in folders:
                print(f"{folder.root}\t{folder.trusted_at}")
            if not folders:
                print(f"No trusted folders (in {config}).", file=sys.stderr)  # stdout stays a clean list
            return EXIT_OK
        if args.revoke is not None:
            where = Path(os.path.abspath(os.path.expanduser(args.revoke)))
            if not revoke_trust(where, config):
                print(f"sigit: {where} is not a trusted folder", file=sys.stderr)
                return EXIT_ERROR
            print(f"No longer trusted: {where}")
            return EXIT_OK
        where = Path(os.path.abspath(os.path.expanduser(args.dir or os.getcwd())))
        if not where.is_dir():
            print(f"sigit: {where} is not a directory", file=sys.stderr)
            return EXIT_USAGE
        requests = project_requests(where)
        if not requests:
            print(f"{requests.root} asks for nothing that needs trust; nothing recorded.")
            return EXIT_OK
        record_trust(requests, config)
    except (UsageError, OSError) as exc:
        print(f"sigit: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(f"Trusted {requests.root} (recorded in {trust_file(config)}):")
    for line in requests.lines:
        print(f"  - {line}")
    return EXIT_OK
