"""Model and sampling configuration: the original's GGUF constructors and sampling presets.

The registry (repos, files, sizes, tool capability) lives in qwen_runtime; these constructors are
the SDK's names for its entries, so a new model is added there once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from qwen_runtime.home import expand_home
from qwen_runtime.models.registry import ModelEntry, get_model, human_size
from qwen_runtime.speed.draft_sources import parse_draft
from qwen_runtime.speed.prompt_cache import DEFAULT_MAX_BYTES
from qwen_runtime.types import Sampling

#: the reasoning efforts Qwen 3.8's template takes (it raises on any other)
REASONING_EFFORTS = ("low", "medium", "xhigh")


@dataclass(frozen=True)
class SamplingConfig:
    """Every knob of one generation.

    `enable_thinking` None leaves the engine's thinking on (Qwen 3's default); the Qwen 3 presets set
    it. `thinking_budget` caps reasoning tokens: past it the think block is closed and the model
    answers (see ChatEngine).
    """

    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 20
    min_p: float = 0.0
    max_tokens: int = 512
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    repeat_penalty: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] = ()
    enable_thinking: bool | None = None
    thinking_budget: int | None = None
    preserve_thinking: bool | None = None
    """Keep earlier turns' reasoning in the prompt (Qwen 3.6, 3.8 templates); None: the template's default."""
    reasoning_effort: str | None = None
    """Qwen 3.8's "xhigh" (its default), "medium" or "low" (what a CPU wants); None: the template's default.
    A model whose template takes neither option refuses the request that sets one."""

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.top_k < 0:
            raise ValueError(f"top_k must be >= 0 (0 = off), got {self.top_k}")
        if not 0 <= self.min_p <= 1:
            raise ValueError(f"min_p must be in [0, 1], got {self.min_p}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.thinking_budget is not None and self.thinking_budget < 1:
            raise ValueError(f"thinking_budget must be >= 1 token or None, got {self.thinking_budget}")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(
                f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, got {self.reasoning_effort!r}"
            )

    # ------------------------------------------------------------ presets

    @classmethod
    def default(cls, **changes: Any) -> SamplingConfig:
        """The original's default: temperature 0.7, top_p 0.95, 512 tokens."""
        return replace(cls(temperature=0.7, top_p=0.95, max_tokens=512), **changes)

    @classmethod
    def deterministic(cls, **changes: Any) -> SamplingConfig:
        """Greedy decoding (temperature 0). Qwen advises against greedy decoding while thinking."""
        return replace(cls(temperature=0.0, top_p=1.0, top_k=1, max_tokens=512), **changes)

    @classmethod
    def coding(cls, **changes: Any) -> SamplingConfig:
        """The original's coding preset: 0.2 / 0.95, 1024 tokens, frequency 1.15, presence 0.1."""
        return replace(
            cls(temperature=0.2, top_p=0.95, max_tokens=1024, frequency_penalty=1.15, presence_penalty=0.1),
            **changes,
        )

    @classmethod
    def qwen3_thinking(cls, **changes: Any) -> SamplingConfig:
        """Qwen 3's recommendation with thinking: 0.6 / 0.95 / top_k 20 / min_p 0, thinking on."""
        return replace(
            cls(temperature=0.6, top_p=0.95, top_k=20, min_p=0.0, max_tokens=8192, enable_thinking=True),
            **changes,
        )

    @classmethod
    def qwen3_non_thinking(cls, **changes: Any) -> SamplingConfig:
        """Qwen 3's recommendation without thinking: 0.7 / 0.8 / top_k 20 / min_p 0, thinking off."""
        return replace(
            cls(temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, max_tokens=4096, enable_thinking=False),
            **changes,
        )

    def with_(self, **changes: Any) -> SamplingConfig:
        return replace(self, **changes)

    def to_runtime(self) -> Sampling:
        return Sampling(
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            min_p=self.min_p,
            presence_penalty=self.presence_penalty,
            frequency_penalty=self.frequency_penalty,
            repeat_penalty=self.repeat_penalty,
            max_tokens=self.max_tokens,
            seed=self.seed,
            stop=self.stop,
        )


