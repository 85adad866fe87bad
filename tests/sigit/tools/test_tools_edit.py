"""edit_file and multi_edit on real files: diffs, line endings, encodings, all-or-nothing."""

from __future__ import annotations

from sigit.tools import ToolContext, ToolRegistry


async def test_edit_file_writes_and_returns_a_diff(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "m.py").write_text("def f():\n    return 1\n")
    out = await registry.invoke(
        "edit_file", {"path": "m.py", "old_text": "return 1", "new_text": "return 2"}, ctx
    )
    assert not out.is_error, out.text
    assert (ctx.cwd / "m.py").read_text() == "def f():\n    return 2\n"
    assert "1 replacement at line 2" in out.text
    assert out.diff is not None and "-    return 1" in out.diff and "+    return 2" in out.diff
    assert out.locations == [ctx.cwd / "m.py"]


async def test_a_tolerant_match_is_reported(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "m.py").write_text("class A:\n    def f(self):\n        return 1\n")
    out = await registry.invoke(
        "edit_file",
        {"path": "m.py", "old_text": "def f(self):\n    return 1", "new_text": "def f(self):\n    return 2"},
        ctx,
    )
    assert "ignoring indentation" in out.text
    assert (ctx.cwd / "m.py").read_text() == "class A:\n    def f(self):\n        return 2\n"


async def test_crlf_line_endings_are_preserved(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = await registry.invoke(
        "edit_file", {"path": "w.txt", "old_text": "two\nthree", "new_text": "2\n3\n3.5"}, ctx
    )
    assert not out.is_error, out.text
    assert (ctx.cwd / "w.txt").read_bytes() == b"one\r\n2\r\n3\r\n3.5\r\n"


async def test_encoding_and_bom_are_preserved(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "l1.txt").write_bytes("naïve café\n".encode("latin-1"))
    await registry.invoke("edit_file", {"path": "l1.txt", "old_text": "café", "new_text": "thé"}, ctx)
    assert (ctx.cwd / "l1.txt").read_bytes() == "naïve thé\n".encode("latin-1")
    (ctx.cwd / "bom.txt").write_bytes(b"\xef\xbb\xbfkey = 1\n")
    await registry.invoke("edit_file", {"path": "bom.txt", "old_text": "1", "new_text": "2"}, ctx)
    assert (ctx.cwd / "bom.txt").read_bytes() == b"\xef\xbb\xbfkey = 2\n"


async def test_edit_errors_name_the_file_and_change_nothing(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "m.py").write_text("a = 1\na = 1\n")
    out = await registry.invoke("edit_file", {"path": "m.py", "old_text": "a = 1", "new_text": "b"}, ctx)
    assert out.is_error and "edit_file on m.py" in out.text and "2 times" in out.text
    assert (ctx.cwd / "m.py").read_text() == "a = 1\na = 1\n"
    missing = await registry.invoke("edit_file", {"path": "n.py", "old_text": "a", "new_text": "b"}, ctx)
    assert missing.is_error and "not found" in missing.text and "m.py" in missing.text


async def test_multi_edit_applies_in_order(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "m.py").write_text("x = 1\ny = 2\n")
    edits = [{"old_text": "x = 1", "new_text": "x = 10"}, {"old_text": "x = 10\ny", "new_text": "x = 10\nz"}]
    out = await registry.invoke("multi_edit", {"path": "m.py", "edits": edits}, ctx)
    assert not out.is_error, out.text
    assert (ctx.cwd / "m.py").read_text() == "x = 10\nz = 2\n"
    assert "2 edits" in out.text and out.diff is not None


async def test_multi_edit_is_all_or_nothing(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "m.py").write_text("x = 1\ny = 2\n")
    edits = [{"old_text": "x = 1", "new_text": "x = 10"}, {"old_text": "nope", "new_text": "q"}]
    out = await registry.invoke("multi_edit", {"path": "m.py", "edits": edits}, ctx)
    assert out.is_error and "edit 2 of 2 failed" in out.text and "no edit was written" in out.text
    assert (ctx.cwd / "m.py").read_text() == "x = 1\ny = 2\n"


async def test_multi_edit_accepts_edits_sent_as_a_json_string(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    (ctx.cwd / "m.py").write_text("x = 1\n")
    out = await registry.invoke(
        "multi_edit", {"path": "m.py", "edits": '[{"old_text": "1", "new_text": "2"}]'}, ctx
    )
    assert not out.is_error and (ctx.cwd / "m.py").read_text() == "x = 2\n"
    empty = await registry.invoke("multi_edit", {"path": "m.py", "edits": []}, ctx)
    assert empty.is_error and "`edits`" in empty.text
