"""Qwen 3 GGUF models through llama-cpp-python, on our own token loop.

`create_chat_completion` cannot pass `enable_thinking`, does not parse `<tool_call>` and has no room
for a per-token grammar switch, so this backend renders the GGUF's own chat template, evaluates and
samples token by token, masks logits with llguidance only inside tool calls, and reuses the KV cache
of the previous call for the longest common token prefix (an agent loop re-evaluates only what is new).
Where that is not enough (a hybrid model, whose state cannot be cut back; a new process), it restores
the longest state saved in its `PromptCache` (memory checkpoints, the disk tier) and saves states at
the prompt's save points (see `save_points`).

llama.cpp's log lines go to logging (`forward_llama_logs`); llama-cpp-python's own silencing, which
pointed the whole process's stdout and stderr at /dev/null while a model loaded, is turned off
(`keep_std_streams`): other threads print and speak protocols on them meanwhile.

Long because: `LlamaCppRuntime` is one object over one llama.cpp context, and the primitives the
token loop asks of it (tokens, KV cache reuse and truncation, logits rows, drafts, saved states) all
read and move that same native state; what stands apart lives beside it (`load`, `state`, `vocab`,
`sampling`, `mtp`, `vision`).
"""

from __future__ import annotations

import ctypes
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import ModelLoadError, QwenRuntimeError
from ...home import expand_home
from ...images import DEFAULT_MAX_IMAGE_PIXELS
from ...models.chat_format import compile_beside
from ...models.gguf_info import read_gguf_info
from ...models.naming import find_mmproj
from ...models.projector import TEXT_ONLY_ARCHS, check_projector
from ...models.qwen3_template import QWEN3_CHAT_TEMPLATE
from ...models.registry import memory_bytes
from ...models.report import build_report, read_chat_template
from ...runtime import CancelToken
from ...speed.draft_control import DraftController, check_verify_costs
from ...speed.draft_sources import MTP, NO_DRAFT, DraftSpec, parse_draft
from ...speed.drafting import LongestDraft, describe, draft_source
from ...speed.learned_costs import LearnedCosts, learned_path, read_learned, write_learned
from ...speed.prompt_cache import (
    DEFAULT_CHECKPOINTS,
    DEFAULT_MAX_BYTES,
    DiskPromptCache,
    PromptCache,
    model_identity,
    scope_key,
)
from ...speed.save_points import PointKind, eval_at_save_points
from ...speed.tuning import TunedSettings, tuned_settings
from ...types import ChatRequest, Sampling
from .._generation import THINK_CLOSE_TEXT, LocalRuntime, starts_in_think
from .lltokenizer import EarlyView
from .load import (
    DEFAULT_N_BATCH,
    DEFAULT_N_UBATCH,
    Placement,
    cpu_has_amx,
    llama_params,
    model_file,
    model_params,
    open_llama,
)
from .mtp import MtpDraft
from .sampling import LlamaSampler, plain_greedy, sampler_chain
from .state import copy_state, describe_state, restore_state
from .threads import FollowedThreads
from .vision import TextOnlyDrafts, Vision, image_boundary
from .vocab import LlamaVocab, start_early_view

log = logging.getLogger(__name__)

_RESTORE_TRIES = 3
"""Saved states tried, longest first, before a prompt is evaluated from the start (or the live prefix)."""

HYBRID_MAX_DRAFT = 8
"""Recurrent-state snapshots a drafting hybrid model (Qwen 3.5) keeps per decode, so the longest draft
it can take back: each one is a copy of every DeltaNet layer's state (measured in bench/results/hybrid.md)."""


def _tuned_costs(tuned: TunedSettings | None) -> dict[int, float] | None:
    """The verify costs `qwen-runtime tune` measured, as the draft controller's priors; a record's costs
    the controller would refuse are ignored with a warning (a record never stops a load)."""
    if tuned is None or not tuned.verify_costs:
        return None
    try:
        return check_verify_costs(tuned.verify_costs)
    except ModelLoadError as exc:
        log.warning("the tuned verify costs are not used: %s", exc)
        return None


