"""What several qwen_runtime tests send a model: one definition each."""

from __future__ import annotations

from qwen_runtime.types import ToolSpec

CALC = "".join(
    f'def {name}(a, b):\n    """{doc}"""\n    return a {op} b\n\n\n'
    for name, doc, op in (
        ("add", "The sum of a and b.", "+"),
        ("sub", "The difference of a and b.", "-"),
        ("mul", "The product of a and b.", "*"),
        ("div", "The quotient of a and b.", "/"),
    )
)
"""A small Python file to copy back with a change: what prompt lookup and other drafts feed on. The
tests' replies are pinned token for token on this text (with tune's `calibration.SOURCE` in its place, type
hints added, one run in six of test_drafting_models failed), so it stays its own."""

READ_FILE = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}},
                                                  "required": ["path"]})
"""One plain tool, for requests that offer tools."""
