"""Where sigit keeps its configuration, and the settings read from it."""

from sigit.config.paths import (
    config_dir,
    find_repo_root,
    project_root,
    project_settings_path,
    resolves_inside,
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
from sigit.config.trust import (
    ProjectRequests,
    TrustStoreError,
    is_trusted,
    project_requests,
    record_trust,
    revoke_trust,
    trusted_folders,
)

__all__ = [
    "DEFAULT_ATTRIBUTION",
    "PermissionSettings",
    "ProjectRequests",
    "Settings",
    "SettingsError",
    "TrustStoreError",
    "config_dir",
    "find_repo_root",
    "is_trusted",
    "load_settings",
    "project_requests",
    "project_root",
    "project_settings_path",
    "record_trust",
    "resolves_inside",
    "revoke_trust",
    "save_project_rule",
    "trusted_folders",
    "user_settings_path",
]
