"""Session files: lossless round trip, and damaged files reported clearly without breaking the listing."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.types import AssistantMessage, ToolCall, ToolMessage, UserMessage
from sigit.sessions import Session, SessionError, SessionStore


def test_round_trip_keeps_every_message_and_lists_from_the_header(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = Session.create(tmp_path, "qwen3-8b")
    session.messages = [
        UserMessage("résumé ✓"),
        AssistantMessage("", tool_calls=(ToolCall("c1", "read_file", {"path": "a", "z": 1}),)),
        ToolMessage("c1", "contents", "read_file"),
    ]
    store.save(session)
    assert store.load(session.id).messages == session.messages
    [summary] = store.list(tmp_path)
    assert (summary.id, summary.title, summary.messages) == (session.id, "résumé ✓", 3)


@pytest.mark.parametrize(
    ("text", "message", "header_ok"),
    [
        ('{"format": "sigit.session", "cwd": "/x"}\n', "no 'id'", False),
        ("[1, 2]\n", "not a siGit session file", False),
        ('{"format": "sigit.session", "id": "a", "cwd": "/x"}\n[1]\n', "line 2 is not a JSON object", True),
        ('{"format": "sigit.session", "id": "a", "cwd": "/x"}\n{"role": "wizard", "content": ""}\n', "line 2", True),
        ('{"format": "sigit.session", "id": "a", "cwd": "/x", "todos": 5}\n', "malformed", False),
    ],
)
def test_damaged_files_are_clear_errors_and_skipped_by_the_listing(
    tmp_path: Path, text: str, message: str, header_ok: bool
) -> None:
    store = SessionStore(tmp_path / "sessions")
    good = Session.create(tmp_path)
    good.messages = [UserMessage("fine")]
    store.save(good)
    (store.root / "bad.jsonl").write_text(text)
    with pytest.raises(SessionError, match=message):
        store.load("bad")
    listed = {s.id for s in store.list()}
    # a damaged header is skipped; a good header over damaged messages is listed (loading it says why)
    assert listed == ({good.id, "a"} if header_ok else {good.id})
