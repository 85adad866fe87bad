"""Opening a GGUF with llama-cpp-python: where it runs (threads, GPU layers, weight buffers), the
parameters `Llama()` does not take (`use_extra_bufts`, `load_mtp`, `n_rs_seq`), and the one place that
reaches into llama-cpp-python's private members (`Llama._model`, `_ctx`, `_batch`).

`LlamaCppRuntime.__init__` runs these steps in order; the rest of the backend (and the vision, MTP and
state modules) talks to llama.cpp through `LlamaHandle` and the public `Llama` attributes (`ctx`,
`n_tokens`, `input_ids`, `n_batch`, `eval`, `reset`), so a llama-cpp-python that renames a private
member breaks here only.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ModelLoadError, ModelNotFoundError
from ...home import expand_home
from ...speed.cpus import cpu_budget
from .abort import DecodeAbort
from .build import default_gpu_layers, forward_llama_logs, llama_log, quiet_llama_logs, watch_llama_lines

log = logging.getLogger(__name__)


def model_file(model_path: str) -> Path:
    """The GGUF file `model_path` names (`~` expanded), or a clear error."""
    path = expand_home(model_path)
    if not path.is_file():
        raise ModelNotFoundError(f"GGUF model file not found: {path}")
    return path


@dataclass(frozen=True)
class Placement:
    """Where a model runs: CPU threads for one token and for batches, layers on the GPU, and whether
    llama.cpp may use its extra (repacked) CPU weight buffers."""

    n_threads: int
    n_threads_batch: int
    n_gpu_layers: int
    extra_buffers: bool

    @classmethod
    def choose(
        cls, n_threads: int | None, n_threads_batch: int | None, n_gpu_layers: int | None, extra_buffers: bool | None,
        tuned: tuple[int, int] | None = None,
    ) -> Placement:
        """What is given, the rest for this machine: llama-cpp-python's own thread default (cpu_count // 2)
        is 1 thread on 2 vCPUs; GPU layers: all when llama.cpp has a GPU backend; no extra buffers on AMX.
        `tuned`: the decode and batch threads `qwen-runtime tune` measured best here, taken where none are
        given (within the CPU budget: QWEN_RUNTIME_THREADS still caps them)."""
        gpu = default_gpu_layers() if n_gpu_layers is None else n_gpu_layers
        try:
            budget = cpu_budget()  # llama-cpp-python's own default (cpu_count // 2) is 1 thread on 2 vCPUs
        except ValueError as exc:  # QWEN_RUNTIME_THREADS set to nonsense
            raise ModelLoadError(str(exc)) from exc
        cap = budget.batch_threads
        tuned_threads, tuned_batch = (min(t, cap) for t in tuned) if tuned is not None else (None, None)
        threads = n_threads or tuned_threads or budget.decode_threads
        batch = n_threads_batch or tuned_batch or max(threads, budget.batch_threads)
        log.info("llama.cpp GPU layers: %d", gpu)
        log.info(
            "llama.cpp threads: %d decode, %d batch (%s)",
            threads,
            batch,
            "as given" if n_threads else "tuned" if tuned is not None else budget.describe(),
        )
        return cls(threads, batch, gpu, extra_buffers if extra_buffers is not None else not cpu_has_amx())


class LlamaHandle:
    """A loaded `Llama` and the private members of it the backend needs, named once."""

    def __init__(self, llm: Any, flash_attention: str = "auto", abort: DecodeAbort | None = None) -> None:
        self.llm = llm
        self.flash_attention = flash_attention
        """What llama.cpp's auto chose at load: "enabled", "disabled", or "auto" where it did not say
        (its log lines dropped during a quiet load)."""
        """The `Llama` itself (its public attributes: `ctx`, `n_tokens`, `input_ids`, `n_batch`, `eval`...)."""
        self.model: Any = llm._model.model
        """The `llama_model *` (what mtmd, the MTP context and the model queries take)."""
        self.vocab: Any = llm._model.vocab
        self.add_bos = bool(llm._model.add_bos_token())
        self.sampler_ctx: Any = llm._ctx
        """The context wrapper llama-cpp-python's sampler chain samples from."""
        if abort is None:
            abort = DecodeAbort()
            abort.attach(llm._ctx.ctx)
        self.abort = abort
        """Stops a `llama_decode` part-way (a cancelled prompt): attached to each context this handle opens."""

    @property
    def recurrent(self) -> bool:
        """A recurrent or hybrid model (Qwen 3.5): its state cannot be cut back to a shorter prefix."""
        from .lib import llama_cpp

        return bool(llama_cpp.llama_model_is_recurrent(self.model) or llama_cpp.llama_model_is_hybrid(self.model))

    @property
    def attention_window(self) -> int:
        """The sliding attention window of a model with one (Gemma 3, gpt-oss), in tokens; 0 for none.
        Its windowed layers keep only the last window's keys (`swa_full` off, as llama-server), so the
        state cannot be cut back to any earlier prefix: only to one whose window is still held."""
        from .lib import llama_cpp

        return int(llama_cpp.llama_model_n_swa(self.model))

    def can_cut_to(self, pos: int) -> bool:
        """Whether the memory can drop every position from `pos` on and still hold what the token at `pos`
        attends to: always for a plain cache; for a windowed one while its oldest kept position is at
        most `pos - window` (llama-server's test); never for a recurrent state (a snapshot or a saved
        state is needed)."""
        if self.recurrent:
            return False
        window = self.attention_window
        if not window:
            return True
        from .lib import llama_cpp

        oldest = int(llama_cpp.llama_memory_seq_pos_min(llama_cpp.llama_get_memory(self.llm.ctx), 0))
        return oldest <= max(0, pos - window)

    @property
    def n_layer_nextn(self) -> int:
        """Multi-token-prediction blocks loaded with the model (0 without `load_mtp` or in the file)."""
        from .lib import llama_cpp

        return int(llama_cpp.llama_model_n_layer_nextn(self.model))

    def reopen(self, snapshots: int) -> bool:
        """Replace the context by one keeping `snapshots` recurrent-state snapshots per decode (a hybrid
        drops them while no draft pays), carrying the whole memory over (llama.cpp's sequence state is
        the same without snapshots); the model stays loaded. False, with the old context kept, when
        llama.cpp cannot make the new one or take the state."""
        from .lib import _internals, llama_cpp
        from .state import copy_state, restore_state

        llm = self.llm
        old = llm._ctx
        state = copy_state(old.ctx) if int(llm.n_tokens) else None
        if int(llm.n_tokens) and state is None:
            return False
        params = llm.context_params
        kept = params.n_rs_seq
        params.n_rs_seq = snapshots
        try:
            new = _internals.LlamaContext(model=llm._model, params=params, verbose=llm.verbose)
        except ValueError as exc:
            params.n_rs_seq = kept
            log.warning("llama.cpp could not reopen the context with %d snapshots: %s", snapshots, exc)
            return False
        if state is not None and not restore_state(new.ctx, state):
            new.close()  # type: ignore[no-untyped-call]
            params.n_rs_seq = kept
            return False
        llm._ctx = llm._stack.enter_context(contextlib.closing(new))
        old.close()
        self.sampler_ctx = new
        self.abort.attach(new.ctx)
        log.debug("context reopened: %d rollback snapshots", int(llama_cpp.llama_n_rs_seq(new.ctx)))
        return True

    def clear(self) -> None:
        """Forget every evaluated token and the whole memory (KV and recurrent)."""
        self.llm.reset()
        self.llm._ctx.kv_cache_clear()

    def remove_from(self, pos: int) -> bool:
        """Drop the memory from position `pos` on, in every sequence; False when llama.cpp refuses."""
        return bool(self.llm._ctx.kv_cache_seq_rm(-1, pos, -1))

    def decode(self, tokens: Sequence[int], pos: int, rows: int = 1) -> None:
        """One `llama_decode` of `tokens` at positions pos...; logits for the last `rows` of them. The
        caller keeps `n_tokens` and `input_ids` (token indices and positions differ after an image)."""
        llm = self.llm
        batch = llm._batch
        batch.set_batch(batch=tokens, n_past=pos, logits_all=False)
        for i in range(len(tokens) - rows, len(tokens)):
            batch.batch.logits[i] = True
        llm._ctx.decode(batch)


