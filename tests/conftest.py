"""Session-wide fixtures: the tiny Qwen 3-shaped test model, built once per test run into a tmp dir."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.testmodel import write_test_gguf, write_test_hf


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ~0.5 MB random-weight GGUF with Qwen 3's architecture, tokens and chat template."""
    return write_test_gguf(tmp_path_factory.mktemp("tiny-gguf") / "tiny-qwen3.gguf")


@pytest.fixture(scope="session")
def tiny_hf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tiny model as a transformers folder (importing torch makes this the slow one)."""
    return write_test_hf(tmp_path_factory.mktemp("tiny-hf"))
