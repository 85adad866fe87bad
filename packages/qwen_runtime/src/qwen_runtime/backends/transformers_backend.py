"""Full-precision Hugging Face models through transformers, on our own token loop.

`model.generate` cannot switch a grammar on at `<tool_call>`, close `<think>` at a budget or keep its
KV cache between calls, so this backend renders the folder's chat template itself (the same rendering
as the GGUF path), evaluates with a `DynamicCache` it keeps across requests (an agent loop evaluates
only what is new), samples in torch with a seeded generator, masks logits with the same llguidance
tool-call constraint as llama.cpp, and feeds the decoded bytes through the same reply parser.

torch is an optional extra: it is imported only when a model is loaded, and its absence is a
`BackendUnavailable` error naming the extra to install.
"""

from __future__ import annotations

import inspect
import logging
import secrets
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..errors import BackendUnavailable, ModelLoadError, ModelNotFoundError, QwenRuntimeError
from ..home import expand_home
from ..models.qwen3_template import QWEN3_CHAT_TEMPLATE
from ..models.report import read_chat_template, template_warnings
from ..runtime import CancelToken
from ..speed.cpus import thread_cap
from ..speed.draft_control import check_verify_costs
from ..speed.draft_sources import PROMPT_LOOKUP, parse_draft
from ..speed.drafting import describe, draft_source
from ..speed.prompt_cache import DEFAULT_CHECKPOINTS
from ..speed.save_points import eval_at_save_points
from ..types import ChatRequest, Sampling
from ._generation import LocalRuntime, Utf8Detokenizer
from .transformers_checkpoints import CacheCheckpoints

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

DTYPES = ("auto", "float32", "float16", "bfloat16")
"""Accepted `dtype` names; None means float32 on the CPU and the checkpoint's own dtype elsewhere."""

PROMPT_CHUNK = 512
"""Prompt tokens per forward pass: bounds activation memory and lets cancel act between chunks."""

PENALTY_WINDOW = 64
"""Generated tokens the presence, frequency and repeat penalties look back on (llama.cpp's default)."""


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise BackendUnavailable(
            "the transformers backend needs torch, which is not installed: pip install 'qwen-runtime[torch]'"
        ) from exc
    return torch


class TorchSampler:
    """Penalties, top-k, top-p, min-p and temperature (llama.cpp's order), seeded; greedy at 0."""

    def __init__(self, sampling: Sampling) -> None:
        self.torch = _import_torch()
        self.sampling = sampling
        seed = secrets.randbits(63) if sampling.seed is None else sampling.seed & 0x7FFF_FFFF_FFFF_FFFF
        self.generator = self.torch.Generator(device="cpu").manual_seed(seed)
        self.history: deque[int] = deque(maxlen=PENALTY_WINDOW)

    def accept(self, token: int) -> None:
        """Count a token the penalties should see (sampled or appended by the backend)."""
        self.history.append(token)

    def sample(self, logits: torch.Tensor) -> int:
        """One token from 1-D float32 CPU logits (modified in place); disallowed ones are -inf."""
        torch, s = self.torch, self.sampling
        self._penalize(logits)
        if s.temperature <= 0:
            token = int(torch.argmax(logits).item())
        else:
            k = s.top_k if 0 < s.top_k < logits.shape[0] else logits.shape[0]
            values, ids = torch.topk(logits, k)  # sorted, largest first
            finite = int(torch.isfinite(values).sum().item())
            values, ids = values[: max(1, finite)], ids[: max(1, finite)]
            if s.top_p < 1.0:
                probs = torch.softmax(values, dim=0)
                before = torch.cumsum(probs, dim=0) - probs  # mass of the better tokens
                keep = max(1, int((before < s.top_p).sum().item()))
                values, ids = values[:keep], ids[:keep]
            if s.min_p > 0:
                probs = torch.softmax(values, dim=0)
                keep = max(1, int((probs >= s.min_p * probs[0]).sum().item()))
                values, ids = values[:keep], ids[:keep]
            probs = torch.softmax(values / s.temperature, dim=0)
            pick = torch.multinomial(probs, 1, generator=self.generator)
            token = int(ids[pick].item())
        self.accept(token)
        return token

    def _penalize(self, logits: torch.Tensor) -> None:
        s = self.sampling
        if not self.history or (
            s.repeat_penalty == 1.0 and not s.frequency_penalty and not s.presence_penalty
        ):
            return
        torch = self.torch
        seen, counts = torch.tensor(list(self.history), dtype=torch.long).unique(return_counts=True)
        values = logits[seen]
        if s.repeat_penalty != 1.0:
            values = torch.where(values > 0, values / s.repeat_penalty, values * s.repeat_penalty)
        values = values - counts.to(values.dtype) * s.frequency_penalty - s.presence_penalty
        logits[seen] = values


