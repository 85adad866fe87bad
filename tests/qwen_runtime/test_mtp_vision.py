"""Qwen 3.5's MTP head on a prompt that holds an image (the tiny hybrid with its nextn block and its random
projector): every evaluation path (text, the image's embeddings, a rejected draft taken back, a state
restored from the prompt cache) keeps the head's cache in step with the model's, at the model's
positions, so it drafts after an image and drafting never changes the reply."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from qwen_runtime import AssistantMessage, ChatRequest, Sampling, UserMessage
from qwen_runtime.backends.llamacpp.mtp import MtpDraft
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.speed.draft_control import DraftController
from qwen_runtime.testing.testmodel import write_test_gguf

pytestmark = pytest.mark.timeout(180)

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture(scope="module")
def mtp_vision_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make-test-model --arch qwen35 --mtp` with the tiny projector beside it: it sees, and drafts itself."""
    from qwen_runtime.testing.testmodel_qwen35 import SHAPE
    from qwen_runtime.testing.testmodel_vision import mmproj_path_for, write_test_mmproj

    model = write_test_gguf(tmp_path_factory.mktemp("mtp-vision") / "tiny-qwen35-mtp.gguf", arch="qwen35", mtp=True)
    write_test_mmproj(mmproj_path_for(model), out_dim=SHAPE.n_embd)
    return model


@pytest.fixture(scope="module")
def models(mtp_vision_gguf: Path) -> Iterator[tuple[LlamaCppRuntime, LlamaCppRuntime]]:
    """(drafting with the MTP head only, not drafting)."""
    drafted = LlamaCppRuntime(str(mtp_vision_gguf), n_ctx=4096, draft="mtp")
    # draft lengths chosen on a scripted machine where batches cost little (as in test_drafting_models.py):
    # the real clock would make the second reply's probes depend on how loaded the machine is
    drafted.draft_policy = DraftController(drafted.max_draft, cost_model=lambda n: 1 + 0.05 * (n - 1))
    plain = LlamaCppRuntime(str(mtp_vision_gguf), n_ctx=4096, draft="none")
    yield drafted, plain
    drafted.close()
    plain.close()


def head(rt: LlamaCppRuntime) -> MtpDraft:
    assert rt._mtp is not None
    return rt._mtp


def ask(text: str, image: Path, history: tuple[object, ...] = (), max_tokens: int = 40) -> ChatRequest:
    return ChatRequest(
        (*history, UserMessage(text, images=(image,))),  # type: ignore[arg-type]
        sampling=Sampling(temperature=0, max_tokens=max_tokens),
        enable_thinking=False,
    )


def test_after_an_image_the_mtp_head_drafts_and_the_reply_is_the_undrafted_one(
    models: tuple[LlamaCppRuntime, LlamaCppRuntime], make_png: Callable[..., Path]
) -> None:
    drafted, plain = models
    assert drafted.vision is not None and drafted._mtp is not None
    first = ask(f"Here is calc.py:\n{CALC}\nRepeat calc.py exactly.", make_png(96, 64, seed=11))
    drafted.clear_cache()
    plain.clear_cache()
    before = head(drafted).proposed
    got, want = drafted.complete(first), plain.complete(first)
    assert got.usage.image_tokens > 0
    assert got.usage.drafted_tokens > 0 and head(drafted).proposed - before == got.usage.drafted_tokens
    assert got.text == want.text and got.usage.completion_tokens == want.usage.completion_tokens
    # the next turn keeps the image's prefix (live or from a checkpoint) and the head goes on after it
    follow = ask("And sub?", make_png(96, 64, seed=11), history=(*first.messages, AssistantMessage(got.text)))
    before = head(drafted).proposed
    again, cold = drafted.complete(follow), plain.complete(follow)
    assert again.usage.cached_prompt_tokens > again.usage.image_tokens > 0
    assert again.usage.drafted_tokens > 0 and head(drafted).proposed > before
    assert again.text == cold.text


def head_logits(h: MtpDraft, context: npt.NDArray[np.int32], k: int) -> tuple[list[int], npt.NDArray[np.float32]]:
    """The head's proposal of `k` tokens and the logits it drew the last of them from."""
    import llama_cpp

    proposal = h.propose(context, k)
    n_vocab = int(llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(llama_cpp.llama_get_model(h.ctx))))
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(h.ctx, -1), shape=(n_vocab,)).copy()
    return proposal, logits


def test_after_an_image_and_a_rejected_draft_the_head_equals_one_that_never_drafted(
    mtp_vision_gguf: Path, make_png: Callable[..., Path]
) -> None:
    """The prompt holds an image, so positions run behind token indices; a draft is verified and all but
    two tokens taken back. The head then proposes, with the same logits, what the head of a model that
    only ever evaluated the accepted tokens proposes, and its cache ends at the model's position."""
    import llama_cpp

    drafted = LlamaCppRuntime(str(mtp_vision_gguf), n_ctx=4096, draft="mtp")
    fresh = LlamaCppRuntime(str(mtp_vision_gguf), n_ctx=4096, draft="mtp")
    try:
        request = ask(f"Here is calc.py:\n{CALC}\nRepeat it.", make_png(128, 96, seed=12))
        prompt = drafted._checked_tokens(request, drafted.prompt_text(request))
        fresh_prompt = fresh._checked_tokens(request, fresh.prompt_text(request))
        assert prompt == fresh_prompt and min(prompt) < 0  # the image's placeholders are in it
        truth = drafted.tokenize("def plus(a, b):")
        wrong = drafted.tokenize("Hello world, this is prose")[:6]
        assert drafted.eval_tokens(prompt)
        drafted.eval_with_rows([truth[0], truth[1], *wrong], len(wrong) + 2)
        assert drafted.truncate(len(prompt) + 2)
        assert fresh.eval_tokens([*prompt, *truth[:2]])
        n = len(prompt) + 2
        pos = drafted._position(n)
        assert pos < n  # M-RoPE: the image takes fewer positions than tokens
        for rt in (drafted, fresh):
            assert int(llama_cpp.llama_memory_seq_pos_max(head(rt)._memory, 0)) == pos - 1
        context = np.array([*prompt, *truth[:3]], dtype=np.int32)
        (a, la), (b, lb) = head_logits(head(drafted), context, 6), head_logits(head(fresh), context, 6)
        assert len(a) == 6 and a == b
        np.testing.assert_allclose(la, lb, atol=2e-3 * float(np.abs(lb).max()), rtol=0)
    finally:
        drafted.close()
        fresh.close()
