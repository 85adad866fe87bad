"""Onde: the ChatEngine SDK over qwen_runtime (history, tool calling, sampling presets).

The only door to inference for apps built on it: models by name, the engine, its typed stream
events and errors, and the message and tool types a conversation is made of.
"""

from qwen_runtime.home import expand_home
from qwen_runtime.images import Image
from qwen_runtime.models.registry import human_size
from qwen_runtime.runtime import Runtime
from qwen_runtime.speed.draft_sources import DRAFT_CHOICES, DraftSourceError, DraftSpec, parse_draft
from qwen_runtime.speed.prompt_cache import DiskPromptCache, PromptCacheEntry
from qwen_runtime.speed.tuning import MachineId, TunedSettings, TuningStatus, tuned_settings
from qwen_runtime.types import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallError,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)

from .config import REASONING_EFFORTS, GgufModelConfig, SamplingConfig
from .engine import ChatEngine
from .errors import (
    AlreadyLoaded,
    BadModelName,
    Busy,
    Cancelled,
    ContextOverflow,
    ImageRejected,
    Inference,
    InferenceError,
    ModelBuild,
    NoModelLoaded,
    Other,
)
from .evaluation import CaseResult, EvalCase, EvalReport, evaluate
from .events import (
    Done,
    FinishReason,
    GuardNotice,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallFailed,
    ToolCallReady,
)
from .history import ChatHistory, message_from_dict, message_to_dict
from .images import ImageStore
from .models import (
    ModelDownload,
    ModelInfo,
    default_model,
    download_needed,
    import_backend,
    inspect_model,
    is_gguf_model,
    list_models,
    load_runtime,
    local_model_file,
    machine_memory,
    model_can_see,
    model_file_facts,
    model_fits,
    model_tuning,
)
from .scoring import Interval, PairedDifference, paired_difference, pass_at_k, wilson_interval
from .types import (
    ChatMessage,
    ChatRole,
    EngineInfo,
    ToolAwareResult,
    ToolCallRequest,
    ToolDefinition,
    ToolResult,
)

__version__ = "0.1.0"

__all__ = [
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