class LlamaCppRuntime(LocalRuntime):
    """A GGUF model (Qwen 3's chat format) loaded with llama.cpp; one generation at a time.

    `prompt_cache_dir` turns the disk tier of the prompt cache on (None: off), bounded by
    `prompt_cache_max_bytes`; `checkpoints` states are kept in memory for models whose state cannot be
    cut back to any prefix (0: none): a hybrid's recurrent layers, a sliding window's layers (they keep
    only the window; a cut that leaves it whole is still made live). `cut_back=False` treats any model as
    one that cannot (tests, benchmarks).
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
        chat_template_file: str | Path | None = None,
        extra_buffers: bool | None = None,
        prompt_cache_dir: str | Path | None = None,
        prompt_cache_max_bytes: int = DEFAULT_MAX_BYTES,
        checkpoints: int = DEFAULT_CHECKPOINTS,
        cut_back: bool | None = None,
        draft: str | None = None,
        mmproj: str | None = None,
        image_max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
        n_batch: int | None = None,
        n_ubatch: int | None = None,
        kv_cache_type: str | None = None,
        max_draft: int | None = None,
        verify_costs: Mapping[int, float] | None = None,
        tuned: bool = True,
    ) -> None:
        """`draft`: "prompt-lookup" (the default; also "ngram"), "mtp", "none", or the path of a draft model
        with the same tokenizer (`parse_draft` reads it); `max_draft` the longest draft. `verify_costs`:
        batch size -> what evaluating it costs in one-token steps, measured beforehand (`qwen-runtime
        tune` measures them); the draft length controller starts from it (else from defaults) and goes
        on measuring.
        `n_ctx` None sizes the context window to the model and this machine (`context_window`).
        `n_batch` / `n_ubatch`: tokens per evaluation (logical / physical; 2048 / 512 by default); `kv_cache_type`
        "f16" (default) or "q8_0".
        `mmproj`: the projector that lets the model see images (an mmproj GGUF); None looks beside the
        model file (`mmproj-<model file>`, or the folder's one `mmproj*.gguf`), "none" loads none.
        `chat_template` (text) or `chat_template_file` (a Jinja file or a tokenizer_config.json) replaces
        the template the GGUF carries, for a file that has none or a wrong one.
        `tuned`: take what `qwen-runtime tune` chose for this model file on this machine (`tuning`) for
        each of threads, batch sizes, draft source and length and KV cache type not given here."""
        super().__init__()
        parse_draft(draft)  # a bad draft source is said before the model loads
        if chat_template is None and chat_template_file is not None:  # a bad file is said before the load too
            chat_template = read_chat_template(chat_template_file)
        given_costs = check_verify_costs(verify_costs)
        self.model_path = path = model_file(model_path)
        self.tuning: TunedSettings | None = tuned_settings(path) if tuned else None
        """The tuned record this load started from (None: not tuned here, or `tuned=False`)."""
        t = self.tuning
        spec = parse_draft(draft if draft is not None or t is None else t.draft)
        self.n_batch = n_batch or (t.n_batch if t is not None else DEFAULT_N_BATCH)
        self.n_ubatch = min(self.n_batch, n_ubatch or (t.n_ubatch if t is not None else DEFAULT_N_UBATCH))
        self.kv_cache_type = kv_cache_type or (t.kv_cache_type if t is not None else "f16")
        longest = max_draft if max_draft is not None else t.max_draft if t is not None else None
        if longest is not None:
            self.max_draft = max(1, longest)
        # the controller starts from the costs given here, else from those tuning measured on this machine
        self.verify_costs = given_costs if given_costs is not None else _tuned_costs(t)
        self._closed = False
        self.vision: Vision | None = None
        self._mtp: MtpDraft | None = None  # the model's own draft head, following every decode
        table_dir = Path(prompt_cache_dir) / "vocab" if prompt_cache_dir else None
        # what the header says (layers, template, trained length) and the context window it gets here
        info = read_gguf_info(path, table_dir)
        self.report = build_report(info, memory=memory_bytes(), pinned_n_ctx=n_ctx, chat_template=chat_template,
                                   template_file=str(chat_template_file or "given by the caller"))
        self.load_warnings = self.report.warnings
        log.info("context window: %d tokens (%s)", self.report.n_ctx, self.report.n_ctx_reason)
        placement = Placement.choose(n_threads, n_threads_batch, n_gpu_layers, extra_buffers,
                                     tuned=(t.n_threads, t.n_threads_batch) if t is not None else None)
        self.n_threads, self.n_threads_batch = placement.n_threads, placement.n_threads_batch
        self.n_gpu_layers, self.extra_buffers = placement.n_gpu_layers, placement.extra_buffers
        if t is not None:
            self._log_tuning(t, {"threads": n_threads, "batch threads": n_threads_batch, "n_batch": n_batch,
                                 "n_ubatch": n_ubatch, "draft": draft, "max draft": max_draft,
                                 "KV cache type": kv_cache_type})
        self.learned_costs_path: Path | None = None
        """Where the draft costs measured here are kept for the next process (None: given or tuned, no
        prompt cache folder, or no drafting)."""
        self._learned: LearnedCosts | None = None
        if self.verify_costs is None and table_dir is not None and spec.kind != NO_DRAFT:
            self._start_from_learned(table_dir)
        # recurrent-state snapshots for dropping rejected drafts (llama.cpp clamps them to 0 on a model
        # whose architecture cannot roll back: any dense model cuts its KV cache back instead). A hybrid
        # allocates them at its first draft (`prepare_draft`; +258 MiB on the 0.8B shape, for nothing
        # where nothing is ever drafted); only the MTP head, which drafts from the first step and follows
        # the model's own context, needs them from the load. The head drafts only where asked for
        # (`--draft mtp`, or `qwen-runtime tune` chose it): following every decode costs a step's worth
        # each few tokens whether or not anything is drafted (0.87x of `--draft none` on the 0.8B shape
        # with the default controller drafting almost nothing), and its drafts pay on this kind of CPU
        # only above 80-100% acceptance (bench/results/mtp.md).
        mtp_drafts = spec.kind == MTP and bool(info.nextn_layers)
        snapshots = HYBRID_MAX_DRAFT if mtp_drafts else 0
        self._snapshots_later = spec.kind != NO_DRAFT and not mtp_drafts  # prepare_draft opens them
        self._rollback_failed = False  # llama.cpp could not reopen the context with them: no drafts
        # llguidance's view of the vocabulary (a second of CPU, GIL held) builds from the saved tables
        # while llama.cpp loads (GIL released)
        early = start_early_view(path, table_dir)
        compile_beside(chat_template or info.chat_template or QWEN3_CHAT_TEMPLATE)  # what _read_model picks
        try:
            self._native = open_llama(path, self.report.n_ctx, placement, snapshots=snapshots, verbose=verbose,
                                      n_batch=self.n_batch, n_ubatch=self.n_ubatch,
                                      kv_cache_type=self.kv_cache_type, quiet=early is not None,
                                      load_mtp=mtp_drafts)
        except BaseException:
            if early is not None:
                early.abandon()
            raise
        self._llm: Any = self._native.llm
        self.threads: FollowedThreads | None = None
        """Thread counts chosen from measured steps as the machine's load changes; None where they were
        given or tuned (`qwen-runtime tune` is the explicit choice)."""
        if n_threads is None and n_threads_batch is None and t is None:
            self.threads = FollowedThreads(self._native, self.n_threads, self.n_threads_batch)
        self.flash_attention = self._native.flash_attention
        """Flash attention as llama.cpp's auto resolved it ("enabled", "disabled"; "auto": not said)."""
        log.info("flash attention: %s", self.flash_attention)
        try:
            self._read_model(chat_template, cut_back)
            self._read_vocabulary(table_dir, early)
            self._load_vision(mmproj, image_max_pixels)
            self._open_prompt_cache(Path(prompt_cache_dir) if prompt_cache_dir else None, prompt_cache_max_bytes,
                                    checkpoints)
            self._set_draft(spec, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers)
        except Exception:
            if early is not None:
                early.abandon()
            self.close()  # a projector or draft model that cannot be used: free the model before saying so
            raise

    # ---------------------------------------------------------------- loading, in __init__'s order

    def _start_from_learned(self, table_dir: Path) -> None:
        """Draft costs measured here by an earlier process with this model and setup, as priors."""
        from .lib import llama_cpp

        setup = {"threads": self.n_threads, "threads_batch": self.n_threads_batch, "n_batch": self.n_batch,
                 "n_ubatch": self.n_ubatch, "kv_cache_type": self.kv_cache_type, "gpu_layers": self.n_gpu_layers,
                 "llama_cpp": getattr(llama_cpp, "__version__", "?")}
        try:
            self.learned_costs_path = learned_path(table_dir, self.model_path, setup)
        except OSError:
            return
        self._learned = learned = read_learned(self.learned_costs_path)
        if learned is not None:
            self.verify_costs, self.overhead_prior = learned.verify_costs, learned.rollback_overhead
            log.info("draft: starting from the costs measured here before (batch of 2: %.2f steps%s)",
                     learned.verify_costs.get(2, float("nan")),
                     "" if learned.rollback_overhead is None else
                     f"; rollback snapshots +{100 * (learned.rollback_overhead - 1):.0f}%")

    def request_finished(self) -> None:
        """Keep the draft costs measured so far for the next process (when they moved)."""
        policy = self.draft_policy
        if self.learned_costs_path is None or not isinstance(policy, DraftController):
            return
        measured = policy.learned()
        if measured is None:
            return
        before = self._learned
        learned = LearnedCosts(
            {**(before.verify_costs if before is not None else {}), **measured.verify_costs},
            measured.rollback_overhead if measured.rollback_overhead is not None
            else before.rollback_overhead if before is not None else None)
        if not learned.close_to(before):
            write_learned(self.learned_costs_path, learned)
            self._learned = learned


    def _log_tuning(self, tuned: TunedSettings, given: dict[str, object]) -> None:
        """Say (at --verbose) which tuned values this load takes and which the caller overrode."""
        kept = [name for name, value in given.items() if value is not None]
        log.info("tuned settings for %s (measured %s): %s%s", self.model_path.name, tuned.when, tuned.summary(),
                 f"; given here instead: {', '.join(kept)}" if kept else "")

    def _read_model(self, chat_template: str | None, cut_back: bool | None) -> None:
        """What the loaded model is: its context, architecture, template, and whether its state can be cut back."""
        from .lib import llama_cpp

        llm = self._llm
        self._n_ctx = int(llm.n_ctx())
        self.rollback_snapshots = int(llama_cpp.llama_n_rs_seq(llm.ctx))
        """How many trailing tokens a hybrid model's state can drop after a decode (0: none)."""
        self._get_logits_ith: Any = llama_cpp.llama_get_logits_ith  # bound once: logits() runs every token
        self._logits_view: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self._logits_address: int | None = None
        self._row = -1  # the output row logits() and the sampler read: -1 the last, -n the n-th last
        self._rows = 1
        metadata: dict[str, str] = dict(llm.metadata)
        self.arch = metadata.get("general.architecture", "?")
        for warning in self.report.warnings:  # no template, or one without a call format: say what is assumed
            log.warning("%s", warning)
        self.chat_template = chat_template or metadata.get("tokenizer.chat_template") or QWEN3_CHAT_TEMPLATE
        self._windowed = self._native.attention_window > 0
        """A sliding window's layers hold only the window: a cut back is made only where it stays whole."""
        self._cut_live = cut_back is not False  # `cut_back=False`: every shorter prefix from a checkpoint
        self.cut_back = cut_back is not False and not self._native.recurrent and not self._windowed

    def _read_vocabulary(self, table_dir: Path | None, early: EarlyView | None) -> None:
        """Token bytes, end tokens and llguidance's view, from the tables on disk when there are some."""
        words = self._words = LlamaVocab(self._native, self.model_path, table_dir, early)
        self._n_vocab = words.n_vocab
        self._stop_ids = words.end_tokens
        self._bos_text = words.text(self._llm.token_bos())
        self._eos_text = words.text(self._llm.token_eos())

    def _load_vision(self, mmproj: str | None, max_pixels: int) -> None:
        """The projector named (it must fit: else an error naming both files) or the one beside the model
        that belongs to it (else none: the model does not see); never one of another model's size."""
        if mmproj == "none":
            return
        if mmproj:
            found: Path | None = expand_home(mmproj)
            assert found is not None
            check_projector(self.model_path, found)
        else:
            found = find_mmproj(self.model_path)
        if found is None:
            return
        self.vision = Vision(self._native, found, n_threads=self.n_threads_batch, use_gpu=self.n_gpu_layers != 0,
                             max_pixels=max_pixels)
        self.supports_images = True
        log.info("vision: %s", found)

    def _open_prompt_cache(self, folder: Path | None, max_bytes: int, checkpoints: int) -> None:
        """Memory checkpoints (only for a model whose state cannot be cut back) and the disk tier, keyed by
        everything a saved state depends on."""
        state_setup = describe_state(self._llm, self.model_path, self.n_gpu_layers)
        if self.vision is not None:  # an image's placeholders stand for what this projector made of it
            state_setup["mmproj"] = model_identity(self.vision.path)
        disk = DiskPromptCache(folder, max_bytes) if folder is not None else None
        self.prompt_cache = PromptCache(scope_key(state_setup), state_setup,
                                        checkpoints=0 if self.cut_back else checkpoints, disk=disk)

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
        cache: PromptCache | None = getattr(self, "prompt_cache", None)
        if cache is not None:
            cache.flush()  # the states handed to the disk tier's writer: the next process finds them
        with self._lock:
            self._closed = True  # set first: a prefill thread that has not taken the lock yet stops at it
            if self.vision is not None:
                self.vision.close()
            if self.draft_source is not None:  # first: the MTP head's context lives on the model's weights
                self.draft_source.close()
                self.draft_source = None
            elif self._mtp is not None:  # opened, but loading failed before it became the draft source
                self._mtp.close()
            self._mtp = None
            words: LlamaVocab | None = getattr(self, "_words", None)
            if words is not None:
                words.close()
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
        if self._native.add_bos and (not tokens or tokens[0] != self._llm.token_bos()):
            tokens.insert(0, self._llm.token_bos())
        return tokens

    def clear_cache_unlocked(self) -> None:
        """Forget the live state and the memory checkpoints (the disk tier stays)."""
        self._native.clear()
        self.prompt_cache.forget()
        if self._mtp is not None:
            self._mtp.after_clear()

    # ---------------------------------------------------------------- tokens

    def tokenize(self, text: str) -> list[int]:
        self.check_open()
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def piece(self, token: int) -> bytes:
        """The bytes of one token, special tokens as their text (`<tool_call>`), cached."""
        return self._words.piece(token)

    def is_end(self, token: int) -> bool:
        return self._words.is_end(token)

    def lltokenizer(self) -> Any:
        """llguidance's view of the vocabulary, built on first use (~1 s for 150k tokens)."""
        return self._words.lltokenizer()

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
        # a hybrid state cannot be cut back; a windowed one while the window before the cut is still held
        live = common if (self.cut_back or common == llm.n_tokens
                          or (self._windowed and self._cut_live and self._native.can_cut_to(self._position(common)))
                          ) else 0
        # memory checkpoints are partial (the recurrent part): restored over the live cache's prefix. A
        # saved state that is damaged (the disk tier removes it) or refused: the next longest, a few times
        longest = limit
        for _ in range(_RESTORE_TRIES):
            n, tier = self.prompt_cache.longest(tokens, longest, at_least=live, memory_limit=common)
            if not n:
                break
            data = self.prompt_cache.load(tokens[:n], tier)
            if data is not None:
                if restore_state(llm.ctx, data, partial_at=self._position(n) if tier == "memory" else None):
                    llm.input_ids[:n] = tokens[:n]
                    llm.n_tokens = n
                    self.last_restored = n
                    if self._mtp is not None:
                        self._mtp.after_restore(n, self._position(n))
                    log.debug("restored %d prompt tokens from the %s tier", n, tier)
                    return n
                live = common = 0  # the memory was cleared for the restore: nothing for a partial state
                llm.n_tokens = 0
            longest = n - 1
        if live > 0 and (live == llm.n_tokens or self._native.remove_from(self._position(live))):
            llm.n_tokens = live
            if self._mtp is not None:
                self._mtp.after_truncate(live, self._position(live))
            return live
        self._native.clear()
        if self._mtp is not None:
            self._mtp.after_clear()
        return 0

    def eval_prompt(
        self, request: ChatRequest, tokens: Sequence[int], start: int, cancel: CancelToken | None = None
    ) -> bool:
        """Evaluate `tokens[start:]` in pieces that end at the prompt's save points, saving the state at each."""
        return eval_at_save_points(self, request, tokens, start, cancel, self._save)

    def _save(self, prefix: Sequence[int], kind: PointKind) -> None:
        """Keep the state at a save point: in memory (partial) for a model that cannot cut its state back,
        on disk (whole) at the stable and turn points, and at every round too for such a model: its
        checkpoints outlive the process, so a resumed session or a new process with the same prefix
        restores the longest of them instead of evaluating the prompt again."""
        if kind == "reply":
            return  # only where a piece of the prompt ends (a turn-end prefill stopped there)
        cache = self.prompt_cache
        to_memory = cache.max_checkpoints > 0
        to_disk = ((kind != "round" or not self.cut_back) and cache.disk is not None
                   and not cache.on_disk(prefix))
        if not (to_memory or to_disk):
            return
        if to_memory and (part := copy_state(self._llm.ctx, partial=True)) is not None:
            cache.keep(prefix, part)
        if to_disk and (data := copy_state(self._llm.ctx)) is not None:
            cache.save(prefix, data)

    def keep_prefix(self, tokens: Sequence[int]) -> None:
        """The next turn's prefix, just evaluated: kept as a turn checkpoint (memory and disk), when the
        live state is exactly `tokens` (a dense model's cache may hold more: then it serves as it is)."""
        llm = self._llm
        if int(llm.n_tokens) == len(tokens) and list(llm.input_ids[: len(tokens)]) == list(tokens):
            self._save(tokens, "turn")

    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool:
        """Evaluate `tokens` in batches; False when cancelled in between (the cache is then dropped:
        a half-evaluated prompt must not pass for a cached one)."""
        llm = self._llm
        self._row, self._rows = -1, 1
        if self.vision is not None and (min(tokens, default=0) < 0 or self._position(llm.n_tokens) != llm.n_tokens):
            # images, or text after them: positions differ (the MTP head follows each decode there too)
            return self.vision.eval_tokens(tokens, cancel, self._mtp)
        step = max(1, int(llm.n_batch))
        abort = self._native.abort
        forget = cancel.on_cancel(abort.stop) if cancel is not None and abort.available else None
        try:
            for i in range(0, len(tokens), step):
                if cancel is not None and cancel.cancelled:
                    self._dropped()
                    return False
                n_past = int(llm.n_tokens)
                threads = self.threads
                started = time.perf_counter()
                try:
                    llm.eval(tokens[i : i + step])
                except RuntimeError:
                    if cancel is not None and cancel.cancelled:  # stopped part-way (`abort`): nothing kept
                        self._dropped()
                        return False
                    raise
                if threads is not None:
                    threads.evaluated(min(step, len(tokens) - i), time.perf_counter() - started)
                if self._mtp is not None:
                    self._mtp.after_decode(tokens[i : i + step], n_past)
            return True
        finally:
            if forget is not None:
                forget()
                abort.reset()

    def _dropped(self) -> None:
        """A prompt cancelled part-way: the whole cache goes (a half-evaluated prompt must not pass for a
        cached one, and a batch stopped in the middle leaves llama.cpp's memory ahead of the tokens)."""
        self._native.clear()
        if self._mtp is not None:
            self._mtp.after_clear()

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

    def new_sampler(self, sampling: Sampling) -> LlamaSampler:
        chain = sampler_chain(sampling, self._n_vocab, int(self._llm.last_n_tokens_size))
        return LlamaSampler(chain, self._native, lambda: self._row,
                            argmax_of=self.logits if plain_greedy(sampling) else None)

    # ---------------------------------------------------------------- drafts (see drafting.py)

    def _set_draft(self, draft: DraftSpec, **options: Any) -> None:
        if self._native.recurrent:
            if not self.rollback_snapshots and not self._snapshots_later:
                log.info("draft: none (this recurrent model's state cannot drop rejected draft tokens)")
                return
            # rejected tokens are dropped by snapshot, at most this many
            self.max_draft = min(self.max_draft, self.rollback_snapshots or HYBRID_MAX_DRAFT)

        def load(path: Path) -> LocalRuntime:
            runtime = LlamaCppRuntime(str(path), n_threads=self.n_threads, n_threads_batch=self.n_threads_batch,
                                      extra_buffers=self.extra_buffers, draft="none", tuned=False, **options)
            if runtime._n_vocab != self._n_vocab or any(runtime.piece(t) != self.piece(t) for t in range(
                    0, self._n_vocab, max(1, self._n_vocab // 512))):
                runtime.close()
                raise ModelLoadError(f"draft model {path} does not share the tokenizer of {self.model_path}")
            return runtime

        if draft.kind == MTP and self._native.n_layer_nextn > 0:
            self._mtp = MtpDraft(self._native, self.n_threads, self.n_threads_batch)
            self.draft_source = self._mtp
        elif draft.kind == MTP:
            raise ModelLoadError(f"draft {MTP!r}: {self.model_path.name} has no multi-token-prediction layers")
        else:
            self.draft_source = draft_source(draft, load)
        log.info("draft: %s", describe(self.draft_source))
        source = self.draft_source
        if self.vision is not None and source is not None:  # each part on its own: the drafter asks them apart
            self.draft_source = (LongestDraft(*(TextOnlyDrafts(s) for s in source.sources))
                                 if isinstance(source, LongestDraft) else TextOnlyDrafts(source))

    def drafting_now(self) -> bool:
        """A hybrid model keeps rollback snapshots only while drafting can pay: its controller says per
        request (`DraftController.rollback_for_request`). A request that may draft gets them at its first
        draft (`prepare_draft`), one that may not drops them (the context reopened, the state carried
        over; about a quarter of a second on the 0.8B shape). The MTP head follows every decode of its
        own context, so a model drafting with it keeps them from the load."""
        if self.draft_source is None:
            return False
        policy = self.draft_controller()
        if not self._native.recurrent or self._mtp is not None:
            return True
        want = policy.rollback_for_request() if isinstance(policy, DraftController) else True
        if not want and self.rollback_snapshots and self._reopen(0):
            log.info("draft: no draft can pay on this machine now; running without rollback snapshots for a while")
        return want

    def prepare_draft(self, n: int) -> bool:
        """Ready to take back up to `n` drafted tokens: a hybrid allocates its rollback snapshots at its
        first draft (the context reopened with them, the state carried over), not at load. False where
        llama.cpp cannot (the drafter then drafts nothing)."""
        if not self._native.recurrent or self.rollback_snapshots >= n:
            return True
        if self._mtp is not None or self._rollback_failed:
            return False
        if self._reopen(HYBRID_MAX_DRAFT) and self.rollback_snapshots >= n:
            log.info("draft: a draft on this hybrid model: %d rollback snapshots allocated for it",
                     self.rollback_snapshots)
            return True
        self._rollback_failed = True  # llama.cpp keeps none for an architecture that cannot roll back
        source, self.draft_source = self.draft_source, None  # no drafting from here (the drafter stops too)
        if source is not None:
            source.close()
        log.info("draft: off (llama.cpp keeps no rollback snapshots for this recurrent model: its state cannot "
                 "drop rejected draft tokens)")
        return False

    @property
    def rollback_live(self) -> bool:
        """Whether a one-token step now pays for rollback snapshots (what the draft controller times it as)."""
        return not self._native.recurrent or self.rollback_snapshots > 0

    def _reopen(self, snapshots: int) -> bool:
        """The context reopened with `snapshots` rollback snapshots (`LlamaHandle.reopen`)."""
        if not self._native.reopen(snapshots):
            return False
        from .lib import llama_cpp

        self.rollback_snapshots = int(llama_cpp.llama_n_rs_seq(self._llm.ctx))
        self._logits_view, self._logits_address = None, None  # the new context's logits buffer
        return True

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
        self._native.remove_from(pos)
        self._native.decode(tail, pos, rows)
        if self._mtp is not None:
            self._mtp.after_decode(tail, pos, n_past)
        llm.input_ids[n_past : n_past + len(tail)] = tail
        llm.n_tokens = n_past + len(tail)
        self._rows = rows
        self._row = -rows

    def select_row(self, row: int) -> None:
        self._row = row - self._rows

    def truncate(self, n_tokens: int) -> bool:
        """Drop the cache after `n_tokens`. A hybrid model's recurrent state rolls back to a snapshot the
        last decode kept (at most `rollback_snapshots` tokens back, once per decode: what drafting needs);
        a sliding window's layers while they still hold the window before the cut. False where it cannot."""
        from .lib import llama_cpp

        llm = self._llm
        if n_tokens >= llm.n_tokens:
            return True
        if self._windowed and not self._native.can_cut_to(self._position(n_tokens)):
            return False  # the window before the cut is gone: the tokens there would attend to too little
        if self.cut_back:
            done = self._native.remove_from(self._position(n_tokens))
        else:  # a sequence of its own: llama.cpp refuses a partial removal across all sequences of a hybrid
            done = llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(llm.ctx), 0, self._position(n_tokens), -1)
        if not done:
            return False
        llm.n_tokens = n_tokens
        if self._mtp is not None:
            self._mtp.after_truncate(n_tokens, self._position(n_tokens))
        return True


__all__ = [
    "THINK_CLOSE_TEXT",
    "LlamaCppRuntime",
    "cpu_has_amx",
    "llama_params",
    "model_params",
    "starts_in_think",
]