FLASH_ATTN_AUTO = -1
"""LLAMA_FLASH_ATTN_TYPE_AUTO: llama.cpp enables flash attention where the device runs it."""
FLASH_ATTN_LINE = "Flash Attention"
"""What llama.cpp's line on resolving auto starts with ("Flash Attention enabled" / "... not supported,
set to disabled"): it has no call that tells."""


def flash_attention_said(lines: Sequence[str]) -> str:
    """What llama.cpp resolved flash attention to, from its lines at load ("auto": it did not say)."""
    for line in lines:
        if "Flash Attention enabled" in line:
            return "enabled"
        if "Flash Attention not supported" in line:
            return "disabled"
    return "auto"


KV_TYPES = {"f16": 1, "q8_0": 8}
"""KV cache types by name, to ggml's type ids (GGML_TYPE_F16, GGML_TYPE_Q8_0)."""
DEFAULT_N_BATCH = 2048
"""Tokens a `llama_decode` takes, as llama-server's default: at 512 (llama-cpp-python's) a 2-core machine at
load 5 prefilled 0.85x as fast as llama-server, at 2048 1.02x (a cancel stops one part-way: `abort`)."""
DEFAULT_N_UBATCH = 512
"""Tokens a graph computes at once (llama-server's and llama-cpp-python's default): what the compute
buffers are sized for."""


