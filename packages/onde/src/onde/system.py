"""What this machine's inference can use: the llama.cpp build, the model hub and the local cache.

For diagnostics (`sigit doctor`); each call is cheap except `llama_build` (loads llama.cpp once)
and `probe_hub` (one request, bounded by its timeout). `running_hosts` lists the model hosts that keep
models loaded between processes, `parse_keep_alive` reads the duration they stay.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from qwen_runtime.backends.llamacpp.build import LlamaBuild
from qwen_runtime.backends.llamacpp.build import llama_build as _llama_build
from qwen_runtime.models.download import hub_cache_dir, hub_endpoint, is_offline
from qwen_runtime.models.registry import human_size
from qwen_runtime.network import HubProbe, probe

if TYPE_CHECKING:
    from qwen_runtime.host.client import HostInfo

__all__ = [
    "HubProbe",
    "LlamaBuild",
    "cache_dir",
    "hub_endpoint",
    "hub_offline",
    "human_size",
    "llama_build",
    "parse_keep_alive",
    "probe_hub",
    "running_hosts",
]


def llama_build() -> LlamaBuild:
    """The installed llama.cpp: version, system info (CPU features), GPU offload. Raises
    `qwen_runtime.BackendUnavailable` when llama-cpp-python cannot be imported."""
    return _llama_build()


def hub_offline() -> bool:
    """HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is set: nothing will be downloaded."""
    return is_offline()


def probe_hub(timeout: float = 3.0) -> HubProbe:
    """One request to the hub (HF_ENDPOINT respected), answered within `timeout` seconds."""
    endpoint = hub_endpoint()
    return probe(endpoint + "/", timeout=timeout, endpoint=endpoint)


def parse_keep_alive(value: str | float | int) -> float:
    """Seconds from a keep-alive duration ("5m", "90s", "1h", 0); ValueError naming the forms otherwise."""
    from qwen_runtime.host import parse_keep_alive as parse

    return parse(value)


def running_hosts() -> list[HostInfo]:
    """This user's model hosts that answer now (model, pid, idle time, socket), for `sigit doctor`."""
    from qwen_runtime.host.client import running_hosts as hosts

    return hosts()


def cache_dir() -> Path:
    """Where models are cached: the Hugging Face hub cache."""
    return hub_cache_dir()