@dataclass(frozen=True)
class GgufModelConfig:
    """Which GGUF to load and how: a hub repo + file (downloaded into the HF cache) or a local path."""

    name: str
    repo_id: str | None = None
    filename: str | None = None
    path: str | None = None
    tool_capable: bool = True
    size_bytes: int = 0
    n_ctx: int | None = None
    """The context window; None sizes it to the model and this machine (the largest of 16k to 128k
    whose KV cache fits), 0 takes the model's trained length."""
    n_threads: int | None = None
    n_gpu_layers: int | None = None
    """Layers offloaded to a GPU: -1 all, 0 none; None all when llama.cpp has a GPU backend, else none."""
    prompt_cache_dir: str | None = None
    """Where saved prompt states go (the runtime's disk tier); None: no prompt cache on disk."""
    prompt_cache_max_bytes: int = DEFAULT_MAX_BYTES
    draft: str | None = None
    """Speculative decoding: "prompt-lookup" (or "ngram"), "mtp" (the model's own multi-token-prediction
    head), "none", or the path of a draft model (same tokenizer); read by qwen_runtime's `parse_draft`.
    None: what `qwen-runtime tune` chose for the model here, else prompt lookup."""
    options: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for the runtime's constructor."""

    def __post_init__(self) -> None:
        if self.path is None and not (self.repo_id and self.filename):
            raise ValueError(f"model config {self.name!r} needs a local path or a repo_id and filename")
        if self.n_ctx is not None and self.n_ctx < 0:
            raise ValueError(f"n_ctx must be >= 0 (0 = the model's own), got {self.n_ctx}")
        if self.prompt_cache_max_bytes < 0:
            raise ValueError(f"prompt_cache_max_bytes must be >= 0, got {self.prompt_cache_max_bytes}")
        parse_draft(self.draft, check_file=False)  # a misspelt source now; a missing file when it loads

    @classmethod
    def from_registry(cls, key: str, **changes: Any) -> GgufModelConfig:
        """A known model by its registry key (`qwen3-8b`)."""
        return replace(cls._from_entry(get_model(key)), **changes)

    @classmethod
    def _from_entry(cls, entry: ModelEntry) -> GgufModelConfig:
        return cls(
            name=entry.name,
            repo_id=entry.repo_id,
            filename=entry.filename,
            tool_capable=entry.tool_capable,
            size_bytes=entry.size_bytes,
        )

    @classmethod
    def qwen3_8b(cls) -> GgufModelConfig:
        """The default: the smallest Qwen 3 that lands edits reliably."""
        return cls.from_registry("qwen3-8b")

    @classmethod
    def qwen3_14b(cls) -> GgufModelConfig:
        return cls.from_registry("qwen3-14b")

    @classmethod
    def qwen3_4b(cls) -> GgufModelConfig:
        return cls.from_registry("qwen3-4b")

    @classmethod
    def qwen3_1_7b(cls) -> GgufModelConfig:
        return cls.from_registry("qwen3-1.7b")

    @classmethod
    def qwen25_coder_3b(cls) -> GgufModelConfig:
        """Qwen 2.5 Coder: no tool calling."""
        return cls.from_registry("qwen2.5-coder-3b")

    @classmethod
    def qwen25_coder_1_5b(cls) -> GgufModelConfig:
        """Qwen 2.5 Coder: no tool calling."""
        return cls.from_registry("qwen2.5-coder-1.5b")

    @classmethod
    def from_path(cls, path: str | Path, *, name: str | None = None, **changes: Any) -> GgufModelConfig:
        """A local .gguf file; the name defaults to the file's stem. Missing files fail at load."""
        p = expand_home(path)
        return replace(cls(name=name or p.stem, path=str(p)), **changes)

    def with_(self, **changes: Any) -> GgufModelConfig:
        return replace(self, **changes)

    def resolve_path(self) -> Path:
        """The local file: the given path, or the cached/downloaded hub file."""
        if self.path is not None:
            return Path(self.path)
        from qwen_runtime.models.download import download_model

        assert self.repo_id is not None and self.filename is not None  # checked in __post_init__
        return download_model(self.repo_id, self.filename)

    @property
    def approx_memory_bytes(self) -> int:
        """About what the weights take in memory: the file's size (the KV cache comes on top)."""
        if self.path is not None:
            try:
                return Path(self.path).stat().st_size
            except OSError:
                return self.size_bytes
        return self.size_bytes

    @property
    def approx_memory_display(self) -> str:
        return human_size(self.approx_memory_bytes)
