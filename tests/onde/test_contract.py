"""The public surface: what `from onde import ...` gives, pinned so changes are deliberate."""

from __future__ import annotations

import onde
from onde import (
    AlreadyLoaded,
    Busy,
    Cancelled,
    Inference,
    InferenceError,
    ModelBuild,
    NoModelLoaded,
    Other,
)

EXPECTED_ALL = [
    "AlreadyLoaded",
    "Busy",
    "Cancelled",
    "ChatEngine",
    "ChatHistory",
    "ChatMessage",
    "ChatRole",
    "EngineInfo",
    "GgufModelConfig",
    "Inference",
    "InferenceError",
    "ModelBuild",
    "NoModelLoaded",
    "Other",
    "SamplingConfig",
    "StreamChunk",
    "ToolAwareResult",
    "ToolCallRequest",
    "ToolDefinition",
    "ToolResult",
    "Usage",
    "message_from_dict",
    "message_to_dict",
]


def test_all_is_pinned_and_importable() -> None:
    assert onde.__all__ == EXPECTED_ALL
    for name in onde.__all__:
        assert getattr(onde, name) is not None


def test_error_variants_are_subclasses_and_reachable_from_the_base() -> None:
    for variant in (NoModelLoaded, AlreadyLoaded, ModelBuild, Inference, Cancelled, Busy, Other):
        assert issubclass(variant, InferenceError)
        assert getattr(InferenceError, variant.__name__) is variant


def test_engine_has_sync_and_async_forms_of_each_call() -> None:
    for name in (
        "send_message",
        "send_message_with_tools",
        "send_tool_results",
        "generate",
        "load_gguf_model",
        "load",
    ):
        assert callable(getattr(onde.ChatEngine, name))
        assert callable(getattr(onde.ChatEngine, "a" + name))
    for name in ("stream_message", "stream_message_with_tools", "stream_tool_results", "stream_generate"):
        assert callable(getattr(onde.ChatEngine, name))
        assert callable(getattr(onde.ChatEngine, "a" + name))
