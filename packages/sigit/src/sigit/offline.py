"""Offline mode: sigit makes no network request except to the configured model endpoint.

Air-gapped and regulated setups need to know, not hope, that nothing leaves the machine. One switch
(`--offline`, or `offline = true` in settings) turns off every way sigit itself reaches out: model
downloads and the hub (HF_HUB_OFFLINE for the whole process, so nothing in huggingface_hub asks
either), web tools (refused by the permission policy on their declared URL, with the reason), MCP
servers that are not local (stdio and loopback addresses only), and commands' network in the sandbox.
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

REASON = "offline mode is on (--offline or `offline = true` in settings)"
"""Why something that would use the network was not done; every refusal starts with it."""


def go_offline() -> None:
    """Make huggingface_hub and qwen_runtime's downloads refuse for the rest of this process."""
    os.environ["HF_HUB_OFFLINE"] = "1"


def is_loopback_url(url: str) -> bool:
    """Whether `url` names this machine: `localhost`, 127.0.0.0/8 or ::1 (a name that needs DNS is not)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host.lower().rstrip(".") == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


__all__ = ["REASON", "go_offline", "is_loopback_url"]
