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

import codecs
import inspect
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..chat_format import render_prompt
from ..constrain import ToolCallConstraint
from ..errors import (
    BackendUnavailable,
    ContextOverflowError,
    ModelLoadError,
    ModelNotFoundError,
    QwenRuntimeError,
)
from ..parsing import ReplyParser
from ..qwen3_template import QWEN3_CHAT_TEMPLATE
from ..runtime import CancelToken, Runtime, cancelled_event
from ..types import ChatRequest, Event, Finished, FinishReason, Sampling, ToolCallEvent, Usage, UserMessage
from .llamacpp import THINK_CLOSE_TEXT, _StopFilter, starts_in_think

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


class Utf8Detokenizer:
    """Token bytes in, text out; a UTF-8 character split over tokens comes out whole, once complete."""

    def __init__(self, piece: Callable[[int], bytes]) -> None:
        self._piece = piece
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def push(self, token: int) -> str:
        return str(self._decoder.decode(self._piece(token)))

    def flush(self) -> str:
        return str(self._decoder.decode(b"", final=True))


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


class TransformersRuntime(Runtime):
    """A Hugging Face model folder (safetensors, tokenizer, chat template); one generation at a time."""

    name = "transformers"

    def __init__(
        self,
        path: str,
        *,
        device: str = "cpu",
        dtype: str | None = None,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        chat_template: str | None = None,
    ) -> None:
        """`n_threads` sets torch's CPU threads for the whole process (torch has no per-model setting);
        small models on a busy machine run many times faster with 1."""
        folder = Path(path).expanduser()
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
        self._lock = threading.Lock()
        template = chat_template or self._tokenizer.chat_template
        if isinstance(template, dict):  # several named templates: the default one
            template = template.get("default")
        self.chat_template: str = template or QWEN3_CHAT_TEMPLATE
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
        forward_params = inspect.signature(self._model.forward).parameters
        # transformers 5.2x renamed `past_key_values` to `cache`; earlier 5.x only know the old name
        self._cache_kwarg = "cache" if "cache" in forward_params else "past_key_values"

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

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    def close(self) -> None:
        with self._lock:
            self.clear_cache_unlocked()
            self._model = None
            if self._device.type == "cuda":
                _import_torch().cuda.empty_cache()

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        cancel = cancel or CancelToken()
        if any(isinstance(m, UserMessage) and m.images for m in request.messages):
            raise QwenRuntimeError(f"{self.name} backend does not take images (model {self.model_path.name})")
        prompt = self.prompt_text(request)
        tokens = self.tokenize(prompt)
        if len(tokens) >= self._n_ctx:
            raise ContextOverflowError(len(tokens), self._n_ctx)
        with self._lock:
            if self._model is None:
                raise QwenRuntimeError(f"model {self.model_path.name} is closed")
            try:
                yield from _Generation(self, request, prompt, tokens, cancel).run()
            except Exception:
                self.clear_cache_unlocked()  # a step that failed half-way leaves the cache unknown
                raise

    def prompt_text(self, request: ChatRequest) -> str:
        """The prompt exactly as the model sees it: the chat template rendered for `request`."""
        return render_prompt(
            self.chat_template,
            request.messages,
            request.tools,
            enable_thinking=request.enable_thinking,
            bos_token=self._bos_text,
            eos_token=self._eos_text,
        )

    def clear_cache(self) -> None:
        """Forget the KV cache: the next request evaluates its whole prompt."""
        with self._lock:
            self.clear_cache_unlocked()

    def clear_cache_unlocked(self) -> None:
        self._cache = None
        self._cached_ids = []

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
        """Keep the KV entries of the longest common prefix with what the cache holds; returns its length."""
        cached = self._cached_ids
        n = min(len(cached), len(tokens))
        common = next((i for i in range(n) if cached[i] != tokens[i]), n)
        common = min(common, len(tokens) - 1)  # the last prompt token is evaluated again for its logits
        if common <= 0 or self._cache is None:
            self.clear_cache_unlocked()
            return 0
        if common < len(cached):
            try:
                self._cache.crop(common - len(cached))  # negative: drop that many (all 5.x agree)
            except (AttributeError, ValueError, NotImplementedError, TypeError) as exc:
                log.debug("cache of %s cannot be cropped (%s); evaluating the whole prompt", self.name, exc)
                self.clear_cache_unlocked()
                return 0
            del cached[common:]
        return common

    def forward(self, tokens: Sequence[int]) -> torch.Tensor:
        """Evaluate `tokens` after the cached ones; the last position's logits, float32 on the CPU."""
        th = _import_torch()
        with th.inference_mode():
            if self._cache is None:
                from transformers import DynamicCache

                self._cache = DynamicCache(config=self._model.config)
            ids = th.tensor([list(tokens)], dtype=th.long, device=self._device)
            cache_arg = {self._cache_kwarg: self._cache}  # filled in place by the model
            out = self._model(input_ids=ids, use_cache=True, logits_to_keep=1, **cache_arg)
            self._cached_ids.extend(tokens)
            logits: torch.Tensor = out.logits[0, -1].to(device="cpu", dtype=th.float32)
        if logits.shape[0] > self._n_tokens:  # padding rows of the embedding: never real tokens
            logits[self._n_tokens :] = float("-inf")
        return logits

    def eval_prompt(self, tokens: Sequence[int], cancel: CancelToken) -> torch.Tensor | None:
        """Evaluate in chunks; None when cancelled in between (the cache keeps what was evaluated)."""
        logits = None
        for i in range(0, len(tokens), PROMPT_CHUNK):
            if cancel.cancelled:
                return None
            logits = self.forward(tokens[i : i + PROMPT_CHUNK])
        return logits

    def pick(self, logits: torch.Tensor, sampler: TorchSampler, constraint: ToolCallConstraint | None) -> int:
        torch = sampler.torch
        with torch.inference_mode():
            if constraint is not None:
                constraint.apply(logits.numpy())
            return sampler.sample(logits)


