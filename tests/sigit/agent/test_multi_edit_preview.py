"""An approved multi_edit: its permission prompt reads the file through `ctx.fs` (an editor's buffer
under ACP), the run writes exactly what the prompt showed, and the edits are matched once per call
(a second time only when the file changed while the user was deciding)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sigit.tools.edit as edit_module
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.agent.events import AgentEvent, PermissionAsked, PermissionReply, ToolFinished
from sigit.app import SessionHost
from sigit.options import HostOptions

EDITS = [{"old_text": "alpha = 1", "new_text": "alpha = 10"}, {"old_text": "beta = 2", "new_text": "beta = 20"}]


class EditorBuffers:
    """An ACP-style file system: the editor's unsaved text, which differs from the disk."""

    def __init__(self, buffers: dict[Path, str]) -> None:
        self.buffers = buffers
        self.reads: list[Path] = []

    async def read_text(self, path: Path) -> str:
        self.reads.append(path)
        return self.buffers.get(path) or path.read_text()

    async def write_text(self, path: Path, text: str) -> None:
        self.buffers[path] = text


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `plan_edit` call's old_text, in order."""
    seen: list[str] = []
    real = edit_module.plan_edit

    def counting(content: str, old_text: str, new_text: str, replace_all: bool = False) -> Any:
        seen.append(old_text)
        return real(content, old_text, new_text, replace_all)

    monkeypatch.setattr(edit_module, "plan_edit", counting)
    return seen


async def run_multi_edit(
    tmp_path: Path, workdir: Path, fs: EditorBuffers, change_meanwhile: str | None = None
) -> tuple[list[AgentEvent], list[PermissionAsked]]:
    asked: list[PermissionAsked] = []

    async def approve(request: PermissionAsked) -> PermissionReply:
        asked.append(request)
        if change_meanwhile is not None:  # the user typed in the buffer while the prompt was open
            fs.buffers[workdir / "app.py"] = change_meanwhile
        return PermissionReply(True)

    call = {"name": "multi_edit", "arguments": {"path": "app.py", "edits": EDITS}}
    runtime = ScriptedRuntime([{"tool_calls": [call]}, "done"])
    host = SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=runtime)
    session = await host.open(workdir, approver=approve, fs=fs)
    try:
        events = [event async for event in session.prompt("bump both")]
    finally:
        await session.close()
    runtime.assert_consumed()
    return events, asked


async def test_the_prompt_shows_the_buffer_and_the_run_writes_it(tmp_path: Path, plans: list[str]) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "app.py").write_text("alpha = 1\n")  # on disk; `beta = 2` is only in the editor
    fs = EditorBuffers({workdir / "app.py": "alpha = 1\nbeta = 2\n"})
    events, asked = await run_multi_edit(tmp_path, workdir, fs)
    change = asked[0].change
    assert change is not None
    assert (change.old_text, change.new_text) == ("alpha = 1\nbeta = 2\n", "alpha = 10\nbeta = 20\n")
    assert asked[0].preview is not None and "+beta = 20" in asked[0].preview
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert not finished.is_error, finished.output
    assert fs.buffers[workdir / "app.py"] == "alpha = 10\nbeta = 20\n"
    assert (workdir / "app.py").read_text() == "alpha = 1\n"
    assert plans == ["alpha = 1", "beta = 2"]  # matched once, for the prompt; the run reused it
    assert fs.reads == [workdir / "app.py"] * 2  # the prompt's read, and the run's check that nothing changed


async def test_a_buffer_changed_during_the_prompt_is_matched_again(tmp_path: Path, plans: list[str]) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "app.py").write_text("alpha = 1\nbeta = 2\n")
    fs = EditorBuffers({})
    events, _ = await run_multi_edit(tmp_path, workdir, fs, change_meanwhile="# new\nalpha = 1\nbeta = 2\n")
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert not finished.is_error, finished.output
    assert fs.buffers[workdir / "app.py"] == "# new\nalpha = 10\nbeta = 20\n"  # the user's line is kept
    assert plans == ["alpha = 1", "beta = 2"] * 2
