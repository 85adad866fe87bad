"""How long a local model stays loaded for the next command: `--keep-alive`, then `SIGIT_KEEP_ALIVE`,
then the `keep_alive` setting, then five minutes; what reaches the loader; bad values said clearly."""

from __future__ import annotations

from pathlib import Path

import pytest
from sigit.cli import _parse
from sigit.config.settings import SettingsError, load_settings
from sigit.errors import BadValueError
from sigit.frontends.host_args import headless_host_options
from sigit.model_choice import keep_alive, load_options
from sigit.options import HostOptions


def test_default_is_five_minutes_and_the_setting_takes_durations(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    assert load_settings(project, config).keep_alive == 300.0
    (config / "settings.toml").write_text('keep_alive = "90s"\n')
    assert load_settings(project, config).keep_alive == 90.0
    (config / "settings.toml").write_text("keep_alive = 0\n")
    assert load_settings(project, config).keep_alive == 0.0


def test_a_bad_setting_names_the_key_and_the_forms(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    (config / "settings.toml").write_text('keep_alive = "forever"\n')
    with pytest.raises(SettingsError, match=r"`keep_alive`: a keep-alive time is a duration such as \"5m\".*'forever'"):
        load_settings(project, config)


def test_flag_then_env_then_setting(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    config, project = dirs
    (config / "settings.toml").write_text('keep_alive = "10m"\n')
    settings = load_settings(project, config)
    monkeypatch.delenv("SIGIT_KEEP_ALIVE", raising=False)
    assert keep_alive(settings, HostOptions()) == 600.0
    monkeypatch.setenv("SIGIT_KEEP_ALIVE", "30s")
    assert keep_alive(settings, HostOptions()) == 30.0
    assert keep_alive(settings, HostOptions(keep_alive=0.0)) == 0.0
    monkeypatch.setenv("SIGIT_KEEP_ALIVE", "soon")
    with pytest.raises(BadValueError, match="SIGIT_KEEP_ALIVE: a keep-alive time is a duration"):
        keep_alive(settings, HostOptions())


def test_the_flag_reaches_the_model_loader_with_the_headless_notice(tmp_path: Path) -> None:
    args = _parse(["--cwd", str(tmp_path), "--model", "m.gguf", "--keep-alive", "2m", "-p", "hi"])
    assert not isinstance(args, int)
    options = headless_host_options(args)
    assert options.keep_alive == 120.0
    loading = load_options("m.gguf", load_settings(tmp_path, tmp_path / "config"), options)
    assert loading["keep_alive"] == 120.0 and loading["host_notice"] is options.host_notice


def test_a_bad_flag_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _parse(["--cwd", str(tmp_path), "--keep-alive", "a while", "-p", "hi"]) == 2
    assert "--keep-alive: a keep-alive time is a duration" in capsys.readouterr().err
