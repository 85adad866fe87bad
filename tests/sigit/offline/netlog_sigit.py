"""`sigit` with every network attempt of its own process recorded (CPython audit events).

A connection attempt is recorded before the kernel sees it, so a test counts what sigit *tried*, not
only what reached somewhere: `socket.connect`, `socket.sendto`/`sendmsg`, and name lookups
(`socket.getaddrinfo`, `socket.gethostbyname`). One JSON line per event, to $SIGIT_NETLOG.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_LOG = os.environ["SIGIT_NETLOG"]
_EVENTS = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
           "socket.gethostbyaddr"}


def _record(event: str, args: tuple[Any, ...]) -> None:
    if event not in _EVENTS:
        return
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        sock, address = args[0], args[1]
        family = getattr(sock, "family", None)
        entry = {"event": event, "family": int(family) if family is not None else None, "address": repr(address)}
    else:
        entry = {"event": event, "address": repr(args[0])}
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")


sys.addaudithook(_record)

from sigit.cli import main  # noqa: E402  (after the hook: imports may open sockets too)

sys.exit(main())
