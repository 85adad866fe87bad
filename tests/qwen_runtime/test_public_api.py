"""The public surface of qwen_runtime is exactly what we mean to export, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import qwen_runtime


def test_exported_names_are_exactly_the_public_api() -> None:
    assert sorted(qwen_runtime.__all__) == sorted(
        name for name in dir(qwen_runtime) if not name.startswith("_") and name in qwen_runtime.__all__
    )
    for name in qwen_runtime.__all__:
        assert getattr(qwen_runtime, name) is not None, name
    assert {"Runtime", "ChatRequest", "load_runtime", "ReplyParser", "ToolSpec"} <= set(qwen_runtime.__all__)


def test_importing_the_package_loads_no_heavy_backend() -> None:
    code = (
        "import sys, qwen_runtime; "
        "print(','.join(m for m in ('torch', 'transformers', 'llama_cpp', 'llguidance') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_tool_call_format_templates_and_default_model_choice_are_public() -> None:
    assert {"ToolCallFormat", "load_template", "default_model_for"} <= set(qwen_runtime.__all__)
    assert qwen_runtime.ToolCallFormat.XML.value == "xml"
    assert "<function=" in qwen_runtime.load_template("qwen3.5")
