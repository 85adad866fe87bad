"""The public surface: what `from onde import ...` gives, pinned so changes are deliberate."""

from __future__ import annotations

import dataclasses
import typing

import onde
from onde import (
    AlreadyLoaded,
    BadModelName,
    Busy,
    Cancelled,
    ContextOverflow,
    Done,
    GuardNotice,
    Inference,
    InferenceError,
    ModelBuild,
    NoModelLoaded,
    Other,
    ReasoningDelta,
    TextDelta,
    ToolCallFailed,
    ToolCallReady,
)

EXPECTED_ALL = [
    "DRAFT_CHOICES",
    "REASONING_EFFORTS",
    "AlreadyLoaded",
    "AssistantMessage",
    "BadModelName",
    "Busy",
    "Cancelled",
    "CaseResult",
    "ChatEngine",
    "ChatHistory",
    "ChatMessage",
    "ChatRole",
    "ContextOverflow",
    "DiskPromptCache",
    "Done",
    "DraftSourceError",
    "DraftSpec",
    "EngineInfo",
    "EvalCase",
    "EvalReport",
    "FinishReason",
    "GgufModelConfig",
    "GuardNotice",
    "Image",
    "ImageRejected",
    "ImageStore",
    "Inference",
    "InferenceError",
    "Interval",
    "MachineId",
    "Message",
    "ModelBuild",
    "ModelDownload",
    "ModelInfo",
    "NoModelLoaded",
    "Other",
    "PairedDifference",
    "PromptCacheEntry",
    "ReasoningDelta",
    "Runtime",
    "SamplingConfig",
    "StreamEvent",
    "SystemMessage",
    "TextDelta",
    "ToolAwareResult",
    "ToolCallError",
    "ToolCallFailed",
    "ToolCallReady",
    "ToolCallRequest",
    "ToolDefinition",
    "ToolMessage",
    "ToolResult",
    "ToolSpec",
    "TunedSettings",
    "TuningStatus",
    "Usage",
    "UserMessage",
    "default_model",
    "download_needed",
    "evaluate",
    "expand_home",
    "human_size",
    "import_backend",
    "inspect_model",
    "is_gguf_model",
    "list_models",
    "load_runtime",
    "local_model_file",
    "machine_memory",
    "message_from_dict",
    "message_to_dict",
    "model_can_see",
    "model_file_facts",
    "model_fits",
    "model_tuning",
    "paired_difference",
    "parse_draft",
    "pass_at_k",
    "tuned_settings",
    "wilson_interval",
]


def test_all_is_pinned_and_importable() -> None:
    assert onde.__all__ == EXPECTED_ALL
    for name in onde.__all__:
        assert getattr(onde, name) is not None


def test_error_variants_are_subclasses_and_reachable_from_the_base() -> None:
    for variant in (
        NoModelLoaded, AlreadyLoaded, ModelBuild, BadModelName, Inference, ContextOverflow, Cancelled, Busy, Other
    ):
        assert issubclass(variant, InferenceError)
        assert getattr(InferenceError, variant.__name__) is variant
    # narrower errors stay catchable by their older, wider handlers
    assert issubclass(ContextOverflow, Inference)
    assert issubclass(BadModelName, ModelBuild) and issubclass(BadModelName, ValueError)


def test_stream_events_are_told_apart_by_a_type_literal() -> None:
    kinds = {
        cls: dataclasses.fields(cls)[-1]
        for cls in (ReasoningDelta, TextDelta, ToolCallReady, ToolCallFailed, GuardNotice, Done)
    }
    assert {cls.__name__: field.default for cls, field in kinds.items()} == {
        "ReasoningDelta": "reasoning",
        "TextDelta": "text",
        "ToolCallReady": "tool_call_ready",
        "ToolCallFailed": "tool_call_failed",
        "GuardNotice": "guard_notice",
        "Done": "done",
    }
    assert all(field.name == "type" and cls.__dataclass_params__.frozen for cls, field in kinds.items())
    assert typing.get_args(onde.StreamEvent) == tuple(kinds)
    assert set(typing.get_args(onde.FinishReason)) == {"stop", "length", "tool_calls", "cancelled", "error"}


def test_engine_has_sync_and_async_forms_of_each_call() -> None:
    for name in (
        "send_message",
        "send_message_with_tools",
        "send_tool_results",
        "generate",
        "continue_reply",
        "load_gguf_model",
        "load",
        "prefill",
    ):
        assert callable(getattr(onde.ChatEngine, name))
        assert callable(getattr(onde.ChatEngine, "a" + name))
    for name in ("stream_message", "stream_message_with_tools", "stream_tool_results", "stream_generate",
                 "stream_continue_reply"):
        assert callable(getattr(onde.ChatEngine, name))
        assert callable(getattr(onde.ChatEngine, "a" + name))
    assert callable(onde.ChatEngine.fork)
