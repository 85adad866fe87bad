"""What an attempt's agent may do in its copy: the file tools a task may need (deleting included), and
nothing outside the copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.eval import EvalSetting, Task


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


async def test_delete_file_works_inside_the_copy_and_nowhere_else(eval_run: Any, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    task = Task(
        id="drop-old",
        family="other",
        language="shell",
        prompt="Delete old.txt, it is obsolete.",
        check=("sh", "-c", "test ! -e old.txt && test -e keep.txt"),
        repo={"old.txt": b"obsolete\n", "keep.txt": b"kept\n"},
        check_files={},
    )
    turns: list[Any] = [call("delete_file", path="old.txt"), call("delete_file", path=str(outside)), "Deleted old.txt."]
    [result] = await eval_run([task], [EvalSetting("s", runtime=ScriptedRuntime(turns))])
    assert result.outcome == "solved", result.detail
    assert result.edits_attempted == 2 and result.edits_landed == 1  # the one outside was refused
    assert outside.read_text() == "keep me"
    assert result.changed_files == ("old.txt",)
