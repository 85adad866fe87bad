"""Sessions on disk: one JSONL file each (a header line, then one history message a line).

Writes are atomic (a temporary file renamed over the old one), so a crash never leaves half a
session. The history is onde's exact message form, so a resumed session renders the same prompt.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from onde import ImageStore, Message, UserMessage

from sigit.errors import UsageError
from sigit.fileio import json_text, write_atomic

FORMAT = "sigit.session"
VERSION = 1


class SessionError(UsageError, ValueError):
    pass


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_session_id() -> str:
    return uuid.uuid4().hex[:16]


@dataclass
class Session:
    id: str
    cwd: Path
    model: str = ""
    title: str = ""
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    messages: list[Message] = field(default_factory=list)
    checkpoints: dict[str, Any] = field(default_factory=dict)
    todos: list[dict[str, str]] = field(default_factory=list)
    parent_id: str | None = None
    grants: list[str] = field(default_factory=list)
    """"Always allow for this session" rules, kept so that a resumed session does not ask again."""

    @classmethod
    def create(cls, cwd: Path, model: str = "") -> Session:
        return cls(id=new_session_id(), cwd=Path(cwd).resolve(), model=model)

    def default_title(self) -> str:
        for message in self.messages:
            if isinstance(message, UserMessage) and message.content.strip():
                first = message.content.strip().splitlines()[0]
                return first[:80]
        return "(empty session)"

    def header(self) -> dict[str, Any]:
        return {
            "type": "session",
            "format": FORMAT,
            "version": VERSION,
            "id": self.id,
            "cwd": str(self.cwd),
            "model": self.model,
            "title": self.title or self.default_title(),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "checkpoints": self.checkpoints,
            "todos": self.todos,
            "parent_id": self.parent_id,
            "grants": self.grants,
        }

    def to_jsonl(self, images: ImageStore | None = None) -> str:
        """The session as JSON lines; with `images`, pictures are copied there and kept by hash."""
        from onde.history import message_to_dict  # onde loads with the agent, not with the session list

        lines = [json_text(self.header())]
        for message in self.messages:
            lines.append(json_text({"type": "message", **message_to_dict(message, images)}))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_jsonl(cls, text: str, where: str = "session", images: ImageStore | None = None) -> Session:
        """Parse a session file; anything malformed is a SessionError naming the file and line."""
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise SessionError(f"{where}: empty session file")
        session = _header(lines[0], where)
        from onde.history import message_from_dict

        for number, line in enumerate(lines[1:], start=2):
            try:
                data = json.loads(line)
            except (json.JSONDecodeError, RecursionError) as exc:  # `[[[[...`: nested past the parser's depth
                raise SessionError(f"{where}: line {number} is not JSON: {str(exc)[:200]}") from None
            if not isinstance(data, dict):
                raise SessionError(f"{where}: line {number} is not a JSON object")
            fields = {k: v for k, v in data.items() if k != "type"}
            try:
                session.messages.append(message_from_dict(fields, f"{where} line {number}", images))
            except (ValueError, TypeError, KeyError, RecursionError) as exc:
                raise SessionError(str(exc)[:500] or f"{where} line {number}: malformed message") from None
        return session


def _header(line: str, where: str) -> Session:
    """The session described by a file's first line, without its messages."""
    try:
        head = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SessionError(f"{where}: line 1 is not JSON: {str(exc)[:200]}") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise SessionError(f"{where}: not a siGit session file (no {FORMAT!r} header)")
    for key in ("id", "cwd"):
        if not isinstance(head.get(key), str) or not head[key]:
            raise SessionError(f"{where}: the header has no {key!r}")
    checkpoints, todos, grants = head.get("checkpoints") or {}, head.get("todos") or [], head.get("grants") or []
    if not isinstance(checkpoints, dict) or not isinstance(todos, list) or not isinstance(grants, list):
        raise SessionError(f"{where}: the header's checkpoints, todos or grants are malformed")
    return Session(
        id=head["id"],
        cwd=Path(head["cwd"]),
        model=str(head.get("model", "")),
        title=str(head.get("title", "")),
        created_at=str(head.get("created_at", _now())),
        updated_at=str(head.get("updated_at", _now())),
        checkpoints=checkpoints,
        todos=[t for t in todos if isinstance(t, dict)],
        parent_id=head.get("parent_id"),
        grants=[str(g) for g in grants],
    )


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str
    cwd: Path
    model: str
    updated_at: str
    messages: int


