"""Fixtures for qwen_runtime tests: an empty hub cache of our own, and the fake hub on 127.0.0.1
(`qwen_runtime.testing.fake_hub`) that HF_ENDPOINT points at."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.testing.fake_hub import FakeHub, serve_fake_hub


@pytest.fixture
def fake_hub(hub_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A running fake hub that HF_ENDPOINT points at, with an empty cache."""
    with serve_fake_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


@pytest.fixture(scope="session")
def xml_template_gguf(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The tiny dense model carrying another Qwen template (qwen3-coder, qwen3.5), built once each."""
    from qwen_runtime.testing.testmodel import write_test_gguf

    built: dict[str, Path] = {}

    def get(template: str) -> Path:
        if template not in built:
            folder = tmp_path_factory.mktemp(f"tiny-{template}")
            built[template] = write_test_gguf(folder / f"tiny-{template}.gguf", template=template)
        return built[template]

    return get


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[int]]]:
    """The tokens each in-process reply emitted, in order (recorded where they enter the detokenizer)."""
    from qwen_runtime.backends import _generation

    replies: list[list[int]] = []
    init, push = _generation.Generation.__init__, _generation.Utf8Detokenizer.push

    def new_generation(self: Any, *args: Any, **kwargs: Any) -> None:
        replies.append([])
        init(self, *args, **kwargs)

    def record(self: Any, token: int) -> str:
        replies[-1].append(token)
        return str(push(self, token))

    monkeypatch.setattr(_generation.Generation, "__init__", new_generation)
    monkeypatch.setattr(_generation.Utf8Detokenizer, "push", record)
    yield replies
