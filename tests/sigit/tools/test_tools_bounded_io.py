"""File tools read regular files only and never more than their limit: /dev/zero and FIFOs are
refused at once with the path and its kind, even when the path is swapped after the check."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from sigit.fileio import FileTooLargeError, NotRegularFileError, read_bounded, read_regular, write_atomic
from sigit.tools import ToolContext, ToolRegistry
from sigit.tools.base import LocalFileSystem


async def test_read_file_refuses_dev_zero(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "zero").symlink_to("/dev/zero")
    for path in ("/dev/zero", "zero"):
        out = await registry.invoke("read_file", {"path": path}, ctx)
        assert out.is_error
        assert "is a character device, not a regular file" in out.text and "zero" in out.text


async def test_read_file_refuses_a_fifo_without_waiting_for_a_writer(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    out = await registry.invoke("read_file", {"path": "pipe"}, ctx)
    assert out.is_error and "pipe is a FIFO (named pipe), not a regular file" in out.text


async def test_a_path_swapped_for_a_fifo_after_the_check_is_refused_at_open(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        await LocalFileSystem().read_text(tmp_path / "pipe")  # the tools' check skipped: the open decides


async def test_edits_and_rewrites_refuse_special_files(registry: ToolRegistry, ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    edit = await registry.invoke("edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"}, ctx)
    rewrite = await registry.invoke("create_file", {"path": "pipe", "content": "x", "overwrite": True}, ctx)
    assert edit.is_error and "FIFO" in edit.text
    assert rewrite.is_error and "FIFO" in rewrite.text


async def test_writing_to_a_fifo_is_refused_not_blocked(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        await LocalFileSystem().write_text(tmp_path / "pipe", "data")


def test_a_socket_is_named_as_such(tmp_path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "sock"))
        with pytest.raises(NotRegularFileError, match="is a socket"):
            read_regular(tmp_path / "sock", 100)
    finally:
        server.close()


def test_never_more_than_the_limit_plus_one_byte(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 5000)
    assert len(read_regular(tmp_path / "big", 1000)) == 1001
    assert len(read_regular(tmp_path / "big", 5000)) == 5000
    with pytest.raises(FileTooLargeError, match="larger than"):
        read_bounded(tmp_path / "big", 1000)


async def test_files_over_the_limit_are_refused_with_a_way_forward(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    with open(ctx.cwd / "huge.log", "wb") as handle:
        handle.truncate(9 * 1024 * 1024)  # sparse: 9 MiB of zeros, over the 8 MiB file tools read
    out = await registry.invoke("read_file", {"path": "huge.log"}, ctx)
    assert out.is_error and "larger than 8 MiB" in out.text and "search_files" in out.text


async def test_deleting_a_fifo_still_works(registry: ToolRegistry, ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    out = await registry.invoke("delete_file", {"path": "pipe"}, ctx)
    assert not out.is_error and not (ctx.cwd / "pipe").exists()


def test_atomic_writes_keep_the_mode_and_leave_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "settings.toml"
    target.write_text("old")
    target.chmod(0o640)
    write_atomic(target, b"new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    write_atomic(tmp_path / "fresh.jsonl", b"{}")
    assert stat.S_IMODE((tmp_path / "fresh.jsonl").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.jsonl", "settings.toml"]


async def test_acp_file_links_use_the_same_reader(tmp_path: Path) -> None:
    from sigit.frontends.acp.content import read_resource_link

    os.mkfifo(tmp_path / "pipe")
    assert "could not be read" in await read_resource_link("file:///dev/zero")
    note = await read_resource_link((tmp_path / "pipe").as_uri())
    assert "could not be read" in note and "FIFO (named pipe)" in note
    (tmp_path / "big.txt").write_text("y" * 300_000)
    assert "truncated at 262144 bytes" in await read_resource_link((tmp_path / "big.txt").as_uri())


async def test_search_refuses_a_fifo_and_walks_past_one(registry: ToolRegistry, ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    (ctx.cwd / "a.txt").write_text("needle\n")
    refused = await registry.invoke("search_files", {"pattern": "needle", "path": "pipe"}, ctx)
    assert refused.is_error and "FIFO" in refused.text
    found = await registry.invoke("search_files", {"pattern": "needle"}, ctx)
    assert not found.is_error and "a.txt" in found.text


def test_a_repository_cannot_hang_start_up_with_fifos(tmp_path: Path) -> None:
    """AGENTS.md, .sigit/settings.toml and .mcp.json come from the repository: FIFOs there are
    reported, not waited on."""
    from sigit.config.settings import load_settings
    from sigit.extensions.mcp_client import load_mcp_json
    from sigit.prompt.instructions import load_instructions

    (tmp_path / ".sigit").mkdir()
    for name in ("AGENTS.md", ".sigit/settings.toml", ".mcp.json"):
        os.mkfifo(tmp_path / name)
    assert load_instructions(tmp_path, tmp_path / "config").files == []
    warnings = load_settings(tmp_path, tmp_path / "config").warnings  # skipped with the reason, not fatal
    assert any("FIFO" in w for w in warnings)
    servers, warnings = load_mcp_json(tmp_path / ".mcp.json")
    assert servers == [] and "FIFO" in warnings[0]


async def test_the_editor_is_never_asked_to_read_or_write_a_fifo(tmp_path: Path) -> None:
    from sigit.frontends.acp.client_fs import ClientFileSystem

    class Editor:
        def __init__(self) -> None:
            self.asked: list[str] = []

        async def read_text_file(self, session_id: str, path: str, **kwargs: object) -> object:
            self.asked.append(path)
            raise AssertionError("asked to read")

        async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: object) -> object:
            self.asked.append(path)
            raise AssertionError("asked to write")

    os.mkfifo(tmp_path / "pipe")
    editor = Editor()
    fs = ClientFileSystem(editor, "s1", LocalFileSystem(), can_read=True, can_write=True)
    with pytest.raises(NotRegularFileError, match="FIFO"):
        await fs.read_text(tmp_path / "pipe")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        await fs.write_text(tmp_path / "pipe", "x")
    assert editor.asked == []


def test_a_kernel_file_that_says_it_is_regular_is_refused_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/proc/kmsg` and tracefs `trace_pipe` report S_IFREG but block on read: stand in with a FIFO
    that has a writer and no data, whose descriptor claims to be a regular file."""
    fifo = tmp_path / "kmsg"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    real_fstat = os.fstat

    def fstat_says_regular(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        fields = list(info)
        fields[0] = stat.S_IFREG | 0o400
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", fstat_says_regular)
    try:
        with pytest.raises(NotRegularFileError, match="would wait"):
            read_regular(fifo, 100)
    finally:
        os.close(writer)
        os.close(reader)


def test_atomic_writes_go_through_a_symlink_and_keep_it(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("old")
    (tmp_path / "real.toml").chmod(0o640)
    (tmp_path / "settings.toml").symlink_to("real.toml")
    write_atomic(tmp_path / "settings.toml", b"new")
    assert (tmp_path / "settings.toml").is_symlink()
    assert (tmp_path / "real.toml").read_text() == "new"
    assert stat.S_IMODE((tmp_path / "real.toml").stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.toml", "settings.toml"]


_WRITE_OVER_THE_SIZE_LIMIT = """
import asyncio, resource, signal, sys
from pathlib import Path
from sigit.tools.base import LocalFileSystem
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
try:
    asyncio.run(LocalFileSystem().write_text(Path(sys.argv[1]), "y" * 10000))
except OSError as exc:
    print(exc.errno)
"""


def test_a_write_that_fails_part_way_leaves_the_old_file_whole(tmp_path: Path) -> None:
    """As with a full disk: `ulimit -f` makes the write fail after 4 KiB."""
    import errno
    import subprocess
    import sys

    target = tmp_path / "main.py"
    target.write_text("x" * 1000)
    done = subprocess.run([sys.executable, "-c", _WRITE_OVER_THE_SIZE_LIMIT, str(target)],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == str(errno.EFBIG)
    assert target.read_text() == "x" * 1000
    assert [p.name for p in tmp_path.iterdir()] == ["main.py"]


async def test_file_tools_write_through_symlinks_and_keep_the_mode(tmp_path: Path) -> None:
    (tmp_path / "real.sh").write_text("old")
    (tmp_path / "real.sh").chmod(0o750)
    (tmp_path / "link.sh").symlink_to("real.sh")
    await LocalFileSystem().write_text(tmp_path / "link.sh", "new")
    assert (tmp_path / "link.sh").is_symlink() and (tmp_path / "real.sh").read_text() == "new"
    assert stat.S_IMODE((tmp_path / "real.sh").stat().st_mode) == 0o750


async def test_a_hard_linked_file_gets_its_own_copy_and_the_other_name_keeps_its_content(
    registry: ToolRegistry, ctx: ToolContext, tmp_path: Path
) -> None:
    """Issue 28 finding 4: uv builds `.venv` from hard links into its cache, shared with other projects:
    an edit in the workspace must not change the file under its other name."""
    cache = tmp_path / "uv-cache"
    cache.mkdir()
    (cache / "mod.py").write_text("x = 1\n")
    (ctx.cwd / ".venv").mkdir()
    os.link(cache / "mod.py", ctx.cwd / ".venv" / "mod.py")
    out = await registry.invoke("edit_file", {"path": ".venv/mod.py", "old_text": "x = 1",
                                              "new_text": "x = 2"}, ctx)
    assert not out.is_error, out.text
    assert (ctx.cwd / ".venv" / "mod.py").read_text() == "x = 2\n"
    assert (cache / "mod.py").read_text() == "x = 1\n"
    out = await registry.invoke("create_file", {"path": ".venv/mod.py", "content": "y\n"}, ctx)
    assert (cache / "mod.py").read_text() == "x = 1\n"
    assert (ctx.cwd / ".venv" / "mod.py").stat().st_nlink == 1

