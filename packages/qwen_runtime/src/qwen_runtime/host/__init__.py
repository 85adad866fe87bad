"""Model hosts: a GGUF kept loaded between processes, as Ollama's `keep_alive` keeps one.

`load_runtime(name, keep_alive=SECONDS)` reaches the host for that model file and those load settings
(`client.open_hosted`), starting it on first use; the host (`server`, run as `python -m qwen_runtime.host`)
serves the runtime's own requests and events over a unix socket private to the user (`places`, `wire`)
and exits after `keep_alive` seconds without a client. A second process then pays for its own start and
the new tokens, not for loading the model, and the host's prompt cache keeps the shared prefix warm.
"""

from __future__ import annotations

from .duration import parse_keep_alive

__all__ = ["parse_keep_alive"]
