"""Finding a test's processes from outside: by a token in their command line, not by a pid they print.

A command confined by the sandbox runs in a PID namespace of its own, so the `$$` and `$!` it prints
are its namespace's numbers, not this process's. A `sleep` for a length no other process uses
(`token()`) is found in /proc whatever namespace it runs in.
"""

from __future__ import annotations

import asyncio
import os
import uuid


def token() -> str:
    """A sleep length no other process uses, so the test can find its sleeper by its command line."""
    return f"300.{uuid.uuid4().int % 10**9:09d}"


def alive_with(token: str) -> list[int]:
    """Live (not zombie) processes whose command line holds `token`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state != b"Z":
            found.append(int(name))
    return found


async def started(token: str, count: int = 1) -> None:
    """Wait until `count` processes hold `token` (on the command, never on the clock)."""
    while len(alive_with(token)) < count:
        await asyncio.sleep(0.01)
