"""The scripts a hook's or an MCP server's command runs from the project, by content.

A trusted project's hook runs outside the sandbox, and so does an MCP server it starts: what they run is
not only the command line the trust question showed but the files inside the project it names
(`./check.sh`, `sh scripts/lint.sh`, `python tools/server.py`), which the model or a pull can rewrite.
Trust records their digests with the settings (`trust.project_requests`), so a changed script makes the
folder ask again; a session pins them when it starts (`extensions.hooks`), so one changed during the
session is not run.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sigit.fileio import read_bounded

MAX_SCRIPT_BYTES = 8 * 1024 * 1024


def named_files(command: str, cwd: Path) -> dict[Path, str | None]:
    """The files inside `cwd` a command line names, with a digest of each (None: unreadable)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return {}
    return words_named_files(words, cwd)


SCRIPT_SUFFIXES = frozenset({".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl",
                             ".php", ".lua", ".ps1", ".jar"})
"""Files a word names that an interpreter would run (besides the command word and executable files)."""
_REDIRECT = re.compile(r"^\d*(>>?|<|&>|>&|<<<?)")


def words_named_files(words: Iterable[str], cwd: Path) -> dict[Path, str | None]:
    """The same for a command already split into words (an MCP server's `command` and `args`): the
    program itself and the scripts it is given (an executable, or a file with a script's suffix), not
    the data files it reads or the files its output is redirected to (a hook appending to a log)."""
    root = Path(os.path.realpath(cwd))
    found: dict[Path, str | None] = {}
    after_redirect = False
    first = True
    for word in words:
        if not isinstance(word, str) or not word:
            continue
        if word in (";", "&&", "||", "|", "&"):  # the next word runs a command again
            first = True
            continue
        if _REDIRECT.match(word):
            after_redirect = not _REDIRECT.sub("", word)  # `>> log` names its target next; `>>log` in itself
            continue
        if after_redirect:
            after_redirect = False
            continue
        command_word, first = first and "=" not in word, first and "=" in word  # `VAR=x cmd`: cmd is first
        path = Path(os.path.realpath(cwd / os.path.expanduser(word)))
        if not (path != root and root in path.parents and os.path.isfile(path)):
            continue
        if command_word or path.suffix.lower() in SCRIPT_SUFFIXES or os.access(path, os.X_OK):
            try:
                found[path] = hashlib.sha256(read_bounded(path, MAX_SCRIPT_BYTES)).hexdigest()
            except OSError:
                found[path] = None
    return found


def project_scripts(gated: Mapping[str, Any], mcp_json: Mapping[str, Any] | None, root: Path) -> dict[str, str]:
    """Every project file the gated settings' hooks and MCP servers and `.mcp.json`'s servers name, relative
    to `root`, with its digest ("unreadable" where it cannot be read)."""
    found: dict[Path, str | None] = {}
    hooks = gated.get("hooks")
    for entries in hooks.values() if isinstance(hooks, Mapping) else ():
        for entry in entries if isinstance(entries, list) else ():
            command = entry.get("command") if isinstance(entry, Mapping) else None
            if isinstance(command, str):
                found.update(named_files(command, root))
    mcp = gated.get("mcp")
    servers: list[Any] = []
    if isinstance(mcp, Mapping) and isinstance(mcp.get("servers"), Mapping):
        servers += list(mcp["servers"].values())
    if isinstance(mcp_json, Mapping) and isinstance(mcp_json.get("mcpServers"), Mapping):
        servers += list(mcp_json["mcpServers"].values())
    for server in servers:
        if not isinstance(server, Mapping):
            continue
        command, args = server.get("command"), server.get("args")
        words = [command] if isinstance(command, str) else []
        words += [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
        found.update(words_named_files(words, root))
    real_root = Path(os.path.realpath(root))
    return {str(path.relative_to(real_root)): digest or "unreadable" for path, digest in sorted(found.items())}