class TransformersRuntime(LocalRuntime):
    """A Hugging Face model folder (safetensors, tokenizer, chat template); one generation at a time."""

    name = "transformers"

    def cannot_see(self) -> str:
        return ("the transformers backend does not take images (its processor path is not built); run the "
                "model as a GGUF with its mmproj projector through llama.cpp to send images")

    def __init__(
        self,
        path: str,
        *,
        device: str = "cpu",
        dtype: str | None = None,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        chat_template: str | None = None,
        chat_template_file: str | Path | None = None,
        draft: str | None = PROMPT_LOOKUP,
        checkpoints: int = DEFAULT_CHECKPOINTS,
        verify_costs: Mapping[int, float] | None = None,
    ) -> None:
        """`n_threads` sets torch's CPU threads for the whole process (torch has no per-model setting);
        small models on a busy machine run many times faster with 1. `draft`: "prompt-lookup" (or "ngram") or "none".
        `verify_costs`: batch size -> cost in one-token steps, the draft length controller's start.
        `checkpoints`: cache copies kept for a model whose cache cannot be cropped (linear-attention
        layers), so a follow-up prompt restores the longest prefix it shares (0: none)."""
        super().__init__()
        spec = parse_draft(draft)  # a bad draft source is said before the model loads
        if chat_template is None and chat_template_file is not None:
            chat_template = read_chat_template(chat_template_file)
        self.verify_costs = check_verify_costs(verify_costs)
        folder = expand_home(path)
        if not folder.exists():
            raise ModelNotFoundError(f"transformers model folder not found: {folder}")
        if not folder.is_dir():
            raise ModelNotFoundError(f"not a transformers model folder (it is a file): {folder}")
        if dtype is not None and dtype not in DTYPES:
            raise ModelLoadError(f"unknown dtype {dtype!r} for {folder}; use one of {', '.join(DTYPES)}")
        if n_ctx is not None and n_ctx < 2:
            raise ModelLoadError(f"n_ctx must be at least 2 tokens, not {n_ctx}")
        if n_threads is not None and n_threads < 1:
            raise ModelLoadError(f"n_threads must be at least 1, not {n_threads}")
        if n_threads is None:
            try:
                n_threads = thread_cap()  # QWEN_RUNTIME_THREADS, as for llama.cpp
            except ValueError as exc:
                raise ModelLoadError(str(exc)) from exc
        torch = _import_torch()
        if n_threads is not None:
            torch.set_num_threads(n_threads)
        try:
            self._device = torch.device(device)
        except (RuntimeError, ValueError) as exc:
            raise ModelLoadError(f"unknown torch device {device!r}: {exc}") from exc
        self.model_path = folder
        self._tokenizer, self._model = self._load(
            folder, dtype or ("float32" if self._device.type == "cpu" else "auto")
        )
        template = chat_template or self._tokenizer.chat_template
        if isinstance(template, dict):  # several named templates: the default one
            template = template.get("default")
        self.chat_template: str = template or QWEN3_CHAT_TEMPLATE
        self.load_warnings = tuple(template_warnings(folder.name, template or None))
        self._bos_text: str = self._tokenizer.bos_token or ""
        self._eos_text: str = self._tokenizer.eos_token or ""
        config = self._model.config
        self._n_ctx = n_ctx or int(getattr(config, "max_position_embeddings", 0) or 32768)
        self._stop_ids = self._end_tokens()
        self._lltokenizer = self._build_lltokenizer()
        self._n_tokens = int(self._lltokenizer.vocab_size)
        self._pieces: dict[int, bytes] = {}
        self._cache: Any = None
        self._cached_ids: list[int] = []
        self._last_logits: Any = None  # torch.Tensor (the name `torch` is a local here)
        forward_params = inspect.signature(self._model.forward).parameters
        # transformers 5.2x renamed `past_key_values` to `cache`; earlier 5.x only know the old name
        self._cache_kwarg = "cache" if "cache" in forward_params else "past_key_values"
        self._rows: Any = None  # torch.Tensor: the logits of every position of the last eval_with_rows
        layers = set(getattr(config, "layer_types", None) or ()) - {"full_attention", "sliding_attention"}
        self.draft_source = None if layers else draft_source(spec)  # linear attention: no token rollback
        self.checkpoints = CacheCheckpoints(checkpoints if layers else 0)
        """Copies of the cache at prompt prefixes; only for a cache that cannot be cropped."""
        log.info("draft: %s", describe(self.draft_source))

    def _load(self, folder: Path, dtype: str) -> tuple[Any, Any]:
        from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast

        torch = _import_torch()
        try:
            tokenizer: Any = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        except Exception as exc:
            raise ModelLoadError(f"transformers cannot load the tokenizer in {folder}: {exc}") from exc
        if not isinstance(tokenizer, PreTrainedTokenizerFast):
            raise ModelLoadError(f"{folder} has no fast tokenizer (tokenizer.json), which this backend needs")
        try:
            torch_dtype = dtype if dtype == "auto" else getattr(torch, dtype)
            model: Any = AutoModelForCausalLM.from_pretrained(
                str(folder), dtype=torch_dtype, local_files_only=True
            )
            model.to(self._device)
            model.eval()
        except Exception as exc:
            raise ModelLoadError(f"transformers cannot load the model in {folder}: {exc}") from exc
        return tokenizer, model

    # ---------------------------------------------------------------- Runtime API

    @property
    def context_size(self) -> int:
        return self._n_ctx

    def close(self) -> None:
        with self._lock:
            self.clear_cache_unlocked()
            self._model = None
            if self._device.type == "cuda":
                _import_torch().cuda.empty_cache()

    def check_open(self) -> None:
        if self._model is None:
            raise QwenRuntimeError(f"model {self.model_path.name} is closed")

    def clear_cache_unlocked(self) -> None:
        """Forget the live cache and the checkpoints."""
        self._drop_live()
        self.checkpoints.forget()

    def _drop_live(self) -> None:
        self._cache = None
        self._cached_ids = []
        self._last_logits = None

    # ---------------------------------------------------------------- tokens

    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text`, special tokens written in it (`<|im_start|>`) as single tokens."""
        return list(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def piece(self, token: int) -> bytes:
        """The bytes of one token, special tokens as their text, cached."""
        cached = self._pieces.get(token)
        if cached is None:
            cached = bytes(self._lltokenizer.decode_bytes([token])) if 0 <= token < self._n_tokens else b""
            self._pieces[token] = cached
        return cached

    def is_end(self, token: int) -> bool:
        return token in self._stop_ids

    def lltokenizer(self) -> Any:
        """llguidance's view of the vocabulary (built at load: ~1 s for 150k tokens)."""
        return self._lltokenizer

    def _end_tokens(self) -> frozenset[int]:
        ids: set[int] = set()
        for source in (
            self._tokenizer.eos_token_id,
            getattr(self._model.generation_config, "eos_token_id", None),
        ):
            if isinstance(source, int):
                ids.add(source)
            elif isinstance(source, (list, tuple)):
                ids.update(int(i) for i in source)
        added: dict[str, int] = self._tokenizer.get_added_vocab()
        ids.update(added[t] for t in ("<|im_end|>", "<|endoftext|>") if t in added)
        return frozenset(ids)

    def _build_lltokenizer(self) -> Any:
        from llguidance.hf import from_tokenizer

        eos = self._tokenizer.eos_token_id
        try:
            return from_tokenizer(self._tokenizer, eos_token=eos if isinstance(eos, int) else None)
        except Exception as exc:
            raise ModelLoadError(f"llguidance cannot read the tokenizer of {self.model_path}: {exc}") from exc

    # ---------------------------------------------------------------- KV cache and evaluation

    def reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the longest prefix of `tokens` the live cache (cropped to it) or a checkpoint holds;
        returns its length."""
        self.last_restored = 0
        cached = self._cached_ids
        n = min(len(cached), len(tokens))
        common = next((i for i in range(n) if cached[i] != tokens[i]), n)
        limit = len(tokens) - 1  # the last prompt token is evaluated again for its logits
        common = min(common, limit)
        # a cache that cannot be cropped is kept only when the prompt goes on where it ends
        live = common if common > 0 and self._cache is not None and self.truncate(common) else 0
        found = self.checkpoints.longest(tokens, limit) if len(self.checkpoints) else None
        if found is not None and found[0] > live:
            n, self._cache = found
            self._cached_ids, self._last_logits = list(tokens[:n]), None
            self.last_restored = n
            log.debug("restored %d prompt tokens from a cache checkpoint", n)
            return n
        if not live:
            self._drop_live()  # evaluate the whole prompt again
        return live

    def eval_prompt(
        self, request: ChatRequest, tokens: Sequence[int], start: int, cancel: CancelToken | None = None
    ) -> bool:
        """Evaluate `tokens[start:]`; for a cache that cannot be cropped, in pieces that end at the prompt's
        save points, keeping a checkpoint at each and at the end (the pieces are the same whether or not
        a checkpoint is kept: a chunk boundary changes the logits a little)."""
        if not self.checkpoints.limit:
            return self.eval_tokens(tokens[start:], cancel)
        if not eval_at_save_points(self, request, tokens, start, cancel,
                                   lambda prefix, _kind: self.checkpoints.keep(prefix, self._cache)):
            return False
        self.checkpoints.keep(tokens, self._cache)
        return True

    def forward(self, tokens: Sequence[int], rows: int = 1) -> torch.Tensor:
        """Evaluate `tokens` after the cached ones; the last `rows` positions' logits, float32 on the CPU
        (one row: a vector; more: a matrix, one row per position)."""
        th = _import_torch()
        with th.inference_mode():
            if self._cache is None:
                from transformers import DynamicCache

                self._cache = DynamicCache(config=self._model.config)
            ids = th.tensor([list(tokens)], dtype=th.long, device=self._device)
            cache_arg = {self._cache_kwarg: self._cache}  # filled in place by the model
            out = self._model(input_ids=ids, use_cache=True, logits_to_keep=rows, **cache_arg)
            self._cached_ids.extend(tokens)
            logits: torch.Tensor = out.logits[0, -rows:].to(device="cpu", dtype=th.float32)
        if logits.shape[-1] > self._n_tokens:  # padding rows of the embedding: never real tokens
            logits[:, self._n_tokens :] = float("-inf")
        if rows == 1:
            logits = logits[0]
            self._last_logits = logits
        return logits

    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool:
        """Evaluate in chunks; False when cancelled in between (the cache keeps what was evaluated)."""
        for i in range(0, len(tokens), PROMPT_CHUNK):
            if cancel is not None and cancel.cancelled:
                return False
            self.forward(tokens[i : i + PROMPT_CHUNK])
        return True

    def eval_with_rows(self, tokens: Sequence[int], rows: int) -> None:
        head = max(0, len(tokens) - PROMPT_CHUNK)
        if head:
            self.eval_tokens(tokens[:head])
        self._rows = self.forward(tokens[head:], rows)
        self._last_logits = self._rows[0]

    def select_row(self, row: int) -> None:
        self._last_logits = self._rows[row]

    def truncate(self, n_tokens: int) -> bool:
        if n_tokens >= len(self._cached_ids):
            return True
        try:
            self._cache.crop(n_tokens - len(self._cached_ids))  # negative: drop that many (all 5.x agree)
        except (AttributeError, ValueError, NotImplementedError, TypeError, RuntimeError) as exc:
            # RuntimeError: a recurrent (linear-attention) layer keeps no past states to cut back to
            log.debug("cache of %s cannot be cropped (%s)", self.name, exc)
            return False
        del self._cached_ids[n_tokens:]
        return True

    def logits(self) -> npt.NDArray[np.float32]:
        """The last position's logits as a numpy view (shares memory with the torch tensor)."""
        assert self._last_logits is not None, "no token evaluated yet"
        view: npt.NDArray[np.float32] = self._last_logits.numpy()
        return view

    def new_sampler(self, sampling: Sampling) -> _BoundSampler:
        return _BoundSampler(self, TorchSampler(sampling))


class _BoundSampler:
    """A `TorchSampler` sampling the runtime's last logits."""

    def __init__(self, rt: TransformersRuntime, sampler: TorchSampler) -> None:
        self._rt = rt
        self._sampler = sampler

    def accept(self, token: int) -> None:
        self._sampler.accept(token)

    def sample(self) -> int:
        logits = self._rt._last_logits
        assert logits is not None, "no token evaluated yet"
        with self._sampler.torch.inference_mode():
            return self._sampler.sample(logits)

    def close(self) -> None:
        pass


__all__ = ["DTYPES", "TorchSampler", "TransformersRuntime", "Utf8Detokenizer"]
