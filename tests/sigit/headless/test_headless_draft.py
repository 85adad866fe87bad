"""`sigit --draft SOURCE` with `sigit -p` (`sigit.cli.main` in this process) on the tiny Qwen 3.5 model with an MTP
head: the flag takes what the `draft` setting and qwen-runtime take, and wins over the setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qwen_runtime.testing.testmodel import write_test_gguf

from .test_headless_cli import run_sigit


@pytest.fixture(scope="module")
def mtp_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_gguf(tmp_path_factory.mktemp("sigit-mtp") / "tiny-qwen35-mtp.gguf", arch="qwen35", mtp=True)


def drafted(mtp_gguf: Path, tmp_path: Path, setting: str, *flag: str) -> int:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir(parents=True)
    config.mkdir()
    (config / "settings.toml").write_text(f'max_tokens = 24\nprompt_cache = false\ndraft = "{setting}"\n')
    proc = run_sigit(
        [
            "-p",
            "Repeat: abc abc abc abc",
            "--model",
            str(mtp_gguf),
            "--no-think",
            "--max-turns",
            "1",
            "--output-format",
            "json",
            *flag,
        ],
        work,
        config,
        timeout=180,
    )
    assert "Traceback" not in proc.stderr and proc.stdout, proc.stderr
    usage = json.loads(proc.stdout.splitlines()[-1])["usage"]
    return int(usage["drafted_tokens"])


@pytest.mark.slow
def test_the_draft_flag_names_the_mtp_head_and_wins_over_the_setting(mtp_gguf: Path, tmp_path: Path) -> None:
    assert drafted(mtp_gguf, tmp_path, "none", "--draft", "mtp") > 0  # the setting alone drafts nothing


def test_a_misspelt_draft_flag_is_a_usage_error_before_anything_loads(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    proc = run_sigit(["-p", "x", "--draft", "lookahead"], tmp_path / "work", tmp_path / "config")
    assert proc.returncode == 2
    assert "--draft 'lookahead' is not a draft source; use prompt-lookup (or ngram), mtp, none" in proc.stderr


@pytest.mark.parametrize(("flag", "setting", "loads"), [("ngram", "none", "prompt-lookup"), (None, "MTP", "mtp")])
def test_every_frontends_flag_reaches_the_runtime_over_the_setting(
    tmp_path: Path, flag: str | None, setting: str, loads: str
) -> None:
    """Headless and the app read `--draft` with one parser and hand it to the host the same way."""
    from sigit.app import SessionHost
    from sigit.cli import _parse
    from sigit.config.schema import Settings
    from sigit.frontends.headless import host_options

    for argv in (["-p", "x"], []):  # headless, the app (its options are headless's)
        args = _parse([*argv, "--cwd", str(tmp_path), *(["--draft", flag] if flag else [])])
        assert not isinstance(args, int)
        host = SessionHost(host_options(args))
        assert host._load_options("m", Settings(draft=setting))["draft"] == loads


def test_with_no_flag_and_no_setting_the_runtime_chooses_the_draft(tmp_path: Path) -> None:
    """No `--draft` and no `draft` in any settings file: nothing is passed, so a model's tuned draft source
    (`qwen-runtime tune`), else prompt lookup, applies; a settings file naming the default still passes it."""
    from sigit.app import SessionHost
    from sigit.cli import _parse
    from sigit.config.settings import load_settings
    from sigit.frontends.headless import host_options

    args = _parse(["-p", "x", "--cwd", str(tmp_path)])
    assert not isinstance(args, int)
    host = SessionHost(host_options(args))
    config = tmp_path / "config"
    config.mkdir()
    assert "draft" not in host._load_options("m", load_settings(tmp_path, config))
    (config / "settings.toml").write_text('draft = "prompt-lookup"\n')
    assert host._load_options("m", load_settings(tmp_path, config))["draft"] == "prompt-lookup"
