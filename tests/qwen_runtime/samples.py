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
"""A small Python file to copy back with a change: what prompt lookup and other drafts feed on. Its own
text, not tune's `calibration.SOURCE`: some tests pin replies token for token on it. (With that text,
type hints added, one run in three of test_drafting_models failed under three workers: a runtime's draft
controller carried one test's rejected drafts into the next; `fresh_draft_history` there starts each
test afresh.)"""

READ_FILE = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}},
                                                  "required": ["path"]})
"""One plain tool, for requests that offer tools."""
