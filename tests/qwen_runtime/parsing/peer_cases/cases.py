"""Every peer's cases, by peer."""

from __future__ import annotations

from . import ollama, sglang, vllm
from .case import PeerCase

PEERS: dict[str, list[PeerCase]] = {
    "vLLM": vllm.HERMES + vllm.CODER + vllm.SHARED + vllm.XML_COMMON,
    "SGLang": sglang.QWEN25 + sglang.CODER + sglang.NUMERIC,
    "Ollama": ollama.STREAMING + ollama.CALL_BODIES + ollama.VALUES,
}
