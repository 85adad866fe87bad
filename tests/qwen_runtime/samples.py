"""What several qwen_runtime tests send a model: one definition each."""

from __future__ import annotations

from qwen_runtime.backends.llamacpp.calibration import calc_file
from qwen_runtime.types import ToolSpec

CALC = calc_file(hints=False)
"""calc.py without type hints: what prompt lookup and other drafts feed on in these tests (tune measures
on the typed one, `calibration.SOURCE`). Some tests pin replies token for token on this text. (With the
typed one, one run in three of test_drafting_models failed under three workers: a runtime's draft
controller carried one test's rejected drafts into the next; `fresh_draft_history` there starts each
test afresh.)"""

READ_FILE = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}},
                                                  "required": ["path"]})
"""One plain tool, for requests that offer tools."""
