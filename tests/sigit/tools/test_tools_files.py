"""read_file, create_directory, list_directory, create_file and delete_file on real files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from sigit.tools import ToolContext, ToolRegistry


async def test_read_file_returns_the_whole_text(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "a.py").write_text("print('hi')\n")
    out = await registry.invoke("read_file", {"path": "a.py"}, ctx)
    assert not out.is_error
    assert out.text == "print('hi')\n"
    assert out.locations == [ctx.cwd / "a.py"]


async def test_read_file_line_range_is_numbered(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await registry.invoke("read_file", {"path": "a.txt", "start_line": 3, "end_line": 5}, ctx)
    assert out.text.splitlines() == [
        "Lines 3-5 of 10 in a.txt:",
        "     3\tline 3",
        "     4\tline 4",
        "     5\tline 5",
    ]
    tail = await registry.invoke("read_file", {"path": "a.txt", "start_line": 9, "end_line": 99}, ctx)
    assert tail.text.startswith("Lines 9-10 of 10 in a.txt:")
    past = await registry.invoke("read_file", {"path": "a.txt", "start_line": 20}, ctx)
    assert past.is_error and "past the end" in past.text and "10 lines" in past.text


async def test_long_files_are_cut_at_10000_chars_with_a_way_to_read_on(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    (ctx.cwd / "big.txt").write_text("".join(f"{i:05d} " + "x" * 94 + "\n" for i in range(1000)))
    out = await registry.invoke("read_file", {"path": "big.txt"}, ctx)
    assert len(out.text) < 10_300
    assert "Truncated" in out.text and "start_line=100" in out.text
    more = await registry.invoke("read_file", {"path": "big.txt", "start_line": 100}, ctx)
    assert more.text.startswith("Lines 100-")
    assert "00099 " in more.text.splitlines()[1]
    assert "start_line=" in more.text.splitlines()[-1]


async def test_reading_a_missing_file_suggests_close_names(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "config.toml").write_text("")
    out = await registry.invoke("read_file", {"path": "confg.toml"}, ctx)
    assert out.is_error
    assert "not found: confg.toml" in out.text and "config.toml" in out.text
    deep = await registry.invoke("read_file", {"path": "no/such/dir/x.py"}, ctx)
    assert deep.is_error and "does not exist" in deep.text


async def test_reading_a_binary_file_is_a_clear_error(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    out = await registry.invoke("read_file", {"path": "img.png"}, ctx)
    assert out.is_error and "binary file" in out.text


async def test_reading_a_directory_is_a_clear_error(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "src").mkdir()
    out = await registry.invoke("read_file", {"path": "src"}, ctx)
    assert out.is_error and "is a directory" in out.text and "list_directory" in out.text


async def test_paths_outside_the_cwd_resolve_and_show_absolute(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    outside = ctx.cwd.parent / "outside.txt"
    outside.write_text("one\ntwo\n")
    out = await registry.invoke("read_file", {"path": "../outside.txt", "start_line": 1}, ctx)
    assert out.text.startswith(f"Lines 1-2 of 2 in {outside}:")
    assert out.locations == [outside]


async def test_latin1_files_are_read(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "old.txt").write_bytes("café\n".encode("latin-1"))
    out = await registry.invoke("read_file", {"path": "old.txt"}, ctx)
    assert out.text == "café\n"


async def test_create_directory_makes_parents(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("create_directory", {"path": "a/b/c"}, ctx)
    assert not out.is_error and (ctx.cwd / "a/b/c").is_dir()
    again = await registry.invoke("create_directory", {"path": "a/b/c"}, ctx)
    assert "already exists" in again.text
    (ctx.cwd / "f").write_text("")
    clash = await registry.invoke("create_directory", {"path": "f"}, ctx)
    assert clash.is_error and "is a file" in clash.text


async def test_list_directory_puts_directories_first(registry: ToolRegistry, ctx: ToolContext) -> None:
    for name in ("b.txt", "A.txt"):
        (ctx.cwd / name).write_text("")
    for name in ("zdir", "adir"):
        (ctx.cwd / name).mkdir()
    out = await registry.invoke("list_directory", {"path": "."}, ctx)
    assert out.text.splitlines() == ["[DIR] adir", "[DIR] zdir", "[FILE] A.txt", "[FILE] b.txt"]
    default = await registry.invoke("list_directory", {}, ctx)
    assert default.text == out.text
    empty = await registry.invoke("list_directory", {"path": "adir"}, ctx)
    assert "empty" in empty.text
    not_dir = await registry.invoke("list_directory", {"path": "b.txt"}, ctx)
    assert not_dir.is_error and "not a directory" in not_dir.text


async def test_create_file_writes_with_parents_and_a_diff(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("create_file", {"path": "pkg/mod.py", "content": "x = 1\ny = 2\n"}, ctx)
    assert not out.is_error
    assert (ctx.cwd / "pkg/mod.py").read_text() == "x = 1\ny = 2\n"
    assert out.diff is not None and "--- /dev/null" in out.diff and "+++ b/pkg/mod.py" in out.diff
    assert "+x = 1" in out.diff
    again = await registry.invoke("create_file", {"path": "pkg/mod.py", "content": ""}, ctx)
    assert again.is_error and "already exists" in again.text and "overwrite=true" in again.text
    assert (ctx.cwd / "pkg/mod.py").read_text() == "x = 1\ny = 2\n"


async def test_create_file_overwrite_rewrites_a_whole_file_with_its_diff(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    (ctx.cwd / "m.py").write_text("a = 1\nb = 2\n")
    out = await registry.invoke("create_file", {"path": "m.py", "content": "a = 1\nb = 3\n", "overwrite": True}, ctx)
    assert not out.is_error and out.text.startswith("Rewrote m.py")
    assert (ctx.cwd / "m.py").read_text() == "a = 1\nb = 3\n"
    assert out.diff is not None and "-b = 2" in out.diff and "+b = 3" in out.diff and " a = 1" in out.diff
    (ctx.cwd / "blob.bin").write_bytes(b"\x00\x01binary")
    refused = await registry.invoke("create_file", {"path": "blob.bin", "content": "x", "overwrite": True}, ctx)
    assert refused.is_error and (ctx.cwd / "blob.bin").read_bytes() == b"\x00\x01binary"


async def test_delete_file_removes_files_and_empty_dirs_only(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    (ctx.cwd / "gone.txt").write_text("bye\n")
    out = await registry.invoke("delete_file", {"path": "gone.txt"}, ctx)
    assert not out.is_error and not (ctx.cwd / "gone.txt").exists()
    assert out.diff is not None and "-bye" in out.diff and "+++ /dev/null" in out.diff
    (ctx.cwd / "full").mkdir()
    (ctx.cwd / "full/keep.txt").write_text("")
    refused = await registry.invoke("delete_file", {"path": "full"}, ctx)
    assert refused.is_error and "keep.txt" in refused.text and (ctx.cwd / "full/keep.txt").exists()
    (ctx.cwd / "empty").mkdir()
    assert not (await registry.invoke("delete_file", {"path": "empty"}, ctx)).is_error
    assert not (ctx.cwd / "empty").exists()
    missing = await registry.invoke("delete_file", {"path": "gone.txt"}, ctx)
    assert missing.is_error and "not found" in missing.text


async def test_read_file_on_an_image_returns_the_picture_to_a_model_that_can_see(
    registry: ToolRegistry, ctx: ToolContext, make_png: Callable[..., Path]
) -> None:
    shutil.copy(make_png(120, 80, seed=9), ctx.cwd / "shot.png")
    ctx.can_see = True
    out = await registry.invoke("read_file", {"path": "shot.png"}, ctx)
    assert not out.is_error and len(out.images) == 1
    assert out.images[0].read() == (ctx.cwd / "shot.png").read_bytes()
    assert out.text.startswith("shot.png is an image (120x80 PNG, ") and "attached for you to look at" in out.text


async def test_read_file_on_an_image_describes_it_to_a_model_that_cannot_see(
    registry: ToolRegistry, ctx: ToolContext, make_png: Callable[..., Path]
) -> None:
    shutil.copy(make_png(120, 80, seed=9), ctx.cwd / "shot.png")
    ctx.can_see = False
    out = await registry.invoke("read_file", {"path": "shot.png"}, ctx)
    assert not out.is_error and out.images == ()
    assert "120x80 PNG" in out.text and "This model cannot see images" in out.text
