"""What a frontend chooses for the sessions it opens (a light module: the TUI imports it before first paint)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class HostOptions:
    model: str | None = None
    permission_mode: str | None = None
    allow_tools: Sequence[str] = ()
    deny_tools: Sequence[str] = ()
    add_dirs: Sequence[str] = ()
    """Directories the file tools may read besides the working directory (`--add-dir`)."""
    sandbox_mode: str | None = None
    """`--sandbox MODE`: read-only, workspace-write or off (None: the `[sandbox]` settings' mode)."""
    hidden_paths: tuple[Path, ...] = ()
    """Hidden from the session's commands by the sandbox (`sigit eval`: the tasks' checks and solutions)."""
    config_dir: Path | None = None
    trust: bool = False
    """`--trust`: the folder's project hooks, MCP servers, model... apply for this run (nothing recorded)."""
    max_rounds: int = 24
    thinking: bool | None = None
    max_tokens: int | None = None
    draft: str | None = None
    """`--draft SOURCE`: the draft source for a local model, over the `draft` setting (None: the setting)."""
    download: bool = False
    """`--download`: a model that is not cached may be downloaded (else only with `download = "auto"`)."""
    offline: bool = False
    """`--offline`: no network request but to the model's endpoint (see `Settings.offline`)."""
    runtime_options: dict[str, Any] = field(default_factory=dict)
    keep_alive: float | None = None
    """`--keep-alive`: seconds a local model stays loaded in its host (None: SIGIT_KEEP_ALIVE, else the setting)."""
    host_notice: Callable[[str], None] | None = None
    """Told, in one line, when the model host cannot be used and the model loads in this process (headless
    says it on stderr; None: the log only). One function for the process: the early load compares options."""
    prefill: bool = True
    """Evaluate ahead, while the user types, what the next turn starts with: the system prompt and tools
    when a session opens, the conversation as the next message will find it after each turn (kept on
    disk too, for a resumed session). False where the turn follows at once and nothing comes after it
    (`sigit -p`): the turn restores the longest saved state itself."""
    unload_on_close: bool = True
    """Free a model's memory when its last session closes. False where the process ends right after (a
    one-shot `sigit -p` run by the `sigit` command): the memory goes with the process, without llama.cpp
    first freeing its vocabulary and KV cache object by object (0.05-0.07 s of a warm start on Gemma)."""
    on_download: Callable[[str, int, int | None], None] | None = None
    """(model name, bytes done, total bytes) while a model downloads, from the loading thread;
    None leaves huggingface_hub's progress bar on stderr."""
