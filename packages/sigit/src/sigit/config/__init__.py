"""Where sigit keeps its configuration, and the settings read from it."""

from sigit.config.paths import (
    config_dir,
    find_repo_root,
    project_root,
    project_settings_path,
    user_settings_path,
)
from sigit.config.settings import (
    DEFAULT_ATTRIBUTION,
    PermissionSettings,
    Settings,
    SettingsError,
    load_settings,
    save_project_rule,
)

__all__ = [
    "DEFAULT_ATTRIBUTION",
    "PermissionSettings",
    "Settings",
    "SettingsError",
    "config_dir",
    "find_repo_root",
    "load_settings",
    "project_root",
    "project_settings_path",
    "save_project_rule",
    "user_settings_path",
]
