import tomllib
from pathlib import Path

import pytest
from sigit.config.settings import (
    DEFAULT_ATTRIBUTION,
    Settings,
    SettingsError,
    default_model,
    load_settings,
    save_project_rule,
)


@pytest.fixture
def dirs(dirs: tuple[Path, Path]) -> tuple[Path, Path]:
    """conftest's folders, the project's `.sigit/` made already."""
    (dirs[1] / ".sigit").mkdir()
    return dirs


def write_user(config: Path, text: str) -> None:
    (config / "settings.toml").write_text(text)


def write_project(project: Path, text: str) -> None:
    (project / ".sigit" / "settings.toml").write_text(text)


def test_defaults_without_files(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    settings = load_settings(project, config)
    assert settings == Settings()
    assert settings.model == default_model() and default_model().startswith(("qwen3.5-", "qwen3.6-"))  # fits here
    assert settings.max_tokens == 8192
    assert settings.compaction_threshold == 0.8
    assert settings.permissions.default == "ask"
    assert settings.attribution_trailer == DEFAULT_ATTRIBUTION


def test_project_wins_and_rule_lists_concatenate(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    write_user(
        config,
        'model = "qwen3-4b"\nmax_tokens = 4096\nthinking = false\n'
        '[permissions]\ndefault = "deny"\n[permissions.tools]\nrun_command = "ask"\nedit_file = "allow"\n'
        '[permissions.rules]\ndeny = ["run_command(rm -rf*)"]\nallow = ["glob"]\n'
        '[mcp.servers.a]\ncommand = "a"\n',
    )
    write_project(
        project,
        'model = "qwen3-14b"\nn_ctx = 32768\n[permissions.tools]\nrun_command = "allow"\n'
        '[permissions.rules]\nallow = ["run_command(make test)"]\n[mcp.servers.b]\ncommand = "b"\n',
    )
    settings = load_settings(project / "sub", config, trusted=True)
    assert settings.model == "qwen3-14b"
    assert settings.n_ctx == 32768
    assert settings.max_tokens == 4096
    assert settings.thinking is False
    assert settings.permissions.default == "deny"
    assert settings.permissions.tools == {"run_command": "allow", "edit_file": "allow"}
    assert settings.permissions.allow == ["glob", "run_command(make test)"]
    assert settings.permissions.deny == ["run_command(rm -rf*)"]
    assert set(settings.mcp["servers"]) == {"a", "b"}
    assert len(settings.sources) == 2


def test_malformed_toml_names_file_and_line(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    write_project(project, 'model = "x"\n\nmax_tokens = = 3\n')
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    message = str(info.value)
    assert str(project / ".sigit" / "settings.toml") in message
    assert "line 3" in message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("max_tokens = -1", "`max_tokens` must be a positive integer"),
        ("thinking = 'yes'", "`thinking` must be true or false"),
        ('[permissions]\ndefault = "maybe"', "`permissions.default` must be one of"),
        ('[permissions]\nmode = "yolo"', "`permissions.mode` must be one of"),
        ('[permissions.rules]\nallow = ["run_command(git"]', "invalid permission rule"),
        ('[permissions.rules]\nallow = "glob"', "must be a list of rules"),
        ("compaction_threshold = 1.5", "`compaction_threshold` must be a number above 0"),
        ('attribution = "just text"', "`attribution` must be true, false or a one-line trailer"),
        ("permissions = 3", "`permissions` must be a table"),
    ],
)
def test_bad_values_get_specific_errors(dirs: tuple[Path, Path], text: str, fragment: str) -> None:
    config, project = dirs
    write_user(config, text)
    with pytest.raises(SettingsError, match=r"settings\.toml") as info:
        load_settings(project, config)
    assert fragment in str(info.value)


def test_attribution_can_be_off_or_custom(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    write_user(config, "attribution = false\n")
    assert load_settings(project, config).attribution_trailer is None
    write_project(project, 'attribution = "Co-Authored-By: Bot <bot@example.com>"\n')
    assert load_settings(project, config).attribution_trailer == "Co-Authored-By: Bot <bot@example.com>"


def test_claude_code_mode_names_are_accepted(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    write_user(config, '[permissions]\nmode = "acceptEdits"\n')
    assert load_settings(project, config).permissions.mode == "accept-edits"


def test_an_unknown_key_is_an_error_naming_the_nearest_known_one(dirs: tuple[Path, Path]) -> None:
    """Was a warning (issue 27: one settings model, unknown keys are errors): a typo must not be ignored."""
    config, project = dirs
    write_user(config, "modle = 'x'\n")
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    assert str(info.value) == f"{config / 'settings.toml'}: unknown setting `modle` (did you mean `model`?)"


def test_non_utf8_file_is_a_clear_error(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    (config / "settings.toml").write_bytes(b"model = '\xff'\n")
    with pytest.raises(SettingsError, match="not UTF-8"):
        load_settings(project, config)


def test_save_project_rule_keeps_comments_and_other_keys(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    write_project(
        project,
        '# my settings\nmodel = "qwen3-4b"  # small\n\n[permissions.rules]\n# reviewed\nallow = ["glob"]\n',
    )
    path = save_project_rule(project / "deep" / "dir", "run_command(git push*)")
    save_project_rule(project, "run_command(git push*)")  # not added twice
    save_project_rule(project, "edit_file(secrets/*)", kind="deny")
    text = path.read_text()
    assert path == project.resolve() / ".sigit" / "settings.toml"
    for kept in ("# my settings", "# small", "# reviewed"):
        assert kept in text
    data = tomllib.loads(text)
    assert data["model"] == "qwen3-4b"
    assert data["permissions"]["rules"]["allow"] == ["glob", "run_command(git push*)"]
    assert data["permissions"]["rules"]["deny"] == ["edit_file(secrets/*)"]
    assert load_settings(project, config, trusted=True).permissions.allow == ["glob", "run_command(git push*)"]


def test_save_project_rule_creates_the_file(tmp_path: Path) -> None:
    path = save_project_rule(tmp_path, "edit_file")
    assert tomllib.loads(path.read_text()) == {"permissions": {"rules": {"allow": ["edit_file"]}}}


def test_save_project_rule_into_inline_table(tmp_path: Path) -> None:
    (tmp_path / ".sigit").mkdir()
    (tmp_path / ".sigit" / "settings.toml").write_text('permissions = { default = "ask" }\n')
    path = save_project_rule(tmp_path, "glob")
    assert tomllib.loads(path.read_text())["permissions"] == {"default": "ask", "rules": {"allow": ["glob"]}}


def test_save_project_rule_rejects_bad_rule_and_bad_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid permission rule"):
        save_project_rule(tmp_path, "run_command(")
    (tmp_path / ".sigit").mkdir()
    (tmp_path / ".sigit" / "settings.toml").write_text("= broken\n")
    with pytest.raises(SettingsError, match="invalid TOML"):
        save_project_rule(tmp_path, "glob")


def test_user_and_project_hooks_both_run(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text('[[hooks.pre_tool_use]]\ncommand = "user-hook"\n')
    project = tmp_path / "project"
    (project / ".sigit").mkdir(parents=True)
    (project / ".sigit" / "settings.toml").write_text('[[hooks.pre_tool_use]]\ncommand = "project-hook"\n')
    settings = load_settings(project, config, trusted=True)
    assert [h["command"] for h in settings.hooks["pre_tool_use"]] == ["user-hook", "project-hook"]


def test_prompt_cache_settings_and_their_bad_values(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    assert load_settings(project, config).prompt_cache is True
    write_user(config, "prompt_cache = false\nprompt_cache_max_gb = 0.5\n")
    settings = load_settings(project, config)
    assert (settings.prompt_cache, settings.prompt_cache_max_gb) == (False, 0.5)
    for bad in ("prompt_cache_max_gb = 0", 'prompt_cache_max_gb = "4G"', 'prompt_cache = "yes"'):
        write_user(config, bad + "\n")
        with pytest.raises(SettingsError, match="prompt_cache"):
            load_settings(project, config)


def test_draft_setting_reads_and_defaults_to_prompt_lookup(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    assert load_settings(project, config).draft == "prompt-lookup"
    (config / "settings.toml").write_text('draft = "none"\n')
    assert load_settings(project, config).draft == "none"
    (config / "settings.toml").write_text("draft = 3\n")
    with pytest.raises(SettingsError, match="`draft` must be a draft source"):
        load_settings(project, config)


@pytest.mark.parametrize(
    ("text", "read"), [("ngram", "prompt-lookup"), ("MTP", "mtp"), ("off", "none"), ("prompt_lookup", "prompt-lookup")]
)
def test_the_draft_setting_takes_every_spelling_the_runtime_takes(
    dirs: tuple[Path, Path], text: str, read: str
) -> None:
    """One parser (the runtime's): what `qwen-runtime --draft` and onde accept, the setting accepts, even
    from an untrusted project (a named source loads nothing)."""
    config, project = dirs
    write_user(config, f'draft = "{text}"\n')
    assert load_settings(project, config).draft == read
    write_user(config, "")
    write_project(project, f'draft = "{text}"\n')
    assert load_settings(project, config).draft == read


def test_a_misspelt_draft_setting_says_what_is_accepted(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    write_user(config, 'draft = "lookahead"\n')
    with pytest.raises(SettingsError, match=r"`draft`: draft 'lookahead' is not a draft source; use prompt-lookup"):
        load_settings(project, config)


def test_reasoning_settings_for_the_2026_templates(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    from onde import REASONING_EFFORTS
    from sigit.config.schema import REASONING_EFFORTS as SETTINGS_EFFORTS

    assert SETTINGS_EFFORTS == REASONING_EFFORTS  # the efforts settings accept are the ones onde takes
    write_user(config, 'reasoning_effort = "low"\npreserve_thinking = true\n')
    settings = load_settings(project, config)
    assert (settings.reasoning_effort, settings.preserve_thinking) == ("low", True)
    write_user(config, 'reasoning_effort = "high"\n')
    with pytest.raises(SettingsError, match=r'`reasoning_effort` must be one of "low", "medium", "xhigh"'):
        load_settings(project, config)
    write_user(config, 'preserve_thinking = "yes"\n')
    with pytest.raises(SettingsError, match="preserve_thinking"):
        load_settings(project, config)
