"""Qwen 3.5's multi-token-prediction (MTP) head drafting for its own model, through llama.cpp.

A Qwen 3.5 GGUF may carry one extra decoder block (`nextn`) trained to predict the token after next
from the model's last hidden state and the embedding of the token just sampled. llama.cpp runs it in a
second context of type MTP on the same weights. As in its reference driver
(`common_speculative_impl_draft_mtp`, the single-head qwen35 case):

- after every decode of the model, the MTP context evaluates the same tokens at the same positions, each
  paired with the model's hidden state of the position before it, so its one-layer KV cache follows the
  model's (`after_decode`; cut back with it in `after_truncate`). An image's embeddings leave a hole in
  it (the head reads tokens; `after_image`), and positions, not token indices, are what it keeps: after
  an image Qwen 3.5's M-RoPE positions run behind the token count;
- to draft, it evaluates the token just sampled with the hidden state of the last evaluated position,
  takes its greedy next token and its own hidden state, and repeats.

Proposals are verified by the model like any draft (drafting.py), so a wrong or missing proposal costs
time, never correctness. When the MTP cache cannot follow exactly (a state restored from the prompt cache, a
batch of forced tokens) it goes on with a hole in its cache or proposes nothing for that step; a
decode it cannot do stops it until the cache is cleared.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...errors import ModelLoadError

if TYPE_CHECKING:
    from .load import LlamaHandle

log = logging.getLogger(__name__)

_SEQ = 0


class MtpDraft:
    """A `DraftSource` that follows the target `llm`'s decodes (the runtime calls the `after_*` hooks)."""

    def __init__(self, handle: LlamaHandle, n_threads: int, n_threads_batch: int) -> None:
        from .lib import llama_cpp, llama_cpp_ext

        ext = llama_cpp_ext()

        self._lib: Any = llama_cpp
        llm = handle.llm
        self._target = llm.ctx
        model = handle.model
        self.n_embd = int(llama_cpp.llama_model_n_embd(model))
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = int(llm.n_ctx())
        params.n_batch = int(llm.n_batch)
        params.n_ubatch = int(llama_cpp.llama_n_ubatch(llm.ctx))
        params.n_threads, params.n_threads_batch = n_threads, n_threads_batch
        params.ctx_type = llama_cpp.LLAMA_CONTEXT_TYPE_MTP
        params.no_perf = True
        self.ctx: Any = llama_cpp.llama_init_from_model(model, params)
        if not self.ctx:
            raise ModelLoadError("llama.cpp could not open the model's multi-token-prediction context")
        ext.llama_set_embeddings_nextn(self._target, True, False)  # the model: a hidden row per token
        ext.llama_set_embeddings_nextn(self.ctx, True, True)  # the head: rows for its outputs only
        self._embeddings_ith: Any = ext.llama_get_embeddings_nextn_ith
        self._memory = llama_cpp.llama_get_memory(self.ctx)
        self._batch: Any = llama_cpp.llama_batch_ext_init(self.ctx)
        self._pos = (llama_cpp.llama_pos * 4)()
        self._rows = np.zeros((0, self.n_embd), dtype=np.float32)  # the model's hidden rows of its last decode
        self._rows_at = 0  # the position of row 0
        self._broken = False  # the head's cache lost track of the model's; nothing proposed until a clear
        self._end = (0, 0)  # (token index, position) after the model's last evaluated token
        self.proposed = 0

    # ---------------------------------------------------------------- following the model

    def after_decode(self, tokens: Sequence[int], pos0: int, index0: int | None = None) -> None:
        """The model evaluated `tokens` at positions pos0... (token indices index0..., further on than
        the positions after an image): evaluate them in the head's cache too, at the same positions."""
        if not tokens:
            return
        lib = self._lib
        n = len(tokens)
        rows = np.empty((n, self.n_embd), dtype=np.float32)
        for i in range(n):
            rows[i] = self._row(self._embeddings_ith(self._target, i))
        previous = self._hidden(pos0 - 1)
        self._rows, self._rows_at = rows, pos0
        self._end = ((pos0 if index0 is None else index0) + n, pos0 + n)
        lib.llama_memory_seq_rm(self._memory, _SEQ, pos0, -1)
        if self._broken:
            return
        # a gap (the model's state was restored from the prompt cache, which the head did not follow):
        # Qwen 3.5's M-RoPE positions may jump forward, so the head goes on without those positions
        inputs = np.concatenate([(previous if previous is not None else np.zeros(self.n_embd, np.float32))[None],
                                 rows[:-1]])
        self._decode(tokens, pos0, inputs, output=-1)

    def after_image(self, last_rows: int, index_end: int, pos_end: int) -> None:
        """The model decoded an image's embeddings, the last decode `last_rows` of them, ending before token
        index `index_end` and position `pos_end`. The head reads tokens, not embeddings, so its cache keeps no
        entry for the image (llama.cpp's own driver skips image batches too); it keeps the hidden state of
        the image's last position, which the first token after the image is paired with."""
        if last_rows > 0:
            self._rows, self._rows_at = self._row(self._embeddings_ith(self._target, last_rows - 1))[None], pos_end - 1
        self._end = (index_end, pos_end)
        self._lib.llama_memory_seq_rm(self._memory, _SEQ, pos_end, -1)

    def after_truncate(self, n_tokens: int, pos: int | None = None) -> None:
        """The model kept its first `n_tokens` (up to position `pos`); the hidden rows of its last decode
        stay: they are what a verified draft's accepted tokens pair with."""
        pos = n_tokens if pos is None else pos
        self._lib.llama_memory_seq_rm(self._memory, _SEQ, pos, -1)
        self._end = (n_tokens, pos)

    def after_restore(self, n_tokens: int, pos: int | None = None) -> None:
        """The model's state came back from a saved one the head never saw: cut back, and forget the last
        decode's hidden rows (they may belong to other tokens at those positions)."""
        self.after_truncate(n_tokens, pos)
        self._rows = self._rows[:0]

    def after_clear(self) -> None:
        self._lib.llama_memory_clear(self._memory, True)
        self._rows, self._rows_at, self._broken = self._rows[:0], 0, False
        self._end = (0, 0)

    # ---------------------------------------------------------------- drafting

    def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
        """Up to `k` tokens after `context`, whose last token is sampled but not yet evaluated."""
        index, pos = self._end
        if k <= 0 or self._broken or int(context.shape[0]) - 1 != index:
            return []  # the model has not evaluated all before the sampled token (a batch of forced tokens)
        hidden = self._hidden(pos - 1)
        lib = self._lib
        if hidden is None or int(lib.llama_memory_seq_pos_max(self._memory, _SEQ)) != pos - 1:
            return []
        out: list[int] = []
        token = int(context[-1])
        while len(out) < k:
            if not self._decode([token], pos + len(out), hidden[None], output=0):
                break
            logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(self.ctx, -1), shape=(self._n_vocab(),))
            token = int(np.argmax(logits))
            out.append(token)
            hidden = self._row(self._embeddings_ith(self.ctx, -1))
        self.proposed += len(out)
        return out

    def close(self) -> None:
        if self.ctx:
            self._lib.llama_batch_ext_free(self._batch)
            self._lib.llama_free(self.ctx)
            self.ctx = None

    # ---------------------------------------------------------------- helpers

    def _n_vocab(self) -> int:
        lib = self._lib
        return int(lib.llama_vocab_n_tokens(lib.llama_model_get_vocab(lib.llama_get_model(self.ctx))))

    def _row(self, pointer: Any) -> npt.NDArray[np.float32]:
        return np.ctypeslib.as_array(pointer, shape=(self.n_embd,)).copy()

    def _hidden(self, pos: int) -> npt.NDArray[np.float32] | None:
        """The model's hidden row at `pos`, if its last decode produced it."""
        i = pos - self._rows_at
        return self._rows[i] if 0 <= i < self._rows.shape[0] else None

    def _decode(self, tokens: Sequence[int], pos0: int, inputs: npt.NDArray[np.float32], output: int) -> bool:
        """One MTP decode of `tokens` with their hidden-state inputs; logits for row `output` (-1: none)."""
        lib = self._lib
        batch = self._batch
        lib.llama_batch_ext_clear(batch)
        data = np.ascontiguousarray(inputs, dtype=np.float32)
        base = data.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        for i, token in enumerate(tokens):
            idx = lib.llama_batch_ext_add_token(batch, _SEQ, int(token))
            self._pos[0] = pos0 + i
            lib.llama_batch_ext_set_pos(batch, idx, self._pos)
            row = ctypes.cast(ctypes.addressof(base.contents) + i * self.n_embd * 4, ctypes.POINTER(ctypes.c_float))
            lib.llama_batch_ext_set_embd_token(batch, idx, lib.llama_embd(row, 1, self.n_embd))
            if i == output:
                lib.llama_batch_ext_set_output_logits(batch, idx, True)
        rc = int(lib.llama_process(self.ctx, lib.LLAMA_PROCESS_TYPE_DECODE, batch))
        if rc != 0:
            log.debug("the MTP head's decode failed (%d); no MTP drafts until the cache is cleared", rc)
            self._broken = True
        return rc == 0


__all__ = ["MtpDraft"]
