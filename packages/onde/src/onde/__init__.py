"""Onde: the ChatEngine SDK over qwen_runtime (history, tool calling, sampling presets)."""

from qwen_runtime.types import Usage

from .config import GgufModelConfig, SamplingConfig
from .engine import ChatEngine
from .errors import (
    AlreadyLoaded,
    Busy,
    Cancelled,
    Inference,
    InferenceError,
    ModelBuild,
    NoModelLoaded,
    Other,
)
from .history import ChatHistory, message_from_dict, message_to_dict
from .types import (
    ChatMessage,
    ChatRole,
    EngineInfo,
    StreamChunk,
    ToolAwareResult,
    ToolCallRequest,
    ToolDefinition,
    ToolResult,
)

__all__ = [
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
