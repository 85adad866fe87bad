"""Qwen 3 GGUF models through llama-cpp-python, on our own token loop.

`create_chat_completion` cannot pass `enable_thinking`, does not parse `<tool_call>` and has no room
for a per-token grammar switch, so this backend renders the GGUF's own chat template, evaluates and
samples token by token, masks logits with llguidance only inside tool calls, and reuses the KV cache
of the previous call for the longest common token prefix (an agent loop re-evaluates only what is new).
Where that is not enough (a hybrid model, whose state cannot be cut back; a new process), it restores
the longest state saved in its `PromptCache` (memory checkpoints, the disk tier) and saves states at
the prompt's save points (see `save_points`).

With `verbose=False`, llama-cpp-python points file descriptors 1 and 2 at /dev/null while the model
loads: a process that speaks a protocol on stdout (ACP) must load before serving or keep the protocol
on a duplicate of fd 1.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..cpus import cpu_budget
from ..errors import ModelLoadError, ModelNotFoundError, QwenRuntimeError
from ..gguf_info import read_gguf_info
from ..images import DEFAULT_MAX_IMAGE_PIXELS
from ..model_report import build_report
from ..naming import find_mmproj
from ..prompt_cache import (
    DEFAULT_CHECKPOINTS,
    DEFAULT_MAX_BYTES,
    DiskPromptCache,
    PromptCache,
    model_identity,
    scope_key,
)
from ..qwen3_template import QWEN3_CHAT_TEMPLATE
from ..registry import memory_bytes
from ..runtime import CancelToken
from ..types import ChatRequest, Sampling
from ._generation import THINK_CLOSE_TEXT, LocalRuntime, starts_in_think
from .drafting import MTP, NO_DRAFT, PROMPT_LOOKUP, LongestDraft, PromptLookup, describe, draft_source
from .llama_build import default_gpu_layers, forward_llama_logs
from .llamacpp_mtp import MtpDraft, has_mtp
from .llamacpp_state import can_cut_back, copy_state, describe_state, restore_state
from .llamacpp_vision import TEXT_ONLY_ARCHS, TextOnlyDrafts, Vision, image_boundary
from .llamacpp_vocab import VocabTables, load_tables, remember, remembered, save_tables, vocab_key
from .save_points import PointKind, save_points

log = logging.getLogger(__name__)

HYBRID_MAX_DRAFT = 8
"""Recurrent-state snapshots a drafting hybrid model (Qwen 3.5) keeps per decode, so the longest draft
it can take back: each one is a copy of every DeltaNet layer's state (measured in bench/results/hybrid.md)."""


