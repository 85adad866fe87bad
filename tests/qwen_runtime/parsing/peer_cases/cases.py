"""Every peer's cases, by peer."""

from __future__ import annotations

from . import sglang, vllm
from .case import PeerCase

PEERS: dict[str, list[PeerCase]] = {
    "vLLM": vllm.HERMES + vllm.CODER + vllm.SHARED + vllm.XML_COMMON,
    "SGLang": sglang.QWEN25 + sglang.CODER + sglang.NUMERIC,
}
