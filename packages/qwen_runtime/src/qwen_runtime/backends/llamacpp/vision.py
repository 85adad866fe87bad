"""Images through llama.cpp's mtmd: a projector (mmproj GGUF) turns a picture into embeddings that the
language model reads in place of tokens, inside the same token loop as text.

The token loop, prefix reuse, the prompt cache and drafting all work on lists of token ids, so an image
is written into that list as placeholder ids: one per embedding it becomes, all negative (no real token
is), the first derived from one half of the image's content hash and the rest from the other half. Two
prompts that hold the same picture share those ids and so their prefix (and their cached states); a
different picture differs at its first placeholder. The chat template sees a marker in its place
(`marker`), which `prompt_tokens` replaces by `<|vision_start|>`, the placeholders and `<|vision_end|>`
(what mtmd's tokenizer gives for Qwen's projectors).

M-RoPE models (Qwen 3.5, Qwen3-VL) give an image fewer positions than embeddings (max(width, height)
in patches), so after an image a token's position is its index minus the images' excess (`position`):
text after an image is decoded here with explicit positions; without images the backend's own path runs.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import logging
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...errors import ModelLoadError, QwenRuntimeError
from ...images import DEFAULT_MAX_IMAGE_PIXELS, Image, ImageError, prepare_pixels
from ...runtime import CancelToken
from ...types import ChatRequest, Message, ToolMessage, UserMessage

if TYPE_CHECKING:
    from .load import LlamaHandle
    from .mtp import MtpDraft

log = logging.getLogger(__name__)

_MARKER = "<|siGit-image:{}|>"
_MARKER_RE = re.compile(r"<\|siGit-image:([0-9a-f]{64})\|>")
_KNOWN_IMAGES = 256
"""Images remembered by marker key (a reference and two small numbers each)."""


def image_boundary(tokens: Sequence[int], n: int) -> int:
    """`n`, moved back to the start of the image it would cut in two (a prefix never ends inside one)."""
    while 0 < n < len(tokens) and tokens[n] < 0 and tokens[n - 1] < 0:
        n -= 1
    return n


def _placeholder(hex_part: str) -> int:
    return -1 - int(hex_part, 16) % (2**31 - 2)


@dataclass(frozen=True)
class ImageSpan:
    """One image as the language model reads it."""

    key: str
    image: Image
    n_tokens: int
    n_pos: int
    tokens: tuple[int, ...]
    """Its whole token run: the projector's opening tokens, the placeholders, its closing tokens."""

    @property
    def placeholders(self) -> tuple[int, ...]:
        start = next(i for i, t in enumerate(self.tokens) if t < 0)
        return self.tokens[start : start + self.n_tokens]