def open_llama(path: Path, n_ctx: int, placement: Placement, *, snapshots: int, verbose: bool,
               n_batch: int = DEFAULT_N_BATCH, n_ubatch: int | None = None, kv_cache_type: str = "f16",
               quiet: bool = False, load_mtp: bool | None = None) -> LlamaHandle:
    """Load `path` into llama.cpp. `snapshots`: recurrent-state snapshots per sequence, what a hybrid
    model needs to drop rejected draft tokens (llama.cpp clamps it to 0 on a model that cannot roll
    back). `load_mtp`: load the model's multi-token-prediction layers (None: when `snapshots`).
    `n_batch`: the tokens one evaluation takes (`n_ubatch`, the physical batch, at most that);
    `kv_cache_type` "f16" or "q8_0". Flash attention is llama.cpp's auto, as llama-server's default:
    on where the backend runs it (`LlamaHandle.flash_attention` says what llama.cpp chose).
    `quiet`: llama.cpp's log lines dropped in C during the load (`quiet_llama_logs`: another thread
    holds the GIL meanwhile); a load that fails quietly is tried once more with them, for llama.cpp's reason."""
    if kv_cache_type not in KV_TYPES:
        raise ModelLoadError(f"KV cache type {kv_cache_type!r} is not one of {', '.join(KV_TYPES)}")
    kv = KV_TYPES[kv_cache_type]
    if load_mtp is None:
        load_mtp = snapshots > 0
    try:
        from .lib import llama
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ModelLoadError(f"llama-cpp-python is not importable: {exc}") from exc
    forward_llama_logs()  # llama.cpp's own lines go to logging, not to the user's terminal (nothing silenced)
    errors = _ErrorLines()
    llama_log.addHandler(errors)
    try:
        with llama_params(
            model={"use_extra_bufts": placement.extra_buffers, "load_mtp": load_mtp},
            # flash attention as llama-server chooses it: on wherever the backend runs it (the CPU
            # always; a quantized V cache needs it). A sliding window's layers keep that window only
            # (llama-server's default; llama.cpp's C default keeps every position): Gemma 3's decode
            # after a 2,900-token prompt 52.8 against 48.2 tokens/s, and a smaller cache
            context={"n_rs_seq": snapshots, "flash_attn_type": FLASH_ATTN_AUTO, "swa_full": False},
        ), watch_llama_lines(FLASH_ATTN_LINE) as said:
            args: dict[str, Any] = dict(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=placement.n_threads,
                n_threads_batch=placement.n_threads_batch,
                n_gpu_layers=placement.n_gpu_layers,
                n_batch=n_batch,
                n_ubatch=n_ubatch or min(n_batch, DEFAULT_N_UBATCH),
                type_k=kv,
                type_v=kv,
                verbose=verbose,
            )
            dropped = False
            abort = DecodeAbort()
            try:
                with quiet_llama_logs(quiet) as dropped:
                    llm = llama.Llama(**args)
                    abort.attach(llm._ctx.ctx)  # llama.cpp logs the call: inside the quiet window
                if dropped:
                    log.info("llama.cpp's load lines not logged (a thread held the GIL beside the load; "
                             "debug logging keeps them)")
            except (ValueError, RuntimeError, OSError):
                if not dropped:
                    raise
                llm = llama.Llama(**args)  # once more with llama.cpp's lines, for its reason (or a passing failure)
                abort.attach(llm._ctx.ctx)
    except (ValueError, RuntimeError, OSError) as exc:
        why = "; ".join(errors.lines)  # llama.cpp's own reason ("K cache type q8_0 ... does not divide ...")
        raise ModelLoadError(f"llama.cpp cannot load {path}: {exc}" + (f" ({why})" if why else "")) from exc
    finally:
        llama_log.removeHandler(errors)
    try:
        return LlamaHandle(llm, flash_attention=flash_attention_said(said), abort=abort)
    except Exception:
        llm.close()
        raise


