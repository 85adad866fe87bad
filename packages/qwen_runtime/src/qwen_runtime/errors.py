"""One exception hierarchy for every backend; foreign errors are translated at the boundary.

    QwenRuntimeError
    ├── ModelNotFoundError      a model name, path or cached file that does not exist
    ├── ModelLoadError          the file exists but the backend cannot load it
    ├── ContextOverflowError    the prompt does not fit the context window
    ├── GenerationCancelled     cancel() was called while generating
    ├── BackendUnavailable      an optional backend's dependency is missing (torch, ...)
    └── ServerError             an OpenAI-compatible endpoint failed after retries
"""

from __future__ import annotations


class QwenRuntimeError(Exception):
    """Base of every error qwen_runtime raises."""


class ModelNotFoundError(QwenRuntimeError):
    pass


class ModelLoadError(QwenRuntimeError):
    pass


class ContextOverflowError(QwenRuntimeError):
    def __init__(self, prompt_tokens: int, context_size: int, max_tokens: int = 0) -> None:
        self.prompt_tokens = prompt_tokens
        self.context_size = context_size
        self.max_tokens = max_tokens
        super().__init__(
            f"prompt is {prompt_tokens} tokens but the context window is {context_size} tokens"
            + (f" (with room for {max_tokens} new tokens)" if max_tokens else "")
            + "; shorten the conversation (compact it) or load the model with a larger n_ctx"
        )


class GenerationCancelled(QwenRuntimeError):
    pass


class BackendUnavailable(QwenRuntimeError):
    pass


class ServerError(QwenRuntimeError):
    def __init__(self, endpoint: str, message: str, status: int | None = None) -> None:
        self.endpoint = endpoint
        self.status = status
        super().__init__(f"{endpoint}: {message}")
