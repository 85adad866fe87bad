import json
from pathlib import Path

import pytest
from sigit.checkpoints import CheckpointError, CheckpointStore, paths_touched
from sigit.tools import ToolContext, default_registry
from sigit.tools.base import PreparedCall

REGISTRY = default_registry()
FILLER: dict[str, object] = {
    "old_text": "a",
    "new_text": "b",
    "content": "",
    "edits": [{"old_text": "a", "new_text": "b"}],
}


def touched(tool: str, args: dict[str, object], cwd: Path) -> list[Path]:
    """The paths the call declares it changes, as the agent loop snapshots them."""
    found = REGISTRY.get(tool)
    assert found is not None
    call = found.prepare(
        {**{k: v for k, v in FILLER.items() if k in found.params.model_fields}, **args}, ToolContext(cwd=cwd)
    )
    assert isinstance(call, PreparedCall), call
    return paths_touched(call.subjects)


def touch_all(store: CheckpointStore, tool: str, args: dict[str, str], cwd: Path) -> None:
    for path in touched(tool, args, cwd):
        store.snapshot(path)


def test_rewind_restores_an_edited_file(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("original\n")
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    touch_all(store, "edit_file", {"path": "a.py"}, tmp_path)
    target.write_text("first edit\n")
    store.snapshot(target)  # a second snapshot in the same turn keeps the original
    target.write_text("second edit\n")
    assert store.rewind_last_turn() == ["restored: a.py"]
    assert target.read_text() == "original\n"


def test_rewind_deletes_created_file_and_its_new_directories(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    paths = touched("create_file", {"path": "new/deep/f.txt"}, tmp_path)
    assert paths == [tmp_path / "new", tmp_path / "new" / "deep", tmp_path / "new" / "deep" / "f.txt"]
    for path in paths:
        store.snapshot(path)
    (tmp_path / "new" / "deep").mkdir(parents=True)
    (tmp_path / "new" / "deep" / "f.txt").write_text("hi")
    assert store.rewind_last_turn() == [
        "deleted new file: new/deep/f.txt",
        "removed new directory: new/deep",
        "removed new directory: new",
    ]
    assert not (tmp_path / "new").exists()


def test_rewind_recreates_a_deleted_file_with_its_mode(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    touch_all(store, "delete_file", {"path": str(script)}, tmp_path)
    script.unlink()
    assert store.rewind_last_turn() == ["recreated deleted file: run.sh"]
    assert script.read_text() == "#!/bin/sh\n"
    assert script.stat().st_mode & 0o777 == 0o755


def test_rewind_recreates_a_deleted_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    touch_all(store, "delete_file", {"path": "empty"}, tmp_path)
    (tmp_path / "empty").rmdir()
    assert store.rewind_last_turn() == ["recreated directory: empty"]
    assert (tmp_path / "empty").is_dir()


def test_only_the_last_turn_with_changes_is_rewound(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("v1")
    store = CheckpointStore(tmp_path)
    for version in ("v2", "v3"):
        store.begin_turn()
        store.snapshot(target)
        target.write_text(version)
    store.begin_turn()  # a turn that only read files
    assert store.turn_count == 2
    assert store.rewind_last_turn() == ["restored: a.txt"]
    assert target.read_text() == "v2"
    store.rewind_last_turn()
    assert target.read_text() == "v1"
    assert store.rewind_last_turn() == []


def test_kept_directory_that_gained_files(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    touch_all(store, "create_directory", {"path": "d"}, tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "user.txt").write_text("x")
    assert store.rewind_last_turn() == ["kept new directory (not empty): d"]


def test_json_round_trip_is_binary_safe(tmp_path: Path) -> None:
    text_file = tmp_path / "t.txt"
    text_file.write_text("héllo\n")
    blob = tmp_path / "b.bin"
    blob.write_bytes(b"\x00\xff\xfe binary")
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    for path in (text_file, blob, tmp_path / "new.txt"):
        store.snapshot(path)
    data = json.loads(json.dumps(store.to_json()))
    [turn] = data["turns"]
    assert turn[0]["text"] == "héllo\n" and "base64" in turn[1] and turn[2]["kind"] == "absent"
    text_file.write_text("changed")
    blob.write_bytes(b"changed")
    (tmp_path / "new.txt").write_text("created")
    restored = CheckpointStore.from_json(data, tmp_path)
    assert len(restored.rewind_last_turn()) == 3
    assert text_file.read_text() == "héllo\n"
    assert blob.read_bytes() == b"\x00\xff\xfe binary"
    assert not (tmp_path / "new.txt").exists()


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"version": 99, "turns": []}, "version 1"),
        ({"version": 1, "turns": {}}, "`turns` must be a list"),
        ({"version": 1, "turns": [[{"kind": "file"}]]}, "string `path`"),
        ({"version": 1, "turns": [[{"path": "/x", "kind": "weird"}]]}, "unknown entry kind"),
        ({"version": 1, "turns": [[{"path": "/x", "kind": "file"}]]}, "needs `text` or `base64`"),
        ({"version": 1, "turns": [[{"path": "/x", "kind": "file", "base64": "!!"}]]}, "not valid base64"),
    ],
)
def test_bad_checkpoint_data_is_a_clear_error(data: object, fragment: str) -> None:
    with pytest.raises(CheckpointError, match="checkpoints") as info:
        CheckpointStore.from_json(data)
    assert fragment in str(info.value)


def test_commands_and_read_tools_touch_no_paths(tmp_path: Path) -> None:
    assert touched("run_command", {"command": "rm -rf x"}, tmp_path) == []
    assert touched("read_file", {"path": "a"}, tmp_path) == []
    assert touched("multi_edit", {"path": "../x"}, tmp_path / "w") == [tmp_path / "x"]
    assert touched("edit_file", {"path": "./src/../a.py"}, tmp_path) == [tmp_path / "a.py"]


def test_a_snapshot_of_a_fifo_or_device_neither_blocks_nor_reads_forever(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "zero").symlink_to("/dev/zero")
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    touch_all(store, "edit_file", {"path": "pipe"}, tmp_path)
    touch_all(store, "edit_file", {"path": "zero"}, tmp_path)
    assert sorted(store.rewind_last_turn()) == [
        "not restored (could not be read when saved): pipe",
        "not restored (could not be read when saved): zero",
    ]


def test_turn_diff_shows_what_the_turn_changed_and_nothing_else(tmp_path: Path) -> None:
    """`sigit mcp`'s run_task answers with this diff: edited, created and deleted files, none unchanged."""
    (tmp_path / "edited.py").write_text("one\ntwo\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "same.txt").write_text("same\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01")
    store = CheckpointStore(tmp_path)
    store.begin_turn()
    assert store.turn_diff() == ""  # nothing snapshotted yet
    for name in ("edited.py", "gone.txt", "same.txt", "new/made.txt", "blob.bin"):
        store.snapshot(tmp_path / name)
    (tmp_path / "edited.py").write_text("one\n2\n")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "made.txt").write_text("no newline")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x02")
    diff = store.turn_diff()
    assert "--- a/edited.py\n+++ b/edited.py\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n" in diff
    assert "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" in diff
    assert "--- /dev/null\n+++ b/new/made.txt\n@@ -0,0 +1 @@\n+no newline\n\\ No newline at end of file\n" in diff
    assert "Binary files a/blob.bin and b/blob.bin differ\n" in diff
    assert "same.txt" not in diff
    store.begin_turn()  # the next turn changed nothing: its diff is empty, not the last one's
    assert store.turn_diff() == ""
