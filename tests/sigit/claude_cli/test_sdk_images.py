"""The Python Claude Agent SDK sends an image block in a user message (Claude's base64 format): sigit
passes it to the model with the text, keeps it in the session by hash, and a broken block is an error
result, not a crash."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ResultMessage, query

from .conftest import MakeOptions

pytestmark = pytest.mark.slow


def _message(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": None}


async def _one(message: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
    yield message


async def test_query_with_an_image_block_reaches_the_model_and_the_session(
    workdir: Path, sdk_options: MakeOptions, make_png: Callable[..., Path]
) -> None:
    png = make_png(40, 30, seed=11).read_bytes()
    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(png).decode()}}
    options = sdk_options([{"text": "A small noisy picture."}])
    found = [m async for m in query(prompt=_one(_message([{"type": "text", "text": "what is this?"}, block])),
                                    options=options)]
    result = found[-1]
    assert isinstance(result, ResultMessage) and not result.is_error and result.result == "A small noisy picture."
    sessions = workdir.parent / "config" / "sessions"
    lines = [json.loads(line) for line in next(sessions.glob("*.jsonl")).read_text().splitlines()[1:]]
    user = next(line for line in lines if line["role"] == "user")
    assert user["content"] == "what is this?" and len(user["images"]) == 1
    assert (sessions / f"{result.session_id}.images" / user["images"][0]["file"]).read_bytes() == png


async def test_a_broken_image_block_is_an_error_result(workdir: Path, sdk_options: MakeOptions) -> None:
    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%%%"}}
    options = sdk_options([])
    found = [m async for m in query(prompt=_one(_message([{"type": "text", "text": "see"}, block])),
                                    options=options)]
    result = found[-1]
    assert isinstance(result, ResultMessage) and result.is_error
    assert "not valid base64" in str(result.result)
