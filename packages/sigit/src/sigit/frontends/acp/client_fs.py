"""File access for tools under ACP: through the editor when it offers fs, so edits land in its buffers
(unsaved changes included), and a recorder that keeps each file's text before and after a tool call
so the editor gets a real diff card instead of a re-parsed unified diff.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from ...fileio import check_regular
from ...tools.base import FileSystem, confine
from ...tools.confinement import Confinement


class FsClient(Protocol):
    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any: ...

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any: ...


class ClientFileSystem:
    """Reads and/or writes through the client's `fs/read_text_file` and `fs/write_text_file`."""

    def __init__(
        self, client: FsClient, session_id: str, local: FileSystem, *, can_read: bool, can_write: bool
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.local = local
        self.can_read = can_read
        self.can_write = can_write
        self.confinement: Confinement | None = None

    def confine(self, confinement: Confinement) -> None:
        """The session's confinement, for the local files and to judge what the editor is asked for."""
        self.confinement = confinement
        confine(self.local, confinement)

    async def read_text(self, path: Path) -> str:
        if not self.can_read:
            return await self.local.read_text(path)
        if self.confinement is not None:  # the editor reads by name: judge the place it names now
            await asyncio.to_thread(self.confinement.guard, path, writing=False)
        await asyncio.to_thread(check_regular, path)  # the editor is never asked to read a FIFO or device
        try:
            response = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        except Exception as exc:  # the client's error (RequestError): tools report OSError to the model
            if not path.exists():
                raise FileNotFoundError(2, "No such file or directory", str(path)) from None
            raise OSError(f"the editor could not read {path}: {exc}") from None
        return str(response.content)

    async def write_text(self, path: Path, text: str) -> None:
        if not self.can_write:
            await self.local.write_text(path, text)
            return
        if self.confinement is not None:
            await asyncio.to_thread(self.confinement.guard, path, writing=True)
        await asyncio.to_thread(check_regular, path)
        try:
            await self.client.write_text_file(session_id=self.session_id, path=str(path), content=text)
        except Exception as exc:
            raise OSError(f"the editor could not write {path}: {exc}") from None


class RecordingFileSystem:
    """Wraps a FileSystem and remembers, per path, the first text read and the last text written."""

    def __init__(self, inner: FileSystem) -> None:
        self.inner = inner
        self.before: dict[Path, str] = {}
        self.after: dict[Path, str] = {}

    def confine(self, confinement: Confinement) -> None:
        confine(self.inner, confinement)

    def reset(self) -> None:
        self.before.clear()
        self.after.clear()

    async def read_text(self, path: Path) -> str:
        text = await self.inner.read_text(path)
        self.before.setdefault(path, text)
        return text

    async def write_text(self, path: Path, text: str) -> None:
        await self.inner.write_text(path, text)
        self.after[path] = text
