"""A model behind an OpenAI-compatible HTTP endpoint, in parts: `request` builds the body, `transport`
sends it (retries, timeouts, cancel; `failures` sorts what goes wrong), `stream` decodes the reply,
`ollama` covers Ollama's native API, and `runtime` ties them together.
"""

from .runtime import OpenAICompatRuntime

__all__ = ["OpenAICompatRuntime"]
