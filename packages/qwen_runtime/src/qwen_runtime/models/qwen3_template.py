"""Qwen 3's own chat template (hybrid thinking models), verbatim from Qwen3's tokenizer_config.json.

The text lives in `templates/qwen3.jinja` with the other Qwen templates; this name stays for the
code that imports it.
"""

from __future__ import annotations

from .templates import load_template

QWEN3_CHAT_TEMPLATE: str = load_template("qwen3")
