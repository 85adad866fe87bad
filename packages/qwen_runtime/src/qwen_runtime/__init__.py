"""qwen_runtime: local Qwen 3, Qwen 3.5 and Qwen3-Coder inference behind one protocol.

Backends (llama.cpp, transformers, OpenAI-compatible servers, scripted) implement
`Runtime.stream(request, cancel)`; they are imported lazily (`load_runtime(name)`), so importing this
package never loads torch or llama.cpp.

Layout: `types`, `runtime`, `errors` (the protocol every backend meets) at the top with the command
line (`cli`); `backends/` (llamacpp/, transformers, openai/, scripted); `parsing/` (reply and tool-call
parsing); `grammar/` (constrained tool calls); `models/` (registry, download, GGUF, templates, names);
`speed/` (threads, tuning, prompt cache, drafting); `testing/` (test models, scripted server).
"""

from . import _moved
from .calls.toolformat import ToolCallFormat
from .calls.toolschema import SchemaError, ToolSchema, tool_schema
from .errors import (
    BackendUnavailable,
    ContextOverflowError,
    GenerationCancelled,
    ModelLoadError,
    ModelNotFoundError,
    QwenRuntimeError,
    ServerError,
)
from .home import expand_home
from .images import Image, ImageError
from .models.context_window import ContextChoice, choose_context
from .models.gguf_info import GgufInfo, read_gguf_info
from .models.naming import RuntimeSpec, import_backend, load_runtime, parse_runtime_name
from .models.registry import DEFAULT_MODEL, REGISTRY, ModelEntry, default_model_for, get_model
from .models.report import ModelReport, inspect_gguf
from .models.templates import load_template
from .parsing import ReplyParser, parse_reply, repair_json, validate_call
from .runtime import CancelToken, Runtime
from .speed.cpus import CpuBudget, cpu_budget
from .speed.prompt_cache import DiskPromptCache, PromptCache, PromptCacheEntry
from .speed.tuning import MachineId, TunedSettings, TuningStatus, tuned_settings, tuning_dir, tuning_status
from .types import (
    AssistantMessage,
    ChatRequest,
    Completion,
    Event,
    Finished,
    FinishReason,
    Message,
    ReasoningDelta,
    Sampling,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolCallError,
    ToolCallEvent,
    ToolChoice,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)

__version__ = "0.1.0"

_moved.install(__name__)

__all__ = [
    "DEFAULT_MODEL",
    "REGISTRY",
    "AssistantMessage",
    "BackendUnavailable",
    "CancelToken",
    "ChatRequest",
    "Completion",
    "ContextChoice",
    "ContextOverflowError",
    "CpuBudget",
    "DiskPromptCache",
    "Event",
    "FinishReason",
    "Finished",
    "GenerationCancelled",
    "GgufInfo",
    "Image",
    "ImageError",
    "MachineId",
    "Message",
    "ModelEntry",
    "ModelLoadError",
    "ModelNotFoundError",
    "ModelReport",
    "PromptCache",
    "PromptCacheEntry",
    "QwenRuntimeError",
    "ReasoningDelta",
    "ReplyParser",
    "Runtime",
    "RuntimeSpec",
    "Sampling",
    "SchemaError",
    "ServerError",
    "SystemMessage",
    "TextDelta",
    "ToolCall",
    "ToolCallError",
    "ToolCallEvent",
    "ToolCallFormat",
    "ToolChoice",
    "ToolMessage",
    "ToolSchema",
    "ToolSpec",
    "TunedSettings",
    "TuningStatus",
    "Usage",
    "UserMessage",
    "choose_context",
    "cpu_budget",
    "default_model_for",
    "expand_home",
    "get_model",
    "import_backend",
    "inspect_gguf",
    "load_runtime",
    "load_template",
    "parse_reply",
    "parse_runtime_name",
    "read_gguf_info",
    "repair_json",
    "tool_schema",
    "tuned_settings",
    "tuning_dir",
    "tuning_status",
    "validate_call",
]
