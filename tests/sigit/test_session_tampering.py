"""Issue 35's third audit: a session file someone tampered with (nested past the JSON parser's depth,
wrong types, image references that traverse) is a SessionError naming the file when loaded, and is
skipped by the listing: loading never crashes and never reads outside the session's image folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from sigit.sessions import Session, SessionError, SessionStore


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions")


def _write(store: SessionStore, body: str) -> str:
    session = Session.create(store.root.parent, "m")
    store.save(session)
    path = store.path(session.id)
    path.write_text(path.read_text() + body)
    return session.id


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "\n",
        '{"role": "user", "content": ' + "[" * 100_000 + "\n",
        '{"role": "user", "content": "x", "images": [{"sha256": "a", "file": "../../../etc/passwd"}]}\n',
        '{"role": "assistant", "content": "x", "tool_calls": [{"id": 1, "name": [], "arguments": {}}]}\n',
        '{"role": 7}\n',
    ],
    ids=["deep-line", "deep-content", "image-traversal", "tool-call-types", "role-type"],
)
def test_a_tampered_session_is_a_session_error(store: SessionStore, body: str) -> None:
    session_id = _write(store, body)
    with pytest.raises(SessionError, match=session_id):
        store.load(session_id)


def test_a_header_nested_past_the_parsers_depth_is_skipped_by_the_listing(store: SessionStore) -> None:
    kept = _write(store, "")
    (store.root / "deep.jsonl").write_text("[" * 100_000 + "\n")
    assert [s.id for s in store.list()] == [kept]
    with pytest.raises(SessionError, match="deep"):
        store.load("deep")
