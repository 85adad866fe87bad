"""Onde's errors: one base, `InferenceError`, with the original's variants as subclasses.

Runtime errors are translated here, at the boundary, with the original kept as `__cause__`, so a
caller catches onde's types without importing qwen_runtime. The variants are also reachable as
attributes of the base (`except InferenceError.Cancelled`), the way the Rust enum reads.

    InferenceError
    ├── NoModelLoaded    a call that needs a model before one was loaded
    ├── AlreadyLoaded    kept for parity with the original (loading replaces, so onde never raises it)
    ├── ModelBuild       the model could not be found, downloaded or loaded
    │   └── BadModelName     the name itself is malformed or unknown (also a ValueError)
    ├── Inference        generation failed (server error, runtime failure)
    │   ├── ContextOverflow  the prompt does not fit the context window (compact and retry)
    │   └── ImageRejected    an image the model cannot take (it cannot see; the file is no image)
    ├── Cancelled        cancel() stopped the generation; `partial` holds what was produced
    ├── Busy             a second call while a generation is running on the same engine
    └── Other            anything else the runtime raised
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from .types import ToolAwareResult


class InferenceError(Exception):
    """Base of every error onde raises."""

    NoModelLoaded: ClassVar[type[NoModelLoaded]]
    AlreadyLoaded: ClassVar[type[AlreadyLoaded]]
    ModelBuild: ClassVar[type[ModelBuild]]
    BadModelName: ClassVar[type[BadModelName]]
    Inference: ClassVar[type[Inference]]
    ContextOverflow: ClassVar[type[ContextOverflow]]
    Cancelled: ClassVar[type[Cancelled]]
    Busy: ClassVar[type[Busy]]
    Other: ClassVar[type[Other]]


class NoModelLoaded(InferenceError):
    def __init__(self, message: str = "no model is loaded; call load_gguf_model() or pass a runtime") -> None:
        super().__init__(message)


class AlreadyLoaded(InferenceError):
    pass


class ModelBuild(InferenceError):
    pass


class BadModelName(ModelBuild, ValueError):
    """A runtime name that names nothing loadable; its message lists the accepted forms."""


class Inference(InferenceError):
    pass


class ContextOverflow(Inference):
    """The prompt does not fit the model's context window: shorten (compact) the history and retry.

    `prompt_tokens` and `context_size` are the runtime's counts, None when it did not say.
    """

    def __init__(
        self, message: str, *, prompt_tokens: int | None = None, context_size: int | None = None
    ) -> None:
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.context_size = context_size


class ImageRejected(Inference):
    """An image the model cannot take: the model cannot see (the message says why), or the file is
    not a readable image. Nothing was added to the history."""


class Cancelled(InferenceError):
    """The generation was cancelled; the user's message stays in history, the partial reply does not."""

    def __init__(self, message: str = "generation cancelled", partial: ToolAwareResult | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class Busy(InferenceError):
    def __init__(self, message: str = "a generation is already running on this engine") -> None:
        super().__init__(message)


class Other(InferenceError):
    pass


InferenceError.NoModelLoaded = NoModelLoaded
InferenceError.AlreadyLoaded = AlreadyLoaded
InferenceError.ModelBuild = ModelBuild
InferenceError.BadModelName = BadModelName
InferenceError.Inference = Inference
InferenceError.ContextOverflow = ContextOverflow
InferenceError.ImageRejected = ImageRejected  # type: ignore[attr-defined]
InferenceError.Cancelled = Cancelled
InferenceError.Busy = Busy
InferenceError.Other = Other


def translate_load_error(exc: BaseException) -> InferenceError:
    """A runtime's load failure as `ModelBuild` (caller raises it `from exc`)."""
    if isinstance(exc, InferenceError):
        return exc
    return ModelBuild(f"could not load the model: {exc}")


def translate_generation_error(exc: BaseException) -> InferenceError:
    """A runtime's generation failure as onde's variant (caller raises it `from exc`)."""
    from qwen_runtime.errors import ContextOverflowError, GenerationCancelled, QwenRuntimeError
    from qwen_runtime.images import ImageError

    if isinstance(exc, InferenceError):
        return exc
    if isinstance(exc, ContextOverflowError):
        return ContextOverflow(str(exc), prompt_tokens=exc.prompt_tokens, context_size=exc.context_size)
    if isinstance(exc, ImageError):
        return ImageRejected(str(exc))
    if isinstance(exc, GenerationCancelled):
        return Cancelled(str(exc) or "generation cancelled")
    if isinstance(exc, QwenRuntimeError):
        return Inference(str(exc))
    return Other(f"{type(exc).__name__}: {exc}")
