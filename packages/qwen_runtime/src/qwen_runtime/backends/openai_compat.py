"""The OpenAI-compatible backend under the name `qwen_runtime.models.naming` loads; it lives in `.openai`."""

from .openai import OpenAICompatRuntime

__all__ = ["OpenAICompatRuntime"]
