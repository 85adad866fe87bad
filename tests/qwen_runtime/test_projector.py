"""A projector belongs to its model (issue 35): many models share a folder, and a projector beside a model
is used only when its name says it is that model's and its header fits; a projector the user names that
does not fit is an error naming both files, before llama.cpp sees either. Tiny models, real llama.cpp."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp import vision as llamacpp_vision
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.cli import main
from qwen_runtime.errors import ModelLoadError
from qwen_runtime.models.naming import can_see, find_mmproj
from qwen_runtime.models.projector import mismatch, model_base_name, named_for
from qwen_runtime.testing.testmodel import write_test_gguf
from qwen_runtime.testing.testmodel_qwen35 import SHAPE
from qwen_runtime.testing.testmodel_vision import write_test_mmproj


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder as users keep it: a text-only Qwen 3, a Qwen 3.5 and another Qwen 3.5's projector, with
    the same embedding width as both (so only the names and the architecture tell them apart), and a
    projector named for the Qwen 3.5 but of another width."""
    folder = tmp_path_factory.mktemp("models")
    write_test_gguf(folder / "qwen3-text.gguf")
    write_test_gguf(folder / "tiny-qwen35.gguf", arch="qwen35")
    write_test_mmproj(folder / "mmproj-other.gguf", out_dim=SHAPE.n_embd)
    write_test_mmproj(folder / "wide" / "mmproj-tiny-qwen35.gguf", out_dim=2 * SHAPE.n_embd)
    return folder


def beside(shared: Path, tmp_path: Path, model: str, projectors: dict[str, str]) -> Path:
    """A folder holding `model` from the shared one and projectors under new names ({new: shared name})."""
    shutil.copy(shared / model, tmp_path / model)
    for new, old in projectors.items():
        shutil.copy(shared / old, tmp_path / new)
    return tmp_path / model


