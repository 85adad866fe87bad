"""Images through onde: a turn with pictures (real llama.cpp on the tiny vision model, and scripted),
tool results with pictures, a model that cannot see refusing before anything is recorded, and history
that keeps pictures by reference (a hash and a copy in a folder, not base64 in JSON)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from onde import (
    ChatEngine,
    Image,
    ImageRejected,
    ImageStore,
    SamplingConfig,
    ToolDefinition,
    ToolResult,
    message_from_dict,
    message_to_dict,
)
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
from qwen_runtime.types import ToolMessage, UserMessage

pytestmark = pytest.mark.timeout(120)


def test_send_message_with_an_image_reaches_a_model_that_can_see(
    tiny_vision_gguf: Path, make_png: Callable[..., Path]
) -> None:
    engine = ChatEngine(str(tiny_vision_gguf), sampling=SamplingConfig.deterministic(max_tokens=3))
    try:
        assert engine.can_see and engine.cannot_see() == ""
        result = engine.send_message("what is in this picture?", images=[make_png(128, 64)])
        assert result.usage.image_tokens == 8
        user = [m for m in engine.history_messages() if isinstance(m, UserMessage)][-1]
        assert user.images == (Image.from_path(make_png(128, 64)),)
    finally:
        engine.close()


def test_a_model_that_cannot_see_refuses_the_image_and_records_nothing(make_png: Callable[..., Path]) -> None:
    runtime = ScriptedRuntime([], supports_images=False)
    engine = ChatEngine(runtime)
    assert not engine.can_see
    with pytest.raises(ImageRejected, match="scripted backend does not take images"):
        engine.send_message("look", images=[make_png(32, 32)])
    assert engine.history() == [] and runtime.requests == []


def test_an_unreadable_image_is_rejected_before_the_turn(tmp_path: Path) -> None:
    engine = ChatEngine(ScriptedRuntime([]))
    with pytest.raises(ImageRejected, match=r"cannot read image .*gone\.png"):
        engine.send_message("look", images=[tmp_path / "gone.png"])
    assert engine.history() == []


def test_images_go_with_tool_aware_turns_and_tool_results(make_png: Callable[..., Path]) -> None:
    read = ToolDefinition("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
    call_b = ScriptedTurn(tool_calls=(ScriptedCall("read_file", {"path": "b.png"}),))
    runtime = ScriptedRuntime([call_b, "two pictures"])
    engine = ChatEngine(runtime)
    first = engine.send_message_with_tools("compare", [read], images=[make_png(32, 32, seed=1).read_bytes()])
    call = first.tool_calls[0]
    engine.send_tool_results([ToolResult(call.id, "[image b.png]", images=(make_png(32, 32, seed=2),))], [read])
    sent_user = runtime.requests[0].messages[-1]
    sent_tool = runtime.requests[1].messages[-1]
    assert isinstance(sent_user, UserMessage) and sent_user.images[0].read() == make_png(32, 32, seed=1).read_bytes()
    assert isinstance(sent_tool, ToolMessage) and sent_tool.images == (Image.from_path(make_png(32, 32, seed=2)),)


def test_history_keeps_images_by_hash_in_a_folder_not_as_base64(tmp_path: Path, make_png: Callable[..., Path]) -> None:
    store = ImageStore(tmp_path / "images")
    picture = make_png(64, 48, seed=3)
    message = UserMessage("see", images=(Image.from_bytes(picture.read_bytes()), Image.from_path(picture)))
    line = json.dumps(message_to_dict(message, store))
    assert "base64" not in line and len(line) < 600 < picture.stat().st_size
    refs = json.loads(line)["images"]
    assert refs[0] == refs[1] and refs[0]["mime"] == "image/png" and refs[0]["file"].endswith(".png")
    assert [p.name for p in (tmp_path / "images").iterdir()] == [refs[0]["file"]]  # stored once
    loaded = message_from_dict(json.loads(line), images=store)
    assert isinstance(loaded, UserMessage) and all(i.read() == picture.read_bytes() for i in loaded.images)
    assert loaded.images[0].path is not None and Path(loaded.images[0].path).parent == tmp_path / "images"
    (tmp_path / "images" / refs[0]["file"]).unlink()
    with pytest.raises(ValueError, match=r"message, image 0: image .*\.png is missing from"):
        message_from_dict(json.loads(line), images=store)
    with pytest.raises(ValueError, match="needs the session's image folder"):
        message_from_dict(json.loads(line))
    without_store = message_to_dict(UserMessage("x", images=(picture,)))
    assert without_store["images"] == [{"path": str(picture)}]