class Vision:
    """A projector loaded for one llama.cpp model; the runtime calls it while its lock is held."""

    def __init__(
        self, handle: LlamaHandle, path: Path, *, n_threads: int, use_gpu: bool,
        max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
    ) -> None:
        from . import lib as llama_lib

        mtmd_cpp = self._mtmd = llama_lib.mtmd_cpp()
        self.path = path
        self.max_pixels = max_pixels
        self._handle = handle
        self._llm = handle.llm
        if not path.is_file():
            raise ModelLoadError(f"projector (mmproj) file not found: {path}")
        from . import build as llama_build

        llama_build.forward_llama_logs()  # mtmd and clip log through the same forwarder, not to stderr
        mtmd_cpp.mtmd_log_set(llama_build._callback, ctypes.c_void_p(0))
        mtmd_cpp.mtmd_helper_log_set(llama_build._callback, ctypes.c_void_p(0))
        params = mtmd_cpp.mtmd_context_params_default()
        params.use_gpu = use_gpu
        params.n_threads = n_threads
        params.print_timings = False
        params.warmup = False
        self._ctx: Any = mtmd_cpp.mtmd_init_from_file(str(path).encode(), handle.model, params)
        if not self._ctx:
            raise ModelLoadError(
                f"llama.cpp cannot load the projector {path.name} for this model (not an mmproj GGUF, or made "
                "for a model of another size: its output width must equal the model's embedding width)"
            )
        if not mtmd_cpp.mtmd_support_vision(self._ctx):
            self.close()
            raise ModelLoadError(f"the projector {path.name} has no vision encoder (an audio-only mmproj?)")
        self.mrope = bool(mtmd_cpp.mtmd_decode_use_mrope(self._ctx))
        self._known: OrderedDict[str, Image] = OrderedDict()
        self._spans: OrderedDict[str, ImageSpan] = OrderedDict()
        self._by_id: dict[int, ImageSpan] = {}

    def close(self) -> None:
        if self._ctx:
            self._mtmd.mtmd_free(self._ctx)
            self._ctx = None

    # ---------------------------------------------------------------- prompt text and tokens

    def key(self, image: Image) -> str:
        """What identifies an image's tokens: its content hash and how it is downscaled."""
        return hashlib.sha256(f"{image.digest()}:{self.max_pixels}".encode()).hexdigest()

    def with_markers(self, request: ChatRequest) -> ChatRequest:
        """`request` with each image written as a marker before its message's text (what the template
        renders; `prompt_tokens` turns a marker into the image's tokens)."""
        messages: list[Message] = []
        for message in request.messages:
            if isinstance(message, UserMessage | ToolMessage) and message.images:
                markers = ""
                for image in message.images:
                    key = self.key(image)
                    self._known[key] = image
                    self._known.move_to_end(key)
                    markers += _MARKER.format(key)
                while len(self._known) > _KNOWN_IMAGES:
                    self._known.popitem(last=False)
                message = dataclasses.replace(message, content=markers + message.content, images=())
            messages.append(message)
        return dataclasses.replace(request, messages=tuple(messages))

    def prompt_tokens(self, text: str, tokenize: Any) -> list[int]:
        """The tokens of prompt text that may hold image markers (`tokenize` turns text into ids)."""
        parts = _MARKER_RE.split(text)
        out: list[int] = []
        for i, part in enumerate(parts):
            if i % 2 == 0:
                if part:
                    out.extend(tokenize(part))
            else:
                out.extend(self._span(part).tokens)
        return out

    def _span(self, key: str) -> ImageSpan:
        span = self._spans.get(key)
        if span is not None:
            self._spans.move_to_end(key)
            return span
        image = self._known.get(key)
        if image is None:
            raise ImageError("the prompt names an image this model was not given (a stale image marker)")
        chunks = self._tokenize(image)
        try:
            tokens: list[int] = []
            n_tokens = n_pos = 0
            first, rest = _placeholder(key[:16]), _placeholder(key[16:32])
            mtmd = self._mtmd
            for index in range(int(mtmd.mtmd_input_chunks_size(chunks))):
                chunk = mtmd.mtmd_input_chunks_get(chunks, index)
                if int(mtmd.mtmd_input_chunk_get_type(chunk)) == mtmd.MTMD_INPUT_CHUNK_TYPE_TEXT:
                    count = ctypes.c_size_t()
                    ids = mtmd.mtmd_input_chunk_get_tokens_text(chunk, ctypes.byref(count))
                    tokens.extend(int(ids[j]) for j in range(count.value))
                else:
                    n_tokens = int(mtmd.mtmd_input_chunk_get_n_tokens(chunk))
                    n_pos = int(mtmd.mtmd_input_chunk_get_n_pos(chunk))
                    tokens.extend([first] + [rest] * (n_tokens - 1))
        finally:
            self._mtmd.mtmd_input_chunks_free(chunks)
        if n_tokens == 0:
            raise ImageError(f"llama.cpp made no image tokens of {image.name}")
        span = ImageSpan(key, image, n_tokens, n_pos, tuple(tokens))
        self._spans[key] = span
        self._by_id[first] = span
        while len(self._spans) > _KNOWN_IMAGES:
            old = self._spans.popitem(last=False)[1]
            self._by_id.pop(old.placeholders[0], None)
        return span

    def _tokenize(self, image: Image) -> Any:
        """mtmd's chunks for one image (the caller frees them): decoded and downscaled here first."""
        mtmd = self._mtmd
        pixels = prepare_pixels(image, self.max_pixels)
        data = (ctypes.c_uint8 * len(pixels.rgb)).from_buffer_copy(pixels.rgb)
        bitmap = mtmd.mtmd_bitmap_init(pixels.width, pixels.height, data)
        if not bitmap:
            raise ImageError(f"llama.cpp cannot take {image.name} ({pixels.width}x{pixels.height})")
        chunks = mtmd.mtmd_input_chunks_init()
        try:
            text = mtmd.mtmd_input_text()
            marker = mtmd.mtmd_default_marker()
            text.text = marker
            text.text_len = len(marker)
            text.add_special = False
            text.parse_special = True
            bitmaps = (mtmd.mtmd_bitmap_p_ctypes * 1)(bitmap)
            result = int(mtmd.mtmd_tokenize(self._ctx, chunks, ctypes.byref(text), bitmaps, 1))
        finally:
            mtmd.mtmd_bitmap_free(bitmap)
        if result != 0:
            mtmd.mtmd_input_chunks_free(chunks)
            raise ImageError(f"llama.cpp could not preprocess {image.name} (mtmd_tokenize returned {result})")
        return chunks

    # ---------------------------------------------------------------- positions

    def position(self, ids: npt.NDArray[Any], n: int) -> int:
        """The position of the token at index `n` of the live state whose token ids are `ids`."""
        if not self._by_id or n == 0:
            return n
        head = np.asarray(ids[:n])
        neg = np.flatnonzero(head < 0)
        if not neg.size:
            return n
        starts = np.concatenate(([0], np.flatnonzero(np.diff(neg) != 1) + 1))
        ends = np.concatenate((starts[1:], [neg.size]))
        excess = 0
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            span = self._by_id.get(int(head[neg[start]]))
            if span is not None and end - start >= span.n_tokens:
                excess += (end - start) // span.n_tokens * (span.n_tokens - span.n_pos)
        return n - excess

    # ---------------------------------------------------------------- evaluation

    def eval_tokens(
        self, tokens: Sequence[int], cancel: CancelToken | None = None, follower: MtpDraft | None = None
    ) -> bool:
        """Evaluate text and image runs after the live state, each at its position; False when cancelled.
        `follower` (the model's MTP head) is told of every decode, as the backend's own path does."""
        llm = self._llm
        step = max(1, int(llm.n_batch))
        i = 0
        while i < len(tokens):
            if cancel is not None and cancel.cancelled:
                llm.reset()
                if follower is not None:
                    follower.after_clear()
                return False
            n, pos = int(llm.n_tokens), self.position(llm.input_ids, int(llm.n_tokens))
            if tokens[i] >= 0:
                j = i
                while j < len(tokens) and j - i < step and tokens[j] >= 0:
                    j += 1
                self._decode_text(tokens[i:j], n, pos)
                if follower is not None:
                    follower.after_decode(tokens[i:j], pos, n)
                i = j
                continue
            span = self._by_id.get(int(tokens[i]))
            if span is None or tuple(tokens[i : i + span.n_tokens]) != span.placeholders:
                raise QwenRuntimeError("an image's tokens were cut or are unknown: cannot evaluate them")
            last_rows = self._decode_image(span, n, pos)
            if follower is not None:
                follower.after_image(last_rows, n + span.n_tokens, pos + span.n_pos)
            i += span.n_tokens
        return True

    def _decode_text(self, batch: Sequence[int], n: int, pos: int) -> None:
        llm = self._llm
        self._handle.decode(batch, pos)
        llm.input_ids[n : n + len(batch)] = batch
        llm.n_tokens = n + len(batch)

    def _decode_image(self, span: ImageSpan, n: int, pos: int) -> int:
        """Encode and decode one image at token index `n`, position `pos`; the embeddings in its last decode."""
        llm = self._llm
        mtmd = self._mtmd
        step = max(1, int(llm.n_batch))
        chunks = self._tokenize(span.image)
        try:
            every = (mtmd.mtmd_input_chunks_get(chunks, k) for k in range(int(mtmd.mtmd_input_chunks_size(chunks))))
            chunk = next(c for c in every if int(mtmd.mtmd_input_chunk_get_type(c)) == mtmd.MTMD_INPUT_CHUNK_TYPE_IMAGE)
            if int(mtmd.mtmd_input_chunk_get_n_tokens(chunk)) != span.n_tokens:
                raise ImageError(f"{span.image.name} changed since it was first read: send it again")
            new_pos = ctypes.c_int32(0)
            result = int(mtmd.mtmd_helper_eval_chunk_single(
                self._ctx, llm.ctx, chunk, pos, 0, step, False, ctypes.byref(new_pos)))
        finally:
            mtmd.mtmd_input_chunks_free(chunks)
        if result != 0:
            llm.reset()
            raise QwenRuntimeError(f"llama.cpp could not encode or decode {span.image.name} (error {result})")
        llm.input_ids[n : n + span.n_tokens] = span.placeholders
        llm.n_tokens = n + span.n_tokens
        return span.n_tokens - (span.n_tokens - 1) // step * step  # mtmd decodes it in batches of `step`


class TextOnlyDrafts:
    """A draft source that never proposes image placeholders (they cannot be evaluated as tokens), and a
    draft model nothing while the context holds an image (it cannot read it). Prompt lookup and the
    model's own MTP head (which reads the model's hidden states, the image's included) draft as usual."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def propose(self, context: npt.NDArray[np.int32], k: int) -> list[int]:
        from ...speed.drafting import ModelDraft

        if isinstance(self.inner, ModelDraft) and bool((np.asarray(context) < 0).any()):
            return []  # a draft model cannot read the images
        draft = list(self.inner.propose(context, k))
        cut = next((i for i, t in enumerate(draft) if t < 0), len(draft))
        return draft[:cut]

    def close(self) -> None:
        self.inner.close()

    def __repr__(self) -> str:
        return repr(self.inner)


__all__ = ["ImageSpan", "TextOnlyDrafts", "Vision", "image_boundary"]
