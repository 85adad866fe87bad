"""Issue 49 family 1: a folder swapped for a link to outside the workspace while the file tools write.

The permission policy judges the path and the tool acts on what its walk opened, so however the swap
falls, no byte (and no temporary) lands outside, and every call ends in a result, never an exception.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sigit.config.settings import Settings
from sigit.permissions import PermissionPolicy
from sigit.tools import ToolContext, default_registry
from sigit.tools.base import ToolOutput

from ..swapper import swap_forever

ROUNDS = 300


@pytest.fixture
def scene(tmp_path: Path) -> tuple[Path, Path]:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "d").mkdir(parents=True)
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    (work / "d" / "edit.txt").write_text("line 0\n")
    (outside / "edit.txt").write_text("line 0\n")  # the same name outside: an edit must not reach it
    (work / "l").symlink_to(outside)
    return work, outside


async def _call(policy: PermissionPolicy, ctx: ToolContext, name: str, args: dict[str, object]) -> ToolOutput:
    prepared = default_registry().prepare(name, args, ctx)
    assert not isinstance(prepared, ToolOutput), prepared.text
    decision = policy.decide(prepared)
    if decision.kind != "allow":
        return ToolOutput(decision.reason, True)
    return await prepared.tool.execute(prepared, ctx)


async def test_swapping_a_folder_for_a_link_lands_nothing_outside(scene: tuple[Path, Path], tmp_path: Path) -> None:
    work, outside = scene
    ctx = ToolContext(cwd=work)
    policy = PermissionPolicy(Settings(), work, "bypass", config_dir=tmp_path / "config")
    stop = threading.Event()
    swapper = threading.Thread(target=swap_forever, args=(str(work / "d"), str(work / "l"), stop))
    swapper.start()
    results: list[ToolOutput] = []
    try:
        for n in range(ROUNDS):
            results.append(await _call(policy, ctx, "create_file", {"path": f"d/new{n}.txt", "content": f"{n}\n"}))
            results.append(await _call(policy, ctx, "create_file",
                                       {"path": "d/same.txt", "content": f"{n}\n", "overwrite": True}))
            results.append(await _call(policy, ctx, "edit_file",
                                       {"path": "d/edit.txt", "old_text": "line", "new_text": "Line"}))
            results.append(await _call(policy, ctx, "edit_file",
                                       {"path": "d/edit.txt", "old_text": "Line", "new_text": "line"}))
            results.append(await _call(policy, ctx, "create_directory", {"path": f"d/dir{n}"}))
    finally:
        stop.set()
        swapper.join()
    assert sorted(p.name for p in outside.iterdir()) == ["edit.txt", "keep.txt"]
    assert (outside / "edit.txt").read_text() == "line 0\n"
    written = [r for r in results if not r.is_error]
    refused = [r for r in results if r.is_error]
    assert written, "no write went through: the test did not exercise the tools"
    inside = {p.name for folder in (work / "d", work / "l") if folder.is_dir() and not folder.is_symlink()
              for p in folder.iterdir()}
    assert any(name.startswith("new") for name in inside)
    assert not any(name.endswith(".tmp") for name in inside)
    for result in refused:  # each refusal says why, in words
        said = ("leads outside", "changed", "not found", "unchanged", "exists", "could not be resolved", "old_text")
        assert any(word in result.text for word in said), result.text


async def test_a_link_loop_is_refused_with_a_reason_not_a_traceback(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "loop").symlink_to("loop")
    ctx = ToolContext(cwd=work)
    policy = PermissionPolicy(Settings(), work, "bypass", config_dir=tmp_path / "config")
    for name, args in (("create_file", {"path": "loop/x.txt", "content": "x"}), ("read_file", {"path": "loop/x"}),
                       ("delete_file", {"path": "loop/x"}), ("list_directory", {"path": "loop"})):
        result = await _call(policy, ctx, name, args)
        assert result.is_error and result.text, (name, result.text)