def test_a_text_only_model_never_sees_through_another_models_projector(
    shared: Path, make_png: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    """The issue's case: qwen3 beside `mmproj-other.gguf` saw images (9 image tokens, exit 0)."""
    model = shared / "qwen3-text.gguf"
    with caplog.at_level(logging.INFO, logger="qwen_runtime"):
        assert find_mmproj(model) is None and not can_see(str(model))
    assert "mmproj-other.gguf is not named for it" in caplog.text
    rt = LlamaCppRuntime(str(model), n_ctx=512)
    try:
        assert rt.vision is None and not rt.supports_images
        assert "text-only model (qwen3)" in rt.cannot_see()
    finally:
        rt.close()
    assert (
        main(
            [
                "generate",
                "-m",
                str(model),
                "-p",
                "what is it?",
                "--image",
                str(make_png(32, 32)),
                "--max-tokens",
                "4",
                "--n-ctx",
                "512",
            ]
        )
        == 1
    )


def test_a_vision_model_does_not_take_a_projector_named_for_another_model(shared: Path) -> None:
    """Qwen 3.5 takes Qwen 3.5 projectors of its width, but `mmproj-other.gguf` is not named for it."""
    model = shared / "tiny-qwen35.gguf"
    assert mismatch(model, shared / "mmproj-other.gguf") is None  # it would fit...
    assert find_mmproj(model) is None  # ...but the name says it is another model's
    rt = LlamaCppRuntime(str(model), n_ctx=512)
    try:
        assert not rt.supports_images
    finally:
        rt.close()


@pytest.mark.parametrize(
    "name",
    [
        "mmproj-tiny-qwen35.gguf",
        "mmproj-tiny-qwen35-f16.gguf",
        "tiny-qwen35.mmproj.gguf",
        "mmproj-F16.gguf",
        "mmproj-model-f16.gguf",
    ],
)
def test_a_projector_named_for_the_model_or_the_folders_generic_one_is_found(
    shared: Path, tmp_path: Path, name: str
) -> None:
    model = beside(
        shared, tmp_path, "tiny-qwen35.gguf", {name: "mmproj-other.gguf", "mmproj-other.gguf": "mmproj-other.gguf"}
    )
    assert find_mmproj(model) == tmp_path / name and can_see(str(model))


def test_two_generic_projectors_are_ambiguous_and_neither_is_used(shared: Path, tmp_path: Path) -> None:
    model = beside(
        shared,
        tmp_path,
        "tiny-qwen35.gguf",
        {"mmproj-F16.gguf": "mmproj-other.gguf", "mmproj-BF16.gguf": "mmproj-other.gguf"},
    )
    assert find_mmproj(model) is None


def test_a_projector_named_for_the_model_but_of_another_width_is_passed_over(
    shared: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model = beside(shared, tmp_path, "tiny-qwen35.gguf", {"mmproj-tiny-qwen35.gguf": "wide/mmproj-tiny-qwen35.gguf"})
    with caplog.at_level(logging.INFO, logger="qwen_runtime"):
        assert find_mmproj(model) is None
    assert f"makes embeddings 128 wide; tiny-qwen35.gguf takes {SHAPE.n_embd}" in caplog.text


@pytest.mark.parametrize(
    ("model", "projector", "why"),
    [
        ("qwen3-text.gguf", "mmproj-other.gguf", r"qwen3-text.gguf is a text-only model \(qwen3\)"),
        (
            "tiny-qwen35.gguf",
            "wide/mmproj-tiny-qwen35.gguf",
            "mmproj-tiny-qwen35.gguf makes embeddings 128 wide; tiny-qwen35.gguf takes 64",
        ),
        ("tiny-qwen35.gguf", "qwen3-text.gguf", "qwen3-text.gguf has no vision encoder"),
    ],
)
def test_a_projector_the_user_names_that_does_not_fit_is_an_error_naming_both_before_llama_cpp(
    shared: Path, model: str, projector: str, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the projector reached llama.cpp")

    monkeypatch.setattr(llamacpp_vision.Vision, "__init__", never)
    with pytest.raises(
        ModelLoadError, match=f"the projector {shared / projector} does not belong to the model {shared / model}: {why}"
    ):
        LlamaCppRuntime(str(shared / model), n_ctx=512, mmproj=str(shared / projector))


def test_a_named_projector_that_fits_is_used_whatever_its_name(shared: Path) -> None:
    rt = LlamaCppRuntime(str(shared / "tiny-qwen35.gguf"), n_ctx=512, mmproj=str(shared / "mmproj-other.gguf"))
    try:
        assert rt.supports_images and rt.vision is not None and rt.vision.path.name == "mmproj-other.gguf"
    finally:
        rt.close()


def test_cli_generate_with_another_models_projector_names_both_files(
    shared: Path, make_png: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "generate",
                "-m",
                str(shared / "qwen3-text.gguf"),
                "--mmproj",
                str(shared / "mmproj-other.gguf"),
                "-p",
                "what is it?",
                "--image",
                str(make_png(32, 32)),
                "--max-tokens",
                "4",
                "--n-ctx",
                "512",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "mmproj-other.gguf does not belong to the model" in err and "qwen3-text.gguf" in err


@pytest.mark.parametrize(
    ("model", "projector", "belongs"),
    [
        ("Qwen3.5-2B-Q4_K_M.gguf", "mmproj-Qwen3.5-2B-F16.gguf", True),
        ("Qwen3.5-2B-UD-Q4_K_XL.gguf", "mmproj-Qwen3.5-2B-BF16.gguf", True),
        ("Qwen3.5-2B-Q4_K_M.gguf", "mmproj-Qwen3.5-27B-F16.gguf", False),
        ("Qwen3.5-2B-Q4_K_M.gguf", "mmproj-Qwen3.5-2B-Q4_K_M.gguf", True),
        ("m.gguf", "m.mmproj.gguf", True),
        ("m.gguf", "mmproj-other.gguf", False),
        ("m.gguf", "mmproj-F16.gguf", False),  # generic: only as the folder's one, see find_mmproj
    ],
)
def test_which_names_say_a_projector_is_the_models(model: str, projector: str, belongs: bool) -> None:
    assert named_for(Path(model), Path(projector)) is belongs
    assert model_base_name(Path("Qwen3.5-2B-Q4_K_M.gguf")) == "Qwen3.5-2B"
