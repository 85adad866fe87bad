"""The settings model (issue 27): one description of every key, read by the loader and folder trust.

A bad file is reported whole: every unknown key (with the nearest known one) and every bad value,
each with its file and dotted key, in one error; sigit stops before anything runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sigit.config.schema import UNTRUSTED_MAY_SET, Settings, setting_keys
from sigit.config.settings import SettingsError, load_settings
from sigit.config.trust import project_requests, split_project_settings

from ..in_process import run_sigit_main


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """(config dir, project dir with `.sigit/`)."""
    config, project = tmp_path / "config", tmp_path / "project"
    config.mkdir()
    (project / ".sigit").mkdir(parents=True)
    return config, project


def test_every_problem_of_a_file_is_reported_at_once(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    user = config / "settings.toml"
    user.write_text(
        'max_tokens = 0\nthinking = "yes"\n[permissions]\ndefualt = "ask"\n'
        "[mcp]\ncall_timeout_secs = -1\n[sandbox]\nnetwrok = false\n"
    )
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    assert str(info.value).splitlines() == [
        f"{user}: 5 problems:",
        "  - `max_tokens` must be a positive integer, got 0",
        "  - `thinking` must be true or false, got 'yes'",
        "  - unknown setting `permissions.defualt` (did you mean `permissions.default`?)",
        "  - `mcp.call_timeout_secs` must be seconds above 0, got -1",
        "  - unknown setting `sandbox.netwrok` (did you mean `sandbox.network`?)",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("modle = 'x'", "unknown setting `modle` (did you mean `model`?)"),
        (
            "[permissions.rules]\nalow = ['glob']",
            "unknown setting `permissions.rules.alow` (did you mean `permissions.rules.allow`?)",
        ),
        ("[mcp.server.docs]\ncommand = 'x'", "unknown setting `mcp.server` (did you mean `mcp.servers`?)"),
        (
            "[permissions]\nallow = ['glob']",
            "unknown setting `permissions.allow` (did you mean `permissions.rules.allow`?)",
        ),
        (
            "[sandbox]\nwritable_dir = ['/tmp']",
            "unknown setting `sandbox.writable_dir` (did you mean `sandbox.writable_dirs`?)",
        ),
        (
            "zzz = 1",
            "unknown setting `zzz` (known: model, n_ctx, max_tokens, thinking_budget, thinking, "
            "preserve_thinking, reasoning_effort, prompt_cache, prompt_cache_max_gb, keep_alive, gpu_layers, "
            "download, offline, draft, mmproj, chat_template, permissions, attribution, "
            "compaction_threshold, hooks, mcp, sandbox)",
        ),
    ],
)
def test_an_unknown_key_names_the_file_and_the_nearest_known_key(
    dirs: tuple[Path, Path], text: str, problem: str
) -> None:
    config, project = dirs
    (config / "settings.toml").write_text(text + "\n")
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    assert str(info.value) == f"{config / 'settings.toml'}: {problem}"


def test_an_untrusted_project_file_is_checked_whole(dirs: tuple[Path, Path]) -> None:
    """Keys that would apply only once trusted are still checked: a typo is never silently dropped."""
    config, project = dirs
    path = project / ".sigit" / "settings.toml"
    path.write_text("hooks = 3\nthinkng = false\n")
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    assert str(info.value).splitlines() == [
        f"{path}: 2 problems:",
        "  - `hooks` must be a table of events, got 3",
        "  - unknown setting `thinkng` (did you mean `thinking`?)",
    ]


def _nested(dotted: str, value: object) -> dict[str, object]:
    """`{"a": {"b": value}}` for `a.b`: the key as a project file would set it."""
    *tables, leaf = dotted.split(".")
    out: dict[str, object] = {leaf: value}
    for table in reversed(tables):
        out = {table: out}
    return out


def test_every_key_is_either_let_through_untrusted_or_waits_for_trust(tmp_path: Path) -> None:
    """Walks the whole settings model: a key the one table (`UNTRUSTED_MAY_SET`) does not name, a key
    added tomorrow included, is held back in an untrusted folder and makes the folder ask for trust,
    whatever its value; the table names only keys the model has."""
    keys = dict(setting_keys())
    assert set(UNTRUSTED_MAY_SET) <= set(keys), set(UNTRUSTED_MAY_SET) - set(keys)
    held = {name for name in keys if name not in UNTRUSTED_MAY_SET}
    assert held >= {
        "model",
        "hooks",
        "mcp.servers",
        "permissions.rules.allow",
        "permissions.additional_directories",
        "sandbox.writable_dirs",
        "sandbox.cache_dirs",
    }
    (tmp_path / ".git").mkdir()
    for name in held:
        for value in ("x", 1, True, False, [], ["x"], {"x": "y"}):
            always, gated = split_project_settings(_nested(name, value))
            assert always == {} and gated == _nested(name, value), name
            assert project_requests(tmp_path, _nested(name, value)), (name, value)
    # a key with a test: the value that loosens is held back and asked about too
    for name, loosening in (("offline", False), ("mmproj", "vision.gguf"), ("download", "auto"),
                            ("permissions.mode", "accept-edits"), ("sandbox.network", True)):
        assert name in UNTRUSTED_MAY_SET
        assert split_project_settings(_nested(name, loosening))[1] == _nested(name, loosening)
        assert project_requests(tmp_path, _nested(name, loosening))


@pytest.mark.parametrize(
    ("text", "always", "gated"),
    [
        ('download = "ask"\ndraft = "none"', {"download": "ask", "draft": "none"}, {}),
        ('download = "auto"\ndraft = "d.gguf"', {}, {"download": "auto", "draft": "d.gguf"}),
        ('mmproj = "none"', {"mmproj": "none"}, {}),
        ('mmproj = "vision.gguf"', {}, {"mmproj": "vision.gguf"}),  # a project loads no binary unless trusted
        ('[permissions]\nmode = "plan"\ndefault = "deny"', {"permissions": {"mode": "plan", "default": "deny"}}, {}),
        (
            '[permissions]\nmode = "acceptEdits"\ndefault = "ask"',
            {},
            {"permissions": {"mode": "acceptEdits", "default": "ask"}},
        ),
        (
            '[permissions.tools]\na = "deny"\nb = "ask"',
            {"permissions": {"tools": {"a": "deny"}}},
            {"permissions": {"tools": {"b": "ask"}}},
        ),
        (
            '[sandbox]\nmode = "read-only"\nnetwork = false\nloopback = true',
            {"sandbox": {"mode": "read-only", "network": False}},
            {"sandbox": {"loopback": True}},
        ),
    ],
)
def test_trust_splits_a_project_file_by_what_each_key_says(
    text: str, always: dict[str, object], gated: dict[str, object]
) -> None:
    import tomllib

    assert split_project_settings(tomllib.loads(text)) == (always, gated)


def test_tables_are_typed_and_merge_by_key(dirs: tuple[Path, Path]) -> None:
    config, project = dirs
    (config / "settings.toml").write_text("[mcp]\ncall_timeout_secs = 5\n[sandbox]\nnetwork = true\n")
    project_file = project / ".sigit" / "settings.toml"
    project_file.write_text("[mcp]\nhandshake_timeout_secs = 2.5\n[sandbox]\nloopback = false\n")
    settings = load_settings(project, config)
    assert settings.mcp == {"call_timeout_secs": 5.0, "handshake_timeout_secs": 2.5}
    assert isinstance(settings.mcp["call_timeout_secs"], float)
    assert settings.sandbox == {"network": True, "loopback": False}
    assert settings.sources == [config / "settings.toml", project / ".sigit" / "settings.toml"]
    assert Settings() == Settings() and settings != Settings()


def test_a_bad_settings_file_stops_sigit_before_anything_runs(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    config, project = dirs
    text = 'max_tokens = "many"\n[permissions]\nmdoe = "plan"\n'
    settings_file = project / ".sigit" / "settings.toml"
    settings_file.write_text(text)
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps(
            {
                "turns": [
                    {"tool_calls": [{"name": "create_file", "arguments": {"path": "x.txt", "content": "x"}}]},
                    {"text": "done"},
                ]
            }
        )
    )
    env = {"SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1"}
    proc = run_sigit_main(
        ["-p", "write x.txt", "--model", f"scripted:{scenario}", "--permission-mode", "accept-edits"],
        cwd=project,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"{settings_file}: 2 problems:" in proc.stderr
    assert "`max_tokens` must be a positive integer, got 'many'" in proc.stderr
    assert "unknown setting `permissions.mdoe` (did you mean `permissions.mode`?)" in proc.stderr
    assert not (project / "x.txt").exists() and settings_file.read_text() == text


def test_mcp_server_entries_are_checked_key_by_key(dirs: tuple[Path, Path]) -> None:
    """`[mcp.servers.NAME]` entries get the same errors as every other key, all at once."""
    config, project = dirs
    user = config / "settings.toml"
    user.write_text(
        '[mcp.servers.docs]\ncommand = "docs-mcp"\nargz = ["--stdio"]\n'
        '[mcp.servers.web]\ntype = "http"\n'
        '[mcp.servers.api]\ntype = "websocket"\nurl = "http://h"\n'
        '[mcp.servers.env]\ncommand = "x"\nenv = { K = 1 }\n'
    )
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    assert str(info.value).splitlines() == [
        f"{user}: 4 problems:",
        "  - unknown setting `mcp.servers.docs.argz` (did you mean `mcp.servers.docs.args`?)",
        "  - `mcp.servers.web`: a server of type http needs `url`, an http:// or https:// address",
        '  - `mcp.servers.api.type` must be one of "stdio", "http", "sse", "streamable-http", got \'websocket\'',
        "  - `mcp.servers.env.env.K` must be a table of strings, got 1",
    ]
    user.write_text('[mcp.servers.docs]\ncommand = "docs-mcp"\nargs = ["--stdio"]\n'
                    '[mcp.servers.api]\nurl = "${API_BASE:-https://h}/mcp"\n')
    assert load_settings(project, config).mcp["servers"] == {
        "docs": {"command": "docs-mcp", "args": ["--stdio"]}, "api": {"url": "${API_BASE:-https://h}/mcp"}}
