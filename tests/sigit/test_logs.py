"""Where the log goes: a size-capped file in the state dir; stderr only with --verbose."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from sigit import logs


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SIGIT_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("SIGIT_LOG", raising=False)
    root = logging.getLogger()
    level = root.level
    yield tmp_path / "state"
    for handler in [h for h in root.handlers if getattr(h, "_sigit", False)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)
    logging.captureWarnings(False)


def test_llama_cpp_lines_go_to_the_file_and_not_to_stderr(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = logs.setup_logging()
    assert path == state / "logs" / "sigit.log"
    logging.getLogger("qwen_runtime.llama_cpp").warning("llama_context: n_ctx_seq (16384) > n_ctx_train (4096)")
    assert "n_ctx_seq" in path.read_text()
    assert "n_ctx_seq" not in capsys.readouterr().err


def test_verbose_mirrors_to_stderr(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs.setup_logging(verbose=True)
    logging.getLogger("qwen_runtime.llama_cpp").warning("llama_context: shown")
    assert "llama_context: shown" in capsys.readouterr().err


def test_sigit_log_sets_the_level_and_a_bad_value_says_so(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SIGIT_LOG", "warning")
    path = logs.setup_logging()
    assert path is not None
    logging.getLogger("sigit.test").info("an info line")
    logging.getLogger("sigit.test").warning("a warning line")
    text = path.read_text()
    assert "a warning line" in text and "an info line" not in text
    monkeypatch.setenv("SIGIT_LOG", "loud")
    logs.setup_logging()
    assert "SIGIT_LOG='loud' is not one of debug, info, warning; logging at info" in capsys.readouterr().err
    assert logging.getLogger().level == logging.INFO


def test_the_file_rotates_at_its_cap(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "MAX_BYTES", 2000)
    path = logs.setup_logging()
    assert path is not None
    for i in range(200):
        logging.getLogger("sigit.test").info("line %d %s", i, "x" * 50)
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["sigit.log", "sigit.log.1", "sigit.log.2"]  # BACKUPS old files, no more
    assert all(p.stat().st_size <= 2000 for p in path.parent.iterdir())


def test_huggingface_hub_keeps_its_messages_off_the_terminal(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = logs.setup_logging()
    assert path is not None
    from huggingface_hub.utils import logging as hf_logging

    hf_logging.get_logger("huggingface_hub.file_download").warning("Retrying in 1s")
    assert "Retrying in 1s" not in capsys.readouterr().err
    assert "Retrying in 1s" in path.read_text()
