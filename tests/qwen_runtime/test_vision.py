"""Images through real llama.cpp on the tiny vision model (the tiny hybrid and its random projector):
the token cost grows with the picture, different pictures give different logits, the prompt cache keeps
an image prefix, and a model that cannot see refuses with a reason."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.cli import main
from qwen_runtime.images import Image, ImageError, fit_size, prepare_pixels
from qwen_runtime.types import AssistantMessage, ChatRequest, Completion, Sampling, UserMessage

pytestmark = pytest.mark.timeout(120)
GREEDY = Sampling(temperature=0, max_tokens=6, seed=1)


@pytest.fixture(scope="module")
def seeing(tiny_vision_gguf: Path) -> Iterator[LlamaCppRuntime]:
    rt = LlamaCppRuntime(str(tiny_vision_gguf), n_ctx=4096)
    yield rt
    rt.close()


def ask(text: str, *images: object, history: tuple[object, ...] = ()) -> ChatRequest:
    return ChatRequest(
        messages=(*history, UserMessage(text, images=images)),  # type: ignore[arg-type]
        sampling=GREEDY,
        enable_thinking=False,
    )


def last_logits(rt: LlamaCppRuntime, request: ChatRequest) -> npt.NDArray[np.float32]:
    """The logits the model samples its first reply token from, evaluated from scratch."""
    rt.clear_cache()
    tokens = rt._checked_tokens(request, rt.prompt_text(request))
    with rt._lock:
        rt.reuse_prefix(tokens)
        assert rt.eval_prompt(request, tokens, 0)
        return rt.logits().copy()


def test_the_projector_is_found_beside_the_model_and_the_runtime_says_it_can_see(seeing: LlamaCppRuntime) -> None:
    assert seeing.supports_images
    assert seeing.vision is not None and seeing.vision.path.name == "mmproj-tiny-qwen35.gguf"


def test_prompt_tokens_grow_with_the_image_size_and_usage_counts_the_image(
    seeing: LlamaCppRuntime, make_png: Callable[..., Path]
) -> None:
    small = seeing.complete(ask("what is this?", make_png(64, 64)))
    large = seeing.complete(ask("what is this?", make_png(320, 256)))
    assert small.finish_reason in ("stop", "length") and large.finish_reason in ("stop", "length")
    assert 0 < small.usage.image_tokens < large.usage.image_tokens
    # 16-pixel patches merged 2x2: 320x256 is 10x8 tokens; what is not image is the same text
    assert large.usage.image_tokens == 80
    assert large.usage.prompt_tokens - small.usage.prompt_tokens == 80 - small.usage.image_tokens
    assert large.usage.to_dict()["image_tokens"] == 80


def test_two_different_images_give_different_logits_and_the_same_image_the_same(
    seeing: LlamaCppRuntime, make_png: Callable[..., Path]
) -> None:
    a = last_logits(seeing, ask("describe", make_png(96, 96, seed=1)))
    b = last_logits(seeing, ask("describe", make_png(96, 96, seed=2)))
    again = last_logits(seeing, ask("describe", make_png(96, 96, seed=1)))
    assert float(np.abs(a - b).max()) > 1e-3
    assert np.array_equal(a, again)


def test_an_image_given_as_bytes_or_a_data_url_is_the_same_image_as_its_file(
    seeing: LlamaCppRuntime, make_png: Callable[..., Path]
) -> None:
    path = make_png(96, 64, seed=3)
    from_file = last_logits(seeing, ask("describe", path))
    from_bytes = last_logits(seeing, ask("describe", Image.from_bytes(path.read_bytes())))
    from_url = last_logits(seeing, ask("describe", Image.from_path(path).data_url()))
    assert np.array_equal(from_file, from_bytes) and np.array_equal(from_file, from_url)


def test_the_disk_prompt_cache_restores_an_image_prefix_in_a_new_process(
    tiny_vision_gguf: Path, make_png: Callable[..., Path], tmp_path: Path
) -> None:
    request = ask("what is in the picture?", make_png(128, 96, seed=4))
    first = LlamaCppRuntime(str(tiny_vision_gguf), n_ctx=4096, prompt_cache_dir=tmp_path / "cache")
    try:
        cold = first.complete(request)
    finally:
        first.close()
    second = LlamaCppRuntime(str(tiny_vision_gguf), n_ctx=4096, prompt_cache_dir=tmp_path / "cache")
    try:
        warm = second.complete(request)
    finally:
        second.close()
    assert cold.usage.restored_prompt_tokens == 0
    # the whole conversation before the generation prompt, the image included, came from the disk
    assert warm.usage.restored_prompt_tokens > warm.usage.image_tokens == cold.usage.image_tokens > 0
    assert warm.text == cold.text


def test_a_second_turn_keeps_the_image_from_the_cache(
    seeing: LlamaCppRuntime, make_png: Callable[..., Path]
) -> None:
    seeing.clear_cache()
    first_ask = ask("look at this", make_png(128, 128, seed=5))
    first = seeing.complete(first_ask)
    follow = ask("and now?", history=(*first_ask.messages, AssistantMessage(first.text)))
    second = seeing.complete(follow)
    assert second.usage.image_tokens == first.usage.image_tokens > 0
    opening = first.usage.prompt_tokens - 4  # everything but the generation prompt of turn one
    assert second.usage.cached_prompt_tokens >= opening - 8
    assert second.usage.evaluated_prompt_tokens < second.usage.prompt_tokens - second.usage.image_tokens


def test_a_large_image_is_downscaled_to_the_pixel_limit_before_encoding(
    tiny_vision_gguf: Path, make_png: Callable[..., Path]
) -> None:
    big = make_png(1024, 768, seed=6)
    pixels = prepare_pixels(Image.from_path(big), max_pixels=256 * 192)
    assert (pixels.width, pixels.height) == (256, 192) and pixels.downscaled
    w, h = fit_size(4000, 3000, 1_000_000)
    assert w * h <= 1_000_000 and (w, h) == (1154, 866)  # 4:3 kept, as many pixels as fit
    rt = LlamaCppRuntime(str(tiny_vision_gguf), n_ctx=4096, image_max_pixels=256 * 192)
    try:
        usage = rt.complete(ask("what?", big)).usage
    finally:
        rt.close()
    assert usage.image_tokens == (256 // 32) * (192 // 32)


def test_a_text_only_model_refuses_images_and_says_why(tiny_gguf: Path, make_png: Callable[..., Path]) -> None:
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048)
    try:
        assert not rt.supports_images
        with pytest.raises(ImageError, match=r"cannot see images: it is a text-only model \(qwen3\)"):
            rt.complete(ask("what is this?", make_png(64, 64)))
        assert rt.complete(ask("still fine without one")).finish_reason in ("stop", "length")
    finally:
        rt.close()


def test_a_model_without_its_projector_refuses_and_names_the_fix(
    tiny_vision_gguf: Path, make_png: Callable[..., Path]
) -> None:
    rt = LlamaCppRuntime(str(tiny_vision_gguf), n_ctx=2048, mmproj="none")
    try:
        with pytest.raises(ImageError, match=r"no projector \(mmproj\) is loaded; pass --mmproj FILE"):
            rt.complete(ask("what is this?", make_png(64, 64)))
    finally:
        rt.close()


def test_a_file_that_is_not_an_image_is_a_clear_error_and_the_model_keeps_working(
    seeing: LlamaCppRuntime, tmp_path: Path
) -> None:
    fake = tmp_path / "notes.png"
    fake.write_text("just text")
    with pytest.raises(ImageError, match=r"notes\.png is not an image Pillow can decode"):
        seeing.complete(ask("what is this?", fake))
    with pytest.raises(ImageError, match=r"cannot read image .*missing\.png"):
        seeing.complete(ask("and this?", tmp_path / "missing.png"))
    assert isinstance(seeing.complete(ask("hello")), Completion)


def test_make_test_model_vision_writes_a_qwen3vl_projector_with_the_real_tensor_names(tmp_path: Path) -> None:
    import gguf

    out = tmp_path / "m.gguf"
    assert main(["make-test-model", "--arch", "qwen35", "--vision", str(out)]) == 0
    reader = gguf.GGUFReader(str(tmp_path / "mmproj-m.gguf"))
    names = {t.name for t in reader.tensors}
    assert {"v.patch_embd.weight", "v.patch_embd.weight.1", "v.patch_embd.bias", "v.position_embd.weight",
            "v.blk.0.attn_qkv.weight", "v.blk.0.attn_out.bias", "v.blk.1.ln1.weight", "v.blk.1.ln2.bias",
            "v.blk.1.ffn_up.weight", "v.blk.1.ffn_down.weight", "v.post_ln.weight", "mm.0.weight",
            "mm.2.bias"} <= names
    field = reader.fields["clip.projector_type"]
    assert bytes(field.parts[field.data[0]]).decode() == "qwen3vl_merger"
    assert main(["make-test-model", "--vision", str(tmp_path / "dense.gguf")]) == 2  # qwen35 only


def test_cli_generate_sends_images_and_reports_their_cost(
    tiny_vision_gguf: Path, make_png: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["generate", "-m", str(tiny_vision_gguf), "-p", "what?", "--no-think", "--max-tokens", "3",
            "--seed", "1", "--json", "--n-ctx", "2048"]
    assert main([*args, "--image", str(make_png(64, 64)), "-i", str(make_png(128, 64))]) == 0
    usage = json.loads(capsys.readouterr().out)["usage"]
    assert usage["image_tokens"] == 9 + 8  # 64x64 is raised to the 8-token minimum (3x3); 128x64 is 4x2
    assert main([*args, "--image", "nope.png"]) == 2
    assert "--image 'nope.png': no such file" in capsys.readouterr().err
    assert main([*args, "--mmproj", "none", "--image", str(make_png(64, 64))]) == 1
    assert "no projector (mmproj) is loaded" in capsys.readouterr().err


def test_the_openai_compatible_backend_sends_images_as_image_url_data_urls(make_png: Callable[..., Path]) -> None:
    from qwen_runtime.backends.openai_compat import OpenAICompatRuntime
    from qwen_runtime.testing import ScriptedServer

    path = make_png(32, 16, seed=7)
    with ScriptedServer(["a square"]) as server:
        rt = OpenAICompatRuntime(server.base_url, "vision-model")
        assert rt.supports_images
        assert rt.complete(ask("what is this?", path, Image.from_bytes(b"GIF89a-not-really"))).text == "a square"
        content = server.requests[0]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "what is this?"}
    assert content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"] == Image.from_path(path).data_url()
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert content[2]["image_url"]["url"].startswith("data:image/gif;base64,")


def test_a_registry_models_projector_is_fetched_only_when_asked_for_then_used_from_the_cache(
    fake_hub: Any, tiny_vision_gguf: Path
) -> None:
    from qwen_runtime.models.naming import load_runtime
    from qwen_runtime.models.registry import get_model

    entry = get_model("qwen3.5-0.8b")
    assert entry.can_see and entry.mmproj == "mmproj-F16.gguf" and entry.mmproj_size_bytes > 100_000_000
    fake_hub.add(entry.repo_id, entry.filename, tiny_vision_gguf.read_bytes())
    fake_hub.add(entry.repo_id, "mmproj-F16.gguf", tiny_vision_gguf.with_name("mmproj-tiny-qwen35.gguf").read_bytes())

    def fetched() -> set[str]:
        return {path.rsplit("/", 1)[-1] for method, path in fake_hub.requests if method == "GET" and ".gguf" in path}

    text_only = load_runtime("qwen3.5-0.8b", n_ctx=1024, progress=False)
    text_only.close()
    assert not text_only.supports_images and "mmproj" in text_only.cannot_see()
    assert fetched() == {entry.filename}  # a text-only session never downloads the projector
    seeing = load_runtime("qwen3.5-0.8b", n_ctx=1024, progress=False, vision=True)
    seeing.close()
    assert seeing.supports_images and "mmproj-F16.gguf" in fetched()
    before = len(fake_hub.requests)
    again = load_runtime("qwen3.5-0.8b", n_ctx=1024, progress=False)  # cached: used without asking
    again.close()
    assert again.supports_images and not any(m == "GET" and ".gguf" in p for m, p in fake_hub.requests[before:])
    assert not load_runtime("qwen3.5-0.8b", n_ctx=1024, progress=False, vision=False).supports_images


def test_an_image_in_a_tool_result_reaches_the_model(
    seeing: LlamaCppRuntime, make_png: Callable[..., Path]
) -> None:
    from qwen_runtime.types import ToolCall, ToolMessage

    call = ToolCall("c1", "read_file", {"path": "shot.png"})
    history = (UserMessage("read shot.png"), AssistantMessage("", tool_calls=(call,)))

    def after(result: ToolMessage) -> ChatRequest:
        return ChatRequest((*history, result), sampling=GREEDY, enable_thinking=False)

    plain = seeing.complete(after(ToolMessage("c1", "[image]", "read_file")))
    seen = seeing.complete(after(ToolMessage("c1", "[image]", "read_file", images=(make_png(128, 64),))))
    assert plain.usage.image_tokens == 0 and seen.usage.image_tokens == 8
    assert seen.usage.prompt_tokens == plain.usage.prompt_tokens + 8 + 2  # and <|vision_start|>, <|vision_end|>