class _ErrorLines(logging.Handler):
    """llama.cpp's error lines while a model loads: the reason `Llama()` itself does not give."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.lines) < 4:
            self.lines.append(record.getMessage().strip())


def cpu_has_amx() -> bool:
    """Whether llama.cpp would use its AMX weight buffers here.

    Measured on a Xeon with AMX: the vendored llama.cpp of llama-cpp-python 0.3.36 segfaults in the
    first `decode` of a Q4_K_M model (Gemma 3 270M) when its extra CPU buffer types are on, and runs
    correctly with them off; so on such CPUs they are off unless asked for (`extra_buffers=True`).
    On a Sapphire Rapids VM (2026-12) a Q8_0 model (the Qwen3.5-0.8B bench shape) dies of SIGILL in its
    first decode with them on, even after the process asked the kernel for AMX tile data
    (`arch_prctl(ARCH_REQ_XCOMP_PERM)`): the repacked kernels are not usable there at all.
    """
    from .lib import llama_cpp

    info = llama_cpp.llama_print_system_info()
    text = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
    return "AMX_INT8 = 1" in text


_params_lock = threading.Lock()


@contextmanager
def llama_params(model: dict[str, Any] | None = None, context: dict[str, Any] | None = None) -> Iterator[None]:
    """Set model- and context-parameter fields that `Llama()` does not take as arguments
    (`use_extra_bufts`, `load_mtp`, `n_rs_seq`, `flash_attn_type` auto).

    `Llama.__init__` builds its model parameters from `llama_model_default_params()` and hands its
    context parameters to `llama_init_from_model`; those calls are wrapped while a model loads, under a
    lock so two loads in one process cannot interleave.
    """
    import importlib

    binding: Any = importlib.import_module("llama_cpp.llama").llama_cpp  # the module Llama calls
    originals = {
        "llama_model_default_params": (binding.llama_model_default_params, model or {}),
        "llama_init_from_model": (binding.llama_init_from_model, context or {}),
    }

    def with_fields(original: Any, fields: dict[str, Any]) -> Any:
        def make(*args: Any) -> Any:
            if not args:  # llama_model_default_params(): the defaults, our fields set
                params = original()
                for name, value in fields.items():
                    setattr(params, name, value)
                return params
            # llama_init_from_model(model, params): set after `Llama()` filled them (it overwrites
            # `flash_attn_type` from its bool), on the struct it keeps (`reopen` makes contexts from it)
            for name, value in fields.items():
                setattr(args[-1], name, value)
            return original(*args)

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


__all__ = [
    "DEFAULT_N_BATCH",
    "FLASH_ATTN_AUTO",
    "KV_TYPES",
    "LlamaHandle",
    "Placement",
    "cpu_has_amx",
    "llama_params",
    "model_file",
    "model_params",
    "open_llama",
]
