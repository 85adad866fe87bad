"""Qwen 3 GGUF models through llama-cpp-python, on our own token loop.

`create_chat_completion` cannot pass `enable_thinking`, does not parse `<tool_call>` and has no room
for a per-token grammar switch, so this backend renders the GGUF's own chat template, evaluates and
samples token by token, masks logits with llguidance only inside tool calls, and reuses the KV cache
of the previous call for the longest common token prefix (an agent loop re-evaluates only what is new).

With `verbose=False`, llama-cpp-python points file descriptors 1 and 2 at /dev/null while the model
loads: a process that speaks a protocol on stdout (ACP) must load before serving or keep the protocol
on a duplicate of fd 1.
"""

from __future__ import annotations

import codecs
import ctypes
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..chat_format import render_prompt
from ..constrain import ToolCallConstraint
from ..errors import ContextOverflowError, ModelLoadError, ModelNotFoundError, QwenRuntimeError
from ..parsing import ReplyParser
from ..qwen3_template import QWEN3_CHAT_TEMPLATE
from ..runtime import CancelToken, Runtime, cancelled_event
from ..types import (
    ChatRequest,
    Event,
    Finished,
    FinishReason,
    Sampling,
    ToolCallEvent,
    Usage,
    UserMessage,
)

log = logging.getLogger(__name__)

THINK_CLOSE_TEXT = "\n</think>\n\n"
"""What the runtime appends when `thinking_budget` runs out (Qwen's own spacing)."""

_ASSISTANT_OPEN = "<|im_start|>assistant"


def starts_in_think(prompt: str) -> bool:
    """True when the generation prompt already opened `<think>` (templates that pre-fill it)."""
    tail = prompt[prompt.rfind(_ASSISTANT_OPEN) :] if _ASSISTANT_OPEN in prompt else prompt[-64:]
    return tail.rfind("<think>") > tail.rfind("</think>")


@dataclass
class _StopFilter:
    """Holds back text that may be the start of a stop string; cuts the text at a whole one."""

    stops: tuple[str, ...]
    held: str = ""
    hit: bool = False
    longest: int = field(init=False)

    def __post_init__(self) -> None:
        self.stops = tuple(s for s in self.stops if s)
        self.longest = max((len(s) for s in self.stops), default=0)

    def push(self, text: str) -> str:
        if not self.stops:
            return text
        self.held += text
        cut = min((i for i in (self.held.find(s) for s in self.stops) if i >= 0), default=-1)
        if cut >= 0:
            self.hit = True
            out, self.held = self.held[:cut], ""
            return out
        keep = self.longest - 1
        out, self.held = (self.held[:-keep], self.held[-keep:]) if keep else (self.held, "")
        return out

    def flush(self) -> str:
        out, self.held = self.held, ""
        return out