class LlamaCppRuntime(LocalRuntime):
    """A GGUF model (Qwen 3's chat format) loaded with llama.cpp; one generation at a time.

    `prompt_cache_dir` turns the disk tier of the prompt cache on (None: off), bounded by
    `prompt_cache_max_bytes`; `checkpoints` states are kept in memory for models whose state cannot be
    cut back (0: none). `cut_back=False` treats any model as one that cannot (tests, benchmarks).
    """

    name = "llama.cpp"

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_gpu_layers: int | None = None,
        verbose: bool = False,
        chat_template: str | None = None,
        extra_buffers: bool | None = None,
        prompt_cache_dir: str | Path | None = None,
        prompt_cache_max_bytes: int = DEFAULT_MAX_BYTES,
        checkpoints: int = DEFAULT_CHECKPOINTS,
        cut_back: bool | None = None,
        draft: str | None = PROMPT_LOOKUP,
        mmproj: str | None = None,
        image_max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
    ) -> None:
        """`draft`: "prompt-lookup" (default), "none", or the path of a draft model with the same tokenizer.
        `n_ctx` None sizes the context window to the model and this machine (`context_window`).
        `mmproj`: the projector that lets the model see images (an mmproj GGUF); None looks beside the
        model file (`mmproj-<model file>`, or the folder's one `mmproj*.gguf`), "none" loads none."""
        super().__init__()
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise ModelNotFoundError(f"GGUF model file not found: {path}")
        # what the header says (layers, template, trained length) and the context window it gets here
        self.report = build_report(read_gguf_info(path), memory=memory_bytes(), pinned_n_ctx=n_ctx)
        n_ctx = self.report.n_ctx
        log.info("context window: %d tokens (%s)", n_ctx, self.report.n_ctx_reason)
        try:
            import llama_cpp
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - a declared dependency
            raise ModelLoadError(f"llama-cpp-python is not importable: {exc}") from exc
        forward_llama_logs()  # llama.cpp's own lines go to logging, not to the user's terminal
        # None: every layer on the GPU when llama.cpp has a GPU backend, else none
        self.n_gpu_layers = default_gpu_layers() if n_gpu_layers is None else n_gpu_layers
        log.info("llama.cpp GPU layers: %d", self.n_gpu_layers)
        try:
            budget = cpu_budget()  # llama-cpp-python's own default (cpu_count // 2) is 1 thread on 2 vCPUs
        except ValueError as exc:  # QWEN_RUNTIME_THREADS set to nonsense
            raise ModelLoadError(str(exc)) from exc
        self.n_threads = n_threads or budget.decode_threads
        self.n_threads_batch = n_threads_batch or max(self.n_threads, budget.batch_threads)
        log.info("llama.cpp threads: %d decode, %d batch (%s)", self.n_threads, self.n_threads_batch,
                 "as given" if n_threads else budget.describe())
        self.extra_buffers = extra_buffers if extra_buffers is not None else not cpu_has_amx()
        # recurrent-state snapshots for dropping rejected drafts; llama.cpp clamps it to 0 on a model
        # whose architecture cannot roll back (any dense model: it cuts its KV cache back instead)
        snapshots = 0 if draft in (NO_DRAFT, "") else HYBRID_MAX_DRAFT
        try:
            with llama_params(model={"use_extra_bufts": self.extra_buffers, "load_mtp": snapshots > 0},
                              context={"n_rs_seq": snapshots}):
                self._llm: Any = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads_batch,
                    n_gpu_layers=self.n_gpu_layers,
                    verbose=verbose,
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelLoadError(f"llama.cpp cannot load {path}: {exc}") from exc
        self.model_path = path
        self._closed = False
        self._n_ctx = int(self._llm.n_ctx())
        self.rollback_snapshots = int(llama_cpp.llama_n_rs_seq(self._llm.ctx))
        """How many trailing tokens a hybrid model's state can drop after a decode (0: none)."""
        # bound once: the per-token methods (is_end, logits) should not re-run an import each call
        self._vocab_is_eog: Any = llama_cpp.llama_vocab_is_eog
        self._get_logits_ith: Any = llama_cpp.llama_get_logits_ith
        metadata: dict[str, str] = dict(self._llm.metadata)
        embedded = metadata.get("tokenizer.chat_template")
        if not chat_template:
            for warning in self.report.warnings:  # no template: say which one it falls back to
                log.warning("%s", warning)
        self.chat_template = chat_template or embedded or QWEN3_CHAT_TEMPLATE
        self._vocab = self._llm._model.vocab
        self._n_vocab = int(self._llm.n_vocab())
        self._pieces: dict[int, bytes] = {}
        self._piece_buf = ctypes.create_string_buffer(256)
        self._bos_text = self._token_text(self._llm.token_bos())
        self._eos_text = self._token_text(self._llm.token_eos())
        self._add_bos = bool(self._llm._model.add_bos_token())
        self._tables = self._vocab_tables(Path(prompt_cache_dir) / "vocab" if prompt_cache_dir else None)
        self._stop_ids = self._end_tokens()
        self._lltokenizer: Any = None
        self._logits_view: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self._logits_address: int | None = None
        self.cut_back = can_cut_back(self._llm) if cut_back is None else cut_back and can_cut_back(self._llm)
        self.arch = metadata.get("general.architecture", "?")
        self.vision: Vision | None = None
        try:
            self._load_vision(mmproj, image_max_pixels)
        except Exception:
            self._llm.close()
            raise
        state_setup = describe_state(self._llm, path, self.n_gpu_layers)
        if self.vision is not None:  # an image's placeholders stand for what this projector made of it
            state_setup["mmproj"] = model_identity(self.vision.path)
        disk = DiskPromptCache(Path(prompt_cache_dir), prompt_cache_max_bytes) if prompt_cache_dir else None
        self.prompt_cache = PromptCache(scope_key(state_setup), state_setup,
                                        checkpoints=0 if self.cut_back else checkpoints, disk=disk)
        self._row = -1  # the output row logits() and the sampler read: -1 the last, -n the n-th last
        self._rows = 1
        self._mtp: MtpDraft | None = None  # the model's own draft head, following every decode
        try:
            self._set_draft(draft, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers)
        except Exception:
            self._llm.close()  # a draft model that cannot be used: free the target before saying so
            raise
        if self.vision is not None and self.draft_source is not None:
            self.draft_source = TextOnlyDrafts(self.draft_source)

    def _load_vision(self, mmproj: str | None, max_pixels: int) -> None:
        if mmproj == "none":
            return
        found = Path(mmproj).expanduser() if mmproj else find_mmproj(self.model_path)
        if found is None:
            return
        self.vision = Vision(self._llm, found, n_threads=self.n_threads_batch, use_gpu=self.n_gpu_layers != 0,
                             max_pixels=max_pixels)
        self.supports_images = True
        log.info("vision: %s", found)

    def cannot_see(self) -> str:
        if self.arch in TEXT_ONLY_ARCHS:
            return f"model {self.model_path.name} cannot see images: it is a text-only model ({self.arch})"
        return (f"model {self.model_path.name} cannot see images: no projector (mmproj) is loaded; pass "
                "--mmproj FILE, set `mmproj` in the settings, or put mmproj-" + self.model_path.name
                + " beside the model")

    # ---------------------------------------------------------------- Runtime API

    @property
    def context_size(self) -> int:
        return self._n_ctx

    def model_details(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.report.lines())

    def close(self) -> None:
        with self._lock:
            self._closed = True  # set first: a prefill thread that has not taken the lock yet stops at it
            if self.vision is not None:
                self.vision.close()
            if self.draft_source is not None:  # first: the MTP head's context lives on the model's weights
                self.draft_source.close()
                self.draft_source = None
            self._mtp = None
            self._llm.close()

    def check_open(self) -> None:
        """A closed model's memory is freed: touching it would crash the process, so raise instead."""
        if self._closed:
            raise QwenRuntimeError(f"model {self.model_path.name} is closed")

    def prompt_text(self, request: ChatRequest, *, add_generation_prompt: bool = True) -> str:
        """The rendered prompt; images are written as markers that `prompt_tokens` reads."""
        if self.vision is not None and request.images():
            request = self.vision.with_markers(request)
        return super().prompt_text(request, add_generation_prompt=add_generation_prompt)

    def prompt_tokens(self, prompt: str) -> list[int]:
        vision = self.vision
        tokens = vision.prompt_tokens(prompt, self.tokenize) if vision is not None else self.tokenize(prompt)
        if self._add_bos and (not tokens or tokens[0] != self._llm.token_bos()):
            tokens.insert(0, self._llm.token_bos())
        return tokens

    def clear_cache_unlocked(self) -> None:
        """Forget the live state and the memory checkpoints (the disk tier stays)."""
        self._llm.reset()
        self._llm._ctx.kv_cache_clear()
        self.prompt_cache.forget()
        if self._mtp is not None:
            self._mtp.after_clear()

    # ---------------------------------------------------------------- tokens

    def tokenize(self, text: str) -> list[int]:
        self.check_open()
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
            found = self.tokenize(text)
            if len(found) == 1:
                ids.add(found[0])
        # every token llama.cpp ends generation on (for Qwen GGUFs it adds <|fim_pad|>, <|repo_name|>,
        # <|file_sep|>): the tool-call constraint bans these while a call is owed, so all must be known
        ids |= self._tables.end_tokens if self._tables is not None else self._scan_vocab()[1]
        return frozenset(i for i in ids if 0 <= i < self._n_vocab)

    def _scan_vocab(self, pieces: bool = False) -> tuple[frozenset[int], frozenset[int]]:
        """One walk over the vocabulary: (tokens llguidance treats as special, tokens that end a turn);
        with `pieces`, every token's bytes land in the piece cache on the way."""
        import llama_cpp

        control, user = int(llama_cpp.LLAMA_TOKEN_ATTR_CONTROL), int(llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED)
        special: set[int] = set()
        ends: set[int] = set()
        for token in range(self._n_vocab):
            attr = int(llama_cpp.llama_vocab_get_attr(self._vocab, token))
            if attr & (control | user) and self._vocab_is_eog(self._vocab, token):
                ends.add(token)
            if pieces:
                piece = self.piece(token)
                if attr & control or (attr & user and piece.startswith(b"<") and piece.endswith(b">")):
                    special.add(token)
        return frozenset(special), frozenset(ends)

    def _vocab_tables(self, folder: Path | None) -> VocabTables | None:
        """The vocabulary's derived tables: from this process's memory, else from `folder` (built and
        saved there the first time); None when neither has them (then the end tokens are scanned now
        and the pieces when first needed)."""
        tables = remembered(self._vocab_key, self._n_vocab)
        if folder is not None:
            path = folder / f"{self._vocab_key}.bin"
            if tables is None:
                tables = load_tables(path, self._n_vocab)
                if tables is None:
                    tables = self._build_tables()
                    save_tables(path, tables)
                remember(self._vocab_key, tables)
            elif not path.is_file():
                save_tables(path, tables)
        if tables is not None:
            self._pieces.update(enumerate(tables.pieces))
        return tables

    def _build_tables(self) -> VocabTables:
        special, ends = self._scan_vocab(pieces=True)
        return VocabTables([self.piece(t) for t in range(self._n_vocab)], special, ends)

    @functools.cached_property
    def _vocab_key(self) -> str:
        import llama_cpp

        return vocab_key(self.model_path, getattr(llama_cpp, "__version__", "?"))

    def is_end(self, token: int) -> bool:
        return token in self._stop_ids or bool(self._vocab_is_eog(self._vocab, token))

    def lltokenizer(self) -> Any:
        """llguidance's view of the vocabulary, built on first use (~1 s for 150k tokens)."""
        if self._lltokenizer is None:
            import llama_cpp
            from llguidance import LLTokenizer

            if self._tables is None:
                self._tables = self._build_tables()
                remember(self._vocab_key, self._tables)
            tables = self._tables
            # as llguidance.llamacpp.lltokenizer_from_vocab does, from tables that may come from disk
            tokens = [b"\xff" + p if i in tables.special else p for i, p in enumerate(tables.pieces)]
            tokenize = ctypes.cast(llama_cpp.llama_cpp._lib.llama_tokenize, ctypes.c_void_p).value
            self._lltokenizer = LLTokenizer.from_llamacpp(  # type: ignore[attr-defined]
                tokens=tokens, vocab_ptr=self._vocab, tokenize_fptr=tokenize, eos_token=self._llm.token_eos(),
                slices=None)
        return self._lltokenizer

    # ---------------------------------------------------------------- KV cache

    def reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the longest prefix of `tokens` the live state or a saved state holds (all but the last
        token at most: it is evaluated again for its logits); returns its length."""
        return self._reuse(tokens, len(tokens) - 1)

    def prefill_prefix(self, tokens: Sequence[int]) -> int:
        if self._live_common(tokens) == len(tokens):
            self.last_restored = 0
            return len(tokens)  # a request that already ran holds all of it (and more: keep that)
        return self._reuse(tokens, len(tokens))

    def _live_common(self, tokens: Sequence[int]) -> int:
        llm = self._llm
        cached = llm.input_ids[: llm.n_tokens]
        n = min(len(cached), len(tokens))
        if not n:
            return 0
        same = np.asarray(cached[:n]) == np.asarray(tokens[:n], dtype=cached.dtype)
        return n if bool(same.all()) else int(np.argmin(same))

    def _reuse(self, tokens: Sequence[int], limit: int) -> int:
        llm = self._llm
        self.last_restored = 0
        self._row, self._rows = -1, 1  # a verified draft's rows mean nothing once the state changes
        common = image_boundary(tokens, min(self._live_common(tokens), limit))
        live = common if self.cut_back or common == llm.n_tokens else 0  # a hybrid state cannot be cut back
        # memory checkpoints are partial (the recurrent part): restored over the live cache's prefix
        n, tier = self.prompt_cache.longest(tokens, limit, at_least=live, memory_limit=common)
        if n:
            data = self.prompt_cache.load(tokens[:n], tier)
            if data is not None:
                if restore_state(llm.ctx, data, partial_at=self._position(n) if tier == "memory" else None):
                    llm.input_ids[:n] = tokens[:n]
                    llm.n_tokens = n
                    self.last_restored = n
                    if self._mtp is not None:
                        self._mtp.after_truncate(n)
                    log.debug("restored %d prompt tokens from the %s tier", n, tier)
                    return n
                live = 0  # the memory was cleared for the restore
        if live > 0 and (live == llm.n_tokens or llm._ctx.kv_cache_seq_rm(-1, self._position(live), -1)):
            llm.n_tokens = live
            if self._mtp is not None:
                self._mtp.after_truncate(live)
            return live
        llm.reset()
        llm._ctx.kv_cache_clear()
        if self._mtp is not None:
            self._mtp.after_clear()
        return 0

    def eval_prompt(
        self, request: ChatRequest, tokens: Sequence[int], start: int, cancel: CancelToken | None = None
    ) -> bool:
        """Evaluate `tokens[start:]` in pieces that end at the prompt's save points, saving the state at
        each. The pieces are the same whether or not anything is saved: a batch boundary changes the
        logits a little, and output must not depend on the cache."""
        done = start
        for point in save_points(self, request, tokens):
            if point.position <= done:
                continue
            if not self.eval_tokens(tokens[done : point.position], cancel):
                return False
            done = point.position
            self._save(tokens[:done], point.kind)
        return self.eval_tokens(tokens[done:], cancel)

    def _save(self, prefix: Sequence[int], kind: PointKind) -> None:
        cache = self.prompt_cache
        to_memory = cache.max_checkpoints > 0
        to_disk = kind != "round" and cache.disk is not None and not cache.on_disk(prefix)
        if not (to_memory or to_disk):
            return
        if to_memory and (part := copy_state(self._llm.ctx, partial=True)) is not None:
            cache.keep(prefix, part)
        if to_disk and (data := copy_state(self._llm.ctx)) is not None:
            cache.save(prefix, data)

    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool:
        """Evaluate `tokens` in batches; False when cancelled in between (the cache is then dropped:
        a half-evaluated prompt must not pass for a cached one)."""
        llm = self._llm
        self._row, self._rows = -1, 1
        if self.vision is not None and (min(tokens, default=0) < 0 or self._position(llm.n_tokens) != llm.n_tokens):
            return self.vision.eval_tokens(tokens, cancel)  # images, or text after them: positions differ
        step = max(1, int(llm.n_batch))
        for i in range(0, len(tokens), step):
            if cancel is not None and cancel.cancelled:
                llm.reset()
                if self._mtp is not None:
                    self._mtp.after_clear()
                return False
            n_past = int(llm.n_tokens)
            llm.eval(tokens[i : i + step])
            if self._mtp is not None:
                self._mtp.after_decode(tokens[i : i + step], n_past)
        return True

    def _position(self, n: int) -> int:
        """The position of the live state's token at index `n` (images take fewer positions than tokens)."""
        return n if self.vision is None else self.vision.position(self._llm.input_ids, n)

    def logits(self) -> npt.NDArray[np.float32]:
        """The last evaluated position's logits, as a writable view into llama.cpp's buffer."""
        ptr = self._get_logits_ith(self._llm.ctx, self._row)
        address = ctypes.cast(ptr, ctypes.c_void_p).value
        if address != self._logits_address or self._logits_view is None:  # llama.cpp moved its buffer
            self._logits_view = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
            self._logits_address = address
        return self._logits_view

    def new_sampler(self, sampling: Sampling) -> _LlamaSampler:
        return _LlamaSampler(self._sampler_chain(sampling), self._llm._ctx, self)

    # ---------------------------------------------------------------- drafts (see drafting.py)

    def _set_draft(self, draft: str | None, **options: Any) -> None:
        import llama_cpp

        model = self._llm._model.model
        if llama_cpp.llama_model_is_recurrent(model) or llama_cpp.llama_model_is_hybrid(model):
            if not self.rollback_snapshots:
                log.info("draft: none (this recurrent model's state cannot drop rejected draft tokens)")
                return
            self.max_draft = self.rollback_snapshots  # rejected tokens are dropped by snapshot, at most this many

        def load(path: Path) -> LocalRuntime:
            runtime = LlamaCppRuntime(str(path), n_threads=self.n_threads, n_threads_batch=self.n_threads_batch,
                                      extra_buffers=self.extra_buffers, draft="none", **options)
            if runtime._n_vocab != self._n_vocab or any(runtime.piece(t) != self.piece(t) for t in range(
                    0, self._n_vocab, max(1, self._n_vocab // 512))):
                runtime.close()
                raise ModelLoadError(f"draft model {path} does not share the tokenizer of {self.model_path}")
            return runtime

        if draft in (None, PROMPT_LOOKUP, MTP) and has_mtp(self._llm):
            self._mtp = MtpDraft(self._llm, self.n_threads, self.n_threads_batch)
            self.draft_source = self._mtp if draft == MTP else LongestDraft(PromptLookup(), self._mtp)
        elif draft == MTP:
            raise ModelLoadError(f"draft {MTP!r}: {self.model_path.name} has no multi-token-prediction layers")
        else:
            self.draft_source = draft_source(draft, load)
        log.info("draft: %s", describe(self.draft_source))

    def eval_with_rows(self, tokens: Sequence[int], rows: int) -> None:
        """One `llama_decode` with an output row for each of the last `rows` tokens (the verifying
        positions of a draft); `Llama.eval` keeps only the last one unless logits_all is set for
        every batch, prompts included."""
        llm = self._llm
        step = max(1, int(llm.n_batch))
        head = max(0, len(tokens) - step)
        if head:
            self.eval_tokens(tokens[:head])
        tail = tokens[head:]
        n_past = int(llm.n_tokens)
        pos = self._position(n_past)
        llm._ctx.kv_cache_seq_rm(-1, pos, -1)
        batch = llm._batch
        batch.set_batch(batch=tail, n_past=pos, logits_all=False)
        for i in range(len(tail) - rows, len(tail)):
            batch.batch.logits[i] = True
        llm._ctx.decode(batch)
        if self._mtp is not None:
            self._mtp.after_decode(tail, n_past)
        llm.input_ids[n_past : n_past + len(tail)] = tail
        llm.n_tokens = n_past + len(tail)
        self._rows = rows
        self._row = -rows

    def select_row(self, row: int) -> None:
        self._row = row - self._rows

    def truncate(self, n_tokens: int) -> bool:
        """Drop the cache after `n_tokens`. A hybrid model's recurrent state rolls back to a snapshot the
        last decode kept (at most `rollback_snapshots` tokens back, once per decode: what drafting needs)."""
        import llama_cpp

        llm = self._llm
        if n_tokens >= llm.n_tokens:
            return True
        if self.cut_back:
            done = llm._ctx.kv_cache_seq_rm(-1, self._position(n_tokens), -1)
        else:  # a sequence of its own: llama.cpp refuses a partial removal across all sequences of a hybrid
            done = llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(llm.ctx), 0, self._position(n_tokens), -1)
        if not done:
            return False
        llm.n_tokens = n_tokens
        if self._mtp is not None:
            self._mtp.after_truncate(n_tokens)
        return True

    def _sampler_chain(self, sampling: Sampling) -> Any:
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


def cpu_has_amx() -> bool:
    """Whether llama.cpp would use its AMX weight buffers here.

    Measured on a Xeon with AMX: the vendored llama.cpp of llama-cpp-python 0.3.36 segfaults in the
    first `decode` of a Q4_K_M model (Gemma 3 270M) when its extra CPU buffer types are on, and runs
    correctly with them off; so on such CPUs they are off unless asked for (`extra_buffers=True`).
    """
    import llama_cpp

    info = llama_cpp.llama_print_system_info()
    text = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
    return "AMX_INT8 = 1" in text


_params_lock = threading.Lock()


@contextmanager
def llama_params(model: dict[str, Any] | None = None, context: dict[str, Any] | None = None) -> Iterator[None]:
    """Set model- and context-parameter fields that `Llama()` does not take as arguments
    (`use_extra_bufts`, `n_rs_seq`).

    `Llama.__init__` builds its parameters from `llama_model_default_params()` and
    `llama_context_default_params()`; those calls are wrapped while a model loads, under a lock so two
    loads in one process cannot interleave.
    """
    import importlib

    binding: Any = importlib.import_module("llama_cpp.llama").llama_cpp  # the module Llama calls
    originals = {"llama_model_default_params": (binding.llama_model_default_params, model or {}),
                 "llama_context_default_params": (binding.llama_context_default_params, context or {})}

    def with_fields(original: Any, fields: dict[str, Any]) -> Any:
        def make() -> Any:
            params = original()
            for name, value in fields.items():
                setattr(params, name, value)
            return params

        return make

    with _params_lock:
        for name, (original, fields) in originals.items():
            setattr(binding, name, with_fields(original, fields))
        try:
            yield
        finally:
            for name, (original, _) in originals.items():
                setattr(binding, name, original)


def model_params(**fields: Any) -> contextlib.AbstractContextManager[None]:
    """`llama_params` for model fields only (`use_extra_bufts`)."""
    return llama_params(model=fields)


class _LlamaSampler:
    """llama.cpp's sampler chain, sampling the context's last logits."""

    def __init__(self, chain: Any, ctx: Any, runtime: LlamaCppRuntime) -> None:
        self._chain = chain
        self._ctx = ctx
        self._runtime = runtime

    def accept(self, token: int) -> None:
        self._chain.accept(token)

    def sample(self) -> int:
        return int(self._chain.sample(self._ctx, self._runtime._row))

    def close(self) -> None:
        self._chain.close()


__all__ = ["THINK_CLOSE_TEXT", "LlamaCppRuntime", "starts_in_think"]
