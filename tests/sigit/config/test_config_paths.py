from pathlib import Path

import platformdirs
from sigit.config.paths import config_dir, find_repo_root, project_root, project_settings_path


def test_env_var_overrides_config_dir(tmp_path: Path) -> None:
    assert config_dir({"SIGIT_CONFIG_DIR": str(tmp_path)}) == tmp_path


def test_default_config_dir_is_platform_user_config_dir() -> None:
    assert config_dir({}) == Path(platformdirs.user_config_dir("sigit", appauthor=False))


def test_project_settings_live_at_repo_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert find_repo_root(sub) == tmp_path.resolve()
    assert project_settings_path(sub) == tmp_path.resolve() / ".sigit" / "settings.toml"


def test_without_repo_project_is_cwd(tmp_path: Path) -> None:
    assert project_root(tmp_path) == tmp_path.resolve()


def test_git_file_marks_a_worktree_root(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere\n")
    assert find_repo_root(tmp_path / "x") == tmp_path.resolve()