class _Generation:
    """One request's token loop: prompt evaluation, sampling, constraint, decoding, events."""

    def __init__(
        self,
        rt: TransformersRuntime,
        request: ChatRequest,
        prompt: str,
        tokens: list[int],
        cancel: CancelToken,
    ) -> None:
        self.rt = rt
        self.request = request
        self.tokens = tokens
        self.cancel = cancel
        in_think = starts_in_think(prompt)
        offered = request.offered_tools()
        self.parser = ReplyParser(offered, starts_in_think=in_think)
        self.constraint: ToolCallConstraint | None = None
        if offered:
            self.constraint = ToolCallConstraint(
                rt.lltokenizer(),
                offered,
                request.tool_choice,
                thinking=request.enable_thinking,
                starts_in_think=in_think,
                stop_tokens=sorted(rt._stop_ids),
            )
            for warning in self.constraint.warnings:
                log.warning("%s", warning)
        self.detok = Utf8Detokenizer(rt.piece)
        self.stops = _StopFilter(tuple(request.sampling.stop))
        self.completion_tokens = 0
        self.reasoning_tokens = 0
        self.budget_spent = False
        self.called = False

    def run(self) -> Iterator[Event]:
        rt, request = self.rt, self.request
        room = min(request.sampling.max_tokens, rt.context_size - len(self.tokens))
        t0 = time.perf_counter()
        cached = rt.reuse_prefix(self.tokens)
        logits = rt.eval_prompt(self.tokens[cached:], self.cancel)
        t1 = time.perf_counter()
        if logits is None:
            yield from self._end("cancelled", cached, t0, t1)
            return
        sampler = TorchSampler(request.sampling)
        reason: FinishReason = "length"
        while True:
            if self.cancel.cancelled:
                reason = "cancelled"
                break
            if self.completion_tokens >= room:
                reason = "length"
                break
            batch = self._budget_close()
            if not batch:
                token = rt.pick(logits, sampler, self.constraint)
                if rt.is_end(token):
                    reason = "stop"
                    break
                batch = [token]
                if self.constraint is not None:
                    self.constraint.consume(token)
                    forced = self.constraint.forced_tokens()[: room - self.completion_tokens - 1]
                    for f in forced:
                        self.constraint.consume(f)
                        sampler.accept(f)
                    batch += forced
            self.completion_tokens += len(batch)
            yield from self._emit(batch)
            if self.stops.hit:
                reason = "stop"
                break
            if self.completion_tokens < room:
                logits = rt.forward(batch)
        yield from self._end(reason, cached, t0, t1)

    def _budget_close(self) -> list[int]:
        """The tokens of `\\n</think>\\n\\n` once reasoning reaches `thinking_budget`."""
        budget = self.request.thinking_budget
        if budget is None or self.budget_spent or not self.parser.in_think or self.reasoning_tokens < budget:
            return []
        self.budget_spent = True
        close = self.rt.tokenize(THINK_CLOSE_TEXT)
        if self.constraint is not None:
            for token in close:
                self.constraint.consume(token)
        return close

    def _emit(self, batch: Sequence[int]) -> Iterator[Event]:
        for token in batch:
            thinking = self.parser.in_think
            text = self.stops.push(self.detok.push(token))
            if text:
                yield from self._parsed(self.parser.feed(text))
            if thinking or self.parser.in_think:
                self.reasoning_tokens += 1
            if self.stops.hit:
                return

    def _parsed(self, events: Sequence[Event]) -> Iterator[Event]:
        for event in events:
            if isinstance(event, ToolCallEvent):
                self.called = True
            yield event

    def _end(self, reason: FinishReason, cached: int, t0: float, t1: float) -> Iterator[Event]:
        t2 = time.perf_counter()
        tail = self.detok.flush()
        if not self.stops.hit:
            tail = self.stops.push(tail) + self.stops.flush()
        if tail:
            yield from self._parsed(self.parser.feed(tail))
        yield from self._parsed(self.parser.finish())
        yield Usage(
            prompt_tokens=len(self.tokens),
            cached_prompt_tokens=cached,
            completion_tokens=self.completion_tokens,
            reasoning_tokens=self.reasoning_tokens,
            prompt_ms=(t1 - t0) * 1000,
            generation_ms=(t2 - t1) * 1000,
            context_size=self.rt.context_size,
        )
        if reason == "cancelled":
            yield cancelled_event()
            return
        if reason == "stop" and self.called:
            reason = "tool_calls"
        detail = "; ".join(self.constraint.errors) if self.constraint is not None else ""
        yield Finished(reason, detail)


__all__ = ["DTYPES", "TorchSampler", "TransformersRuntime", "Utf8Detokenizer"]
