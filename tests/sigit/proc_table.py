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


def alive_with(token: str, program: str | None = None) -> list[int]:
    """Live (not zombie) processes whose command line holds `token`; with `program`, only those running
    it (the last part of argv[0]), not a shell or launcher whose line names the token before it execs.

    A process in the middle of an exec has an empty command line in /proc for an instant (the new
    program's arguments are not laid out yet), so it holds no token then: a claim that something is
    alive is made of a process that will not exec again (`started`)."""
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
        if token.encode() not in cmdline or state == b"Z":
            continue
        if program is None or cmdline.split(b"\0", 1)[0].rsplit(b"/", 1)[-1] == program.encode():
            found.append(int(name))
    return found


async def started(token: str, count: int = 1, program: str | None = "sleep") -> None:
    """Wait until `count` processes running `program` (None: any) hold `token`: on the command, never on
    the clock. The command's own shell (`bash -c "setsid sleep T &"`) and `setsid` hold the token before
    the sleeper runs, and each exec on the way blanks the line for an instant: waiting for them only, a
    check right after could find nothing while the sleeper is on its way. The sleeper execs no more."""
    while len(alive_with(token, program)) < count:
        await asyncio.sleep(0.01)
