"""The MTP path proven on a head that agrees with its model by construction (`make-test-model --arch qwen35
--mtp --mtp-agrees`): a random head drafts and is rejected, which shows nothing about whether drafts can
ever be accepted. Here the model's next token is almost always what the head computes from the token just
sampled, so `--draft mtp` must accept most drafts, reject a few (the model's small context term), and
emit exactly what `--draft none` emits; a draft model file identical to the model must do the same."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from qwen_runtime import ChatRequest, Completion, Sampling, UserMessage
from qwen_runtime.backends.llamacpp.mtp import MtpDraft
from qwen_runtime.backends.llamacpp.runtime import HYBRID_MAX_DRAFT, LlamaCppRuntime
from qwen_runtime.speed.draft_control import DraftController
from qwen_runtime.speed.drafting import ModelDraft
from qwen_runtime.testing.testmodel import write_test_gguf


@pytest.fixture(scope="module")
def agreeing_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-mtp-agrees")
    return write_test_gguf(folder / "tiny-qwen35-mtp-agrees.gguf", arch="qwen35", mtp=True, mtp_agrees=True)


@pytest.fixture(scope="module")
def undrafted(agreeing_gguf: Path) -> Iterator[LlamaCppRuntime]:
    rt = LlamaCppRuntime(str(agreeing_gguf), n_ctx=1024, draft="none")
    yield rt
    rt.close()


def drafting(path: Path, draft: str) -> LlamaCppRuntime:
    """The model drafting with `draft`, its controller timing a machine with cores to spare (scripted: what
    it chooses does not depend on how busy this machine is)."""
    rt = LlamaCppRuntime(str(path), n_ctx=1024, draft=draft)
    rt.draft_policy = DraftController(rt.max_draft, cost_model=lambda n: 1 + 0.05 * (n - 1))
    return rt


def reply(rt: LlamaCppRuntime, text: str = "Write a function.") -> Completion:
    rt.clear_cache()
    request = ChatRequest((UserMessage(text),), sampling=Sampling(temperature=0, max_tokens=120), enable_thinking=False)
    return rt.complete(request)


def test_the_agreeing_head_accepts_most_drafts_and_the_reply_is_the_undrafted_one_token_for_token(
    agreeing_gguf: Path, undrafted: LlamaCppRuntime, emitted: list[list[int]]
) -> None:
    rt = drafting(agreeing_gguf, "mtp")
    try:
        assert isinstance(rt.draft_source, MtpDraft) and rt.rollback_snapshots == HYBRID_MAX_DRAFT
        want = reply(undrafted)
        got = reply(rt)
        usage = got.usage
        assert usage.completion_tokens == 120 and usage.drafted_tokens > 50
        assert usage.accepted_draft_tokens > 0.5 * usage.drafted_tokens
        # and some were rejected (where the model's context term wins): the rollback path ran too
        assert usage.accepted_draft_tokens < usage.drafted_tokens
        assert emitted[1] == emitted[0] and got.text == want.text
    finally:
        rt.close()


def test_prompt_lookup_and_the_head_together_keep_the_reply(
    agreeing_gguf: Path, undrafted: LlamaCppRuntime, emitted: list[list[int]]
) -> None:
    rt = drafting(agreeing_gguf, "prompt-lookup")  # the default: the longer proposal of the two wins
    try:
        want = reply(undrafted, "Say something.")
        got = reply(rt, "Say something.")
        assert got.usage.accepted_draft_tokens > 0.5 * got.usage.drafted_tokens > 25
        assert emitted[1] == emitted[0] and got.text == want.text
    finally:
        rt.close()


def test_a_draft_model_file_identical_to_the_model_accepts_every_draft_and_keeps_the_reply(
    agreeing_gguf: Path, undrafted: LlamaCppRuntime, emitted: list[list[int]]
) -> None:
    """A hybrid drafting with a copy of itself: each greedy draft is what the model emits, so all of it
    is accepted (the draft model's own cache follows; its rollback snapshots come with the first draft)."""
    rt = drafting(agreeing_gguf, str(agreeing_gguf))
    try:
        assert isinstance(rt.draft_source, ModelDraft) and rt.rollback_snapshots == 0
        want = reply(undrafted)
        got = reply(rt)
        assert got.usage.drafted_tokens > 50
        assert got.usage.accepted_draft_tokens >= 0.9 * got.usage.drafted_tokens
        assert rt.rollback_snapshots == HYBRID_MAX_DRAFT
        assert emitted[1] == emitted[0] and got.text == want.text
    finally:
        rt.close()


def test_make_test_model_writes_the_agreeing_head_only_with_mtp(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="pass mtp too"):
        write_test_gguf(tmp_path / "x.gguf", arch="qwen35", mtp_agrees=True)


def test_the_cli_writes_the_agreeing_model_and_mtp_drafts_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qwen_runtime.cli import main

    out = tmp_path / "agrees.gguf"
    assert main(["make-test-model", str(out), "--arch", "qwen35", "--mtp", "--mtp-agrees"]) == 0
    capsys.readouterr()
    replies = {}
    for draft in ("none", "mtp"):
        argv = [
            "generate",
            "-m",
            str(out),
            "-p",
            "hi",
            "--no-think",
            "--max-tokens",
            "40",
            "--temperature",
            "0",
            "--n-ctx",
            "512",
            "--draft",
            draft,
            "--json",
        ]
        assert main(argv) == 0
        replies[draft] = json.loads(capsys.readouterr().out)
    assert replies["mtp"]["text"] == replies["none"]["text"]
    assert replies["mtp"]["usage"]["drafted_tokens"] > 0 == replies["none"]["usage"]["drafted_tokens"]
    assert main(["make-test-model", str(tmp_path / "x.gguf"), "--arch", "qwen35", "--mtp-agrees"]) != 0
    assert "use it with --mtp" in capsys.readouterr().err