class LlamaCppRuntime(Runtime):
    """A GGUF model (Qwen 3's chat format) loaded with llama.cpp; one generation at a time."""

    name = "llama.cpp"
    #: evaluate tokens the tool-call grammar forces in one batch instead of sampling them one by one
    fast_forward: bool = True

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        verbose: bool = False,
        chat_template: str | None = None,
    ) -> None:
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise ModelNotFoundError(f"GGUF model file not found: {path}")
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - a declared dependency
            raise ModelLoadError(f"llama-cpp-python is not importable: {exc}") from exc
        try:
            self._llm: Any = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_gpu_layers=n_gpu_layers,
                verbose=verbose,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelLoadError(f"llama.cpp cannot load {path}: {exc}") from exc
        self.model_path = path
        self._lock = threading.Lock()
        metadata: dict[str, str] = dict(self._llm.metadata)
        self.chat_template = chat_template or metadata.get("tokenizer.chat_template") or QWEN3_CHAT_TEMPLATE
        self._vocab = self._llm._model.vocab
        self._n_vocab = int(self._llm.n_vocab())
        self._pieces: dict[int, bytes] = {}
        self._piece_buf = ctypes.create_string_buffer(256)
        self._bos_text = self._token_text(self._llm.token_bos())
        self._eos_text = self._token_text(self._llm.token_eos())
        self._add_bos = bool(self._llm._model.add_bos_token())
        self._stop_ids = self._end_tokens()
        self._lltokenizer: Any = None
        self._logits_view: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self._logits_address: int | None = None

    # ---------------------------------------------------------------- Runtime API

    @property
    def context_size(self) -> int:
        return int(self._llm.n_ctx())

    def count_tokens(self, text: str) -> int:
        return len(self._tokenize(text))

    def close(self) -> None:
        with self._lock:
            self._llm.close()

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        cancel = cancel or CancelToken()
        if any(isinstance(m, UserMessage) and m.images for m in request.messages):
            raise QwenRuntimeError(f"{self.name} backend does not take images (model {self.model_path.name})")
        prompt = self.prompt_text(request)
        tokens = self._tokenize(prompt)
        if self._add_bos and (not tokens or tokens[0] != self._llm.token_bos()):
            tokens.insert(0, self._llm.token_bos())
        n_ctx = self.context_size
        if len(tokens) >= n_ctx:
            raise ContextOverflowError(len(tokens), n_ctx)
        with self._lock:
            yield from _Generation(self, request, prompt, tokens, cancel).run()

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
            self._llm.reset()

    # ---------------------------------------------------------------- tokens

    def _tokenize(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _token_text(self, token: int) -> str:
        if token < 0 or token >= self._n_vocab:
            return ""
        return self.piece(token).decode("utf-8", errors="replace")

    def piece(self, token: int) -> bytes:
        """The bytes of one token, special tokens as their text (`<tool_call>`), cached."""
        cached = self._pieces.get(token)
        if cached is not None:
            return cached
        import llama_cpp

        n = llama_cpp.llama_token_to_piece(self._vocab, token, self._piece_buf, len(self._piece_buf), 0, True)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = llama_cpp.llama_token_to_piece(self._vocab, token, buf, len(buf), 0, True)
            out = buf.raw[:n]
        else:
            out = self._piece_buf.raw[:n]
        self._pieces[token] = out
        return out

    def _end_tokens(self) -> frozenset[int]:
        import llama_cpp

        ids = {self._llm.token_eos(), int(llama_cpp.llama_vocab_eot(self._vocab))}
        for text in ("<|im_end|>", "<|endoftext|>"):
            found = self._tokenize(text)
            if len(found) == 1:
                ids.add(found[0])
        return frozenset(i for i in ids if 0 <= i < self._n_vocab)

    def is_end(self, token: int) -> bool:
        import llama_cpp

        return token in self._stop_ids or bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def lltokenizer(self) -> Any:
        """llguidance's view of the vocabulary, built on first use (~1 s for 150k tokens)."""
        if self._lltokenizer is None:
            from llguidance.llamacpp import lltokenizer_from_vocab

            self._lltokenizer = lltokenizer_from_vocab(
                self._vocab, n_vocab=self._n_vocab, eos_token=self._llm.token_eos()
            )
        return self._lltokenizer

    # ---------------------------------------------------------------- KV cache

    def reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the KV entries of the longest common prefix with the last call; returns its length."""
        llm = self._llm
        cached = llm.input_ids[: llm.n_tokens]
        n = min(len(cached), len(tokens))
        if n:
            same = np.asarray(cached[:n]) == np.asarray(tokens[:n], dtype=cached.dtype)
            common = n if bool(same.all()) else int(np.argmin(same))
        else:
            common = 0
        common = min(common, len(tokens) - 1)  # the last prompt token is evaluated again for its logits
        if common > 0 and llm._ctx.kv_cache_seq_rm(-1, common, -1):
            llm.n_tokens = common
            return common
        llm.reset()
        llm._ctx.kv_cache_clear()
        return 0

    def eval(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool:
        """Evaluate `tokens` in batches; False when cancelled in between."""
        llm = self._llm
        step = max(1, int(llm.n_batch))
        for i in range(0, len(tokens), step):
            if cancel is not None and cancel.cancelled:
                return False
            llm.eval(tokens[i : i + step])
        return True

    def logits(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The last evaluated position's logits, as a writable view into llama.cpp's buffer."""
        import llama_cpp

        ptr = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
        address = ctypes.cast(ptr, ctypes.c_void_p).value
        if address != self._logits_address or self._logits_view is None:  # llama.cpp moved its buffer
            self._logits_view = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
            self._logits_address = address
        return self._logits_view

    def sampler(self, sampling: Sampling) -> Any:
        import llama_cpp
        from llama_cpp import _internals

        make_sampler: Any = _internals.LlamaSampler
        s: Any = make_sampler()
        if sampling.repeat_penalty != 1.0 or sampling.frequency_penalty or sampling.presence_penalty:
            s.add_penalties(
                n_vocab=self._n_vocab,
                penalty_last_n=int(self._llm.last_n_tokens_size),
                penalty_repeat=sampling.repeat_penalty,
                penalty_freq=sampling.frequency_penalty,
                penalty_present=sampling.presence_penalty,
            )
        if sampling.temperature <= 0:
            s.add_greedy()
            return s
        if sampling.top_k > 0:
            s.add_top_k(sampling.top_k)
        if sampling.top_p < 1.0:
            s.add_top_p(sampling.top_p, 1)
        if sampling.min_p > 0:
            s.add_min_p(sampling.min_p, 1)
        s.add_temp(sampling.temperature)
        seed = llama_cpp.LLAMA_DEFAULT_SEED if sampling.seed is None else sampling.seed & 0xFFFFFFFF
        s.add_dist(seed)
        return s


class _Generation:
    """One request's token loop: prompt evaluation, sampling, constraint, decoding, events."""

    def __init__(
        self, rt: LlamaCppRuntime, request: ChatRequest, prompt: str, tokens: list[int], cancel: CancelToken
    ) -> None:
        self.rt = rt
        self.request = request
        self.tokens = tokens
        self.cancel = cancel
        self.in_think = starts_in_think(prompt)
        offered = request.offered_tools()
        self.parser = ReplyParser(offered, starts_in_think=self.in_think)
        self.constraint: ToolCallConstraint | None = None
        if offered:
            self.constraint = ToolCallConstraint(
                rt.lltokenizer(),
                offered,
                request.tool_choice,
                thinking=request.enable_thinking,
                starts_in_think=self.in_think,
                stop_tokens=sorted(rt._stop_ids),
            )
            for warning in self.constraint.warnings:
                log.warning("%s", warning)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.stops = _StopFilter(tuple(request.sampling.stop))
        self.completion_tokens = 0
        self.reasoning_tokens = 0
        self.budget_spent = False
        self.called = False

    def run(self) -> Iterator[Event]:
        rt, request = self.rt, self.request
        n_ctx = rt.context_size
        room = min(request.sampling.max_tokens, n_ctx - len(self.tokens))
        t0 = time.perf_counter()
        cached = rt.reuse_prefix(self.tokens)
        if not rt.eval(self.tokens[cached:], self.cancel):
            rt._llm.reset()  # a half-evaluated prompt must not pass for a cached one
            yield from self._end("cancelled", cached, t0, time.perf_counter())
            return
        t1 = time.perf_counter()
        sampler = rt.sampler(request.sampling)
        reason: FinishReason = "length"
        try:
            while True:
                if self.cancel.cancelled:
                    reason = "cancelled"
                    break
                if self.completion_tokens >= room:
                    reason = "length"
                    break
                batch = self._budget_close()
                for appended in batch:  # the penalties see what the model will have "said"
                    sampler.accept(appended)
                if not batch:
                    if self.constraint is not None:
                        self.constraint.apply(rt.logits())
                    token = int(sampler.sample(rt._llm._ctx, -1))
                    if rt.is_end(token):
                        reason = "stop"
                        break
                    batch = [token]
                    if self.constraint is not None:
                        self.constraint.consume(token)
                        forced = self.constraint.forced_tokens() if rt.fast_forward else []
                        forced = forced[: room - self.completion_tokens - 1]
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
                    rt.eval(batch)
        finally:
            sampler.close()
        yield from self._end(reason, cached, t0, t1)

    def _budget_close(self) -> list[int]:
        """The tokens of `\\n</think>\\n\\n` once reasoning reaches `thinking_budget` (evaluated by run)."""
        budget = self.request.thinking_budget
        if budget is None or self.budget_spent or not self.parser.in_think or self.reasoning_tokens < budget:
            return []
        self.budget_spent = True
        close = self.rt._tokenize(THINK_CLOSE_TEXT)
        if self.constraint is not None:
            for token in close:
                self.constraint.consume(token)
        return close

    def _emit(self, batch: Sequence[int]) -> Iterator[Event]:
        for token in batch:
            thinking = self.parser.in_think
            text = self.stops.push(self.decoder.decode(self.rt.piece(token)))
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
        tail = self.decoder.decode(b"", final=True)
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


__all__ = ["THINK_CLOSE_TEXT", "LlamaCppRuntime", "starts_in_think"]
