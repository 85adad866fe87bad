"""The settings issue 16 added: `download`, `gpu_layers`, and saving the model the first-run picker chose."""

import tomllib
from pathlib import Path

import pytest
from sigit.config.settings import SettingsError, load_settings, save_user_setting


def test_defaults_ask_before_downloading_and_leave_gpu_layers_to_llama_cpp(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    settings = load_settings(project, config)
    assert settings.download == "ask" and settings.gpu_layers is None


def test_user_file_sets_both(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    (config / "settings.toml").write_text('download = "auto"\ngpu_layers = 0\n')
    settings = load_settings(project, config)
    assert settings.download == "auto" and settings.gpu_layers == 0


@pytest.mark.parametrize(("text", "named"), [
    ('download = "yes"\n', '`download` must be one of "ask", "auto"'),
    ("gpu_layers = -2\n", "`gpu_layers` must be -1"),
    ("gpu_layers = true\n", "`gpu_layers` must be -1"),
])
def test_bad_values_name_the_file_and_the_choices(dirs: tuple[Path, Path], text: str, named: str) -> None:
    config, project = dirs
    (config / "settings.toml").write_text(text)
    with pytest.raises(SettingsError, match=named) as info:
        load_settings(project, config)
    assert str(config / "settings.toml") in str(info.value)


def test_untrusted_project_cannot_turn_downloads_on(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    (project / ".sigit").mkdir()
    (project / ".sigit" / "settings.toml").write_text('download = "auto"\n')
    assert load_settings(project, config).download == "ask"
    assert load_settings(project, config, trusted=True).download == "auto"


def test_saving_the_chosen_model_keeps_the_rest_of_the_file(dirs: tuple[Path, Path]) -> None:
    config, _ = dirs
    path = config / "settings.toml"
    path.write_text('# mine\nthinking = false\n\n[permissions]\ndefault = "ask"\n')
    assert save_user_setting(config, "model", "qwen3-1.7b") == path
    text = path.read_text()
    assert "# mine" in text
    assert tomllib.loads(text) == {"thinking": False, "model": "qwen3-1.7b", "permissions": {"default": "ask"}}


def test_saving_into_a_broken_file_refuses_and_keeps_it(dirs: tuple[Path, Path]) -> None:
    config, _ = dirs
    path = config / "settings.toml"
    path.write_text("model = [\n")
    with pytest.raises(SettingsError, match="invalid TOML"):
        save_user_setting(config, "model", "qwen3-1.7b")
    assert path.read_text() == "model = [\n"