_SESSION_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


class SessionStore:
    """The sessions folder (`<config dir>/sessions`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, session_id: str) -> Path:
        """The session's file; SessionError for an id that is not a plain name (an editor's or a flag's
        `../x`, a NUL, a control character, a name longer than a file system takes)."""
        if not _SESSION_ID.fullmatch(session_id):
            shown = session_id if len(session_id) <= 80 else session_id[:77] + "..."
            raise SessionError(f"bad session id {shown!r}: letters, digits, '.', '_' and '-' only, "
                               "not starting with '.', 128 at most")
        return self.root / f"{session_id}.jsonl"

    def images(self, session_id: str) -> ImageStore:
        """The session's image folder (`<id>.images` beside its file): pictures by content hash."""
        return ImageStore(self.root / f"{self.path(session_id).stem}.images")

    def save(self, session: Session) -> Path:
        session.updated_at = _now()
        if not session.title:
            session.title = session.default_title() if session.messages else ""
        self.root.mkdir(parents=True, exist_ok=True)
        target = self.path(session.id)
        write_atomic(target, session.to_jsonl(self.images(session.id)).encode("utf-8"))
        return target

    def load(self, session_id: str) -> Session:
        path = self.path(session_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            known = ", ".join(s.id for s in self.list()[:5]) or "none"
            raise SessionError(f"no session {session_id!r} in {self.root} (recent: {known})") from None
        return Session.from_jsonl(text, str(path), self.images(session_id))

    def list(self, cwd: Path | None = None) -> list[SessionSummary]:
        """Newest first; with `cwd`, only the sessions of that directory. Unreadable files are skipped."""
        out: list[SessionSummary] = []
        if not self.root.is_dir():
            return out
        wanted = Path(cwd).resolve() if cwd is not None else None
        for path in self.root.glob("*.jsonl"):
            try:  # the header line is enough for a listing; messages are only counted
                with path.open(encoding="utf-8") as handle:
                    session = _header(handle.readline(), str(path))
                    count = sum(1 for line in handle if line.strip())
            except (OSError, UnicodeDecodeError, SessionError):
                continue  # an unreadable file is skipped, never fatal to the listing
            if wanted is not None and session.cwd != wanted:
                continue
            out.append(SessionSummary(session.id, session.title or "(untitled)", session.cwd, session.model,
                                      session.updated_at, count))
        out.sort(key=lambda s: s.updated_at, reverse=True)
        return out

    def resolve(self, cwd: Path, *, resume: str | None, continue_last: bool, fork: bool) -> Session | None:
        """The saved session a frontend's --resume / --continue / --fork-session flags ask for (None: a new
        one). Blocking file I/O: call it from a thread in async code."""
        session = None
        if resume:
            session = self.load(resume)
        elif continue_last:
            session = self.latest(cwd)
            if session is None:
                raise SessionError(f"no saved session for {cwd} to continue")
        if session is not None and fork:
            session = self.fork(session.id)
        return session

    def latest(self, cwd: Path) -> Session | None:
        found = self.list(cwd)
        return self.load(found[0].id) if found else None

    def fork(self, session_id: str) -> Session:
        original = self.load(session_id)
        copy = Session(
            id=new_session_id(), cwd=original.cwd, model=original.model,
            title=f"{original.title} (fork)" if original.title else "", messages=list(original.messages),
            todos=list(original.todos), parent_id=original.id,
        )
        self.save(copy)
        return copy

    def delete(self, session_id: str) -> bool:
        path = self.path(session_id)
        shutil.rmtree(self.images(session_id).folder, ignore_errors=True)
        if path.exists():
            path.unlink()
            return True
        return False
