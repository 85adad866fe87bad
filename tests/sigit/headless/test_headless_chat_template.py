"""A model file without a chat template is said out loud where the user looks (not only in the log), and
`--chat-template FILE` / the `chat_template` setting supply one: `sigit -p` on a tiny real GGUF."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.models.templates import load_template
from qwen_runtime.testing.testmodel import write_test_gguf

from .test_headless_cli import run_sigit

WARNING = "model: bare.gguf has no chat template: falling back to qwen3"


@pytest.fixture(scope="module")
def bare_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_gguf(tmp_path_factory.mktemp("bare") / "bare.gguf", chat_template="")


def one_turn(model: Path, work: Path, config: Path, *flags: str) -> tuple[int, str]:
    proc = run_sigit(["-p", "hi", "--model", str(model), "--no-think", "--n-ctx", "1024", "--max-turns", "1",
                      *flags], work, config, timeout=120)
    return proc.returncode, proc.stderr


def test_a_model_without_a_template_is_warned_about_with_the_fix(bare_gguf: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, err = one_turn(bare_gguf, work, tmp_path / "config")
    assert code in (0, 1) and "Traceback" not in err
    assert WARNING in err and "--chat-template FILE" in err


def test_the_flag_and_the_setting_supply_the_template(bare_gguf: Path, tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    template = tmp_path / "qwen.jinja"
    template.write_text(load_template("qwen3"))
    code, err = one_turn(bare_gguf, work, config, "--chat-template", str(template))
    assert code in (0, 1) and "Traceback" not in err and "chat template" not in err, err
    config.mkdir(exist_ok=True)
    (config / "settings.toml").write_text(f'chat_template = "{template}"\n')
    code, err = one_turn(bare_gguf, work, config)
    assert code in (0, 1) and "chat template" not in err, err


def test_a_template_file_that_cannot_serve_is_a_clear_error(bare_gguf: Path, tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    code, err = one_turn(bare_gguf, work, config, "--chat-template", str(tmp_path / "absent.jinja"))
    assert code == 2 and "--chat-template" in err and "no such file" in err
    broken = tmp_path / "broken.jinja"
    broken.write_text("{% if messages %}")
    code, err = one_turn(bare_gguf, work, config, "--chat-template", str(broken))
    assert code == 1 and f"{broken}: chat template does not parse" in err and "Traceback" not in err, err
