"""Hooks run as real shell processes: blocking, matching, payload, timeouts, bad config."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sigit.config.schema import SettingsFileError, parse_settings_file
from sigit.config.settings import PermissionSettings, Settings, SettingsError, load_settings
from sigit.extensions.hooks import HookRunner, hook_configs
from sigit.permissions.policy import PermissionPolicy
from sigit.tools import ToolContext, default_registry
from sigit.tools.base import PreparedCall

REGISTRY = default_registry()
FILLER = {"old_text": "a", "new_text": "b", "content": ""}  # what the file tools need besides `path`


def prepared(cwd: Path, name: str, args: dict[str, Any]) -> PreparedCall:
    """The call as the agent loop hands it to hooks."""
    tool = REGISTRY.get(name)
    assert tool is not None
    call = tool.prepare({**{k: v for k, v in FILLER.items() if k in tool.params.model_fields}, **args},
                        ToolContext(cwd=cwd))
    assert isinstance(call, PreparedCall), call
    return call


def runner(tmp_path: Path, hooks: dict[str, Any], warnings: list[str] | None = None) -> HookRunner:
    return HookRunner(
        hooks, cwd=tmp_path, session_id="s-123", on_warning=None if warnings is None else warnings.append
    )


async def test_exit_2_blocks_the_tool_call_with_stderr_as_reason(tmp_path: Path) -> None:
    hooks = {"pre_tool_use": [{"command": "echo 'pushing is not allowed here' >&2; exit 2"}]}
    reason = await runner(tmp_path, hooks).pre_tool_use(prepared(tmp_path, "run_command", {"command": "git push"}))
    assert reason == "pushing is not allowed here"


async def test_exit_0_allows_the_call(tmp_path: Path) -> None:
    hooks = {"pre_tool_use": [{"command": "echo fine; exit 0"}]}
    assert await runner(tmp_path, hooks).pre_tool_use(prepared(tmp_path, "run_command", {"command": "ls"})) is None


async def test_other_failure_warns_but_does_not_block(tmp_path: Path) -> None:
    warnings: list[str] = []
    hooks = {"pre_tool_use": [{"command": "echo oops >&2; exit 1"}]}
    assert await runner(tmp_path, hooks, warnings).pre_tool_use(prepared(tmp_path, "read_file", {"path": "a"})) is None
    assert len(warnings) == 1 and "status 1" in warnings[0] and "oops" in warnings[0]


async def test_matcher_limits_hooks_to_matching_calls(tmp_path: Path) -> None:
    hooks = {"pre_tool_use": [{"command": "echo no >&2; exit 2", "matcher": "run_command(git push*)"}]}
    hook = runner(tmp_path, hooks)
    assert await hook.pre_tool_use(prepared(tmp_path, "run_command", {"command": "git status"})) is None
    assert await hook.pre_tool_use(prepared(tmp_path, "edit_file", {"path": "git push"})) is None
    assert await hook.pre_tool_use(prepared(tmp_path, "run_command", {"command": "git  push origin"})) == "no"
    assert await hook.pre_tool_use(prepared(tmp_path, "run_command", {"command": "cd x && git push"})) == "no"


async def test_matcher_by_tool_name_alternatives_and_aliases(tmp_path: Path) -> None:
    hooks = {"pre_tool_use": [{"command": "exit 2", "matcher": "edit_file|Write"}]}
    hook = runner(tmp_path, hooks)
    assert await hook.pre_tool_use(prepared(tmp_path, "edit_file", {"path": "a"})) is not None
    assert await hook.pre_tool_use(prepared(tmp_path, "create_file", {"path": "a"})) is not None
    assert await hook.pre_tool_use(prepared(tmp_path, "read_file", {"path": "a"})) is None


async def test_hook_sees_payload_on_stdin_and_env_vars(tmp_path: Path) -> None:
    out = tmp_path / "seen"
    command = (
        f'cat > {out}.json; printf "%s\\n%s\\n%s\\n%s\\n%s" "$SIGIT_HOOK_EVENT" "$SIGIT_HOOK_TOOL" '
        f'"$SIGIT_HOOK_SESSION_ID" "$SIGIT_HOOK_CWD" "$SIGIT_HOOK_INPUT" > {out}.env; pwd > {out}.pwd'
    )
    hook = runner(tmp_path, {"post_tool_use": [{"command": command}]})
    outcome = await hook.post_tool_use(prepared(tmp_path, "run_command", {"command": "ls -l"}), "a\nb")
    assert not outcome.blocked and outcome.outputs[0].exit_code == 0
    payload = json.loads(Path(f"{out}.json").read_text())
    assert payload["event"] == "post_tool_use"
    assert payload["session_id"] == "s-123"
    assert payload["cwd"] == str(tmp_path)
    assert payload["tool_name"] == "run_command"
    assert payload["tool_input"] == {"command": "ls -l"}
    assert payload["tool_output"] == "a\nb"
    env = Path(f"{out}.env").read_text().split("\n")
    assert env == ["post_tool_use", "run_command", "s-123", str(tmp_path), '{"command": "ls -l"}']
    assert Path(f"{out}.pwd").read_text().strip() == str(tmp_path.resolve())


async def test_user_prompt_submit_can_refuse_a_prompt(tmp_path: Path) -> None:
    command = 'grep -q secret && { echo "prompt mentions a secret" >&2; exit 2; }; exit 0'
    hook = runner(tmp_path, {"user_prompt_submit": [{"command": command}]})
    assert await hook.user_prompt_submit("show me the secret") == "prompt mentions a secret"
    assert await hook.user_prompt_submit("hello") is None


async def test_exit_2_on_a_non_blocking_event_only_warns(tmp_path: Path) -> None:
    warnings: list[str] = []
    outcome = await runner(tmp_path, {"stop": [{"command": "exit 2"}]}, warnings).stop()
    assert not outcome.blocked and warnings


async def test_timeout_kills_the_hook_and_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    command = f"sleep 30 & echo $! > {pid_file}; wait"
    warnings: list[str] = []
    hook = runner(tmp_path, {"session_start": [{"command": command, "timeout_secs": 0.5}]}, warnings)
    outcome = await hook.session_start()
    assert outcome.outputs[0].timed_out
    assert warnings and "timed out after 0.5 s" in warnings[0]
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but unreaped (its parent was killed); check its state.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_bad_entries_are_settings_errors_naming_each_key(tmp_path: Path) -> None:
    """A bad `[hooks]` entry is caught with the other settings, before anything runs, every problem at once."""
    config, project = tmp_path / "config", tmp_path / "project"
    config.mkdir()
    project.mkdir()
    path = config / "settings.toml"
    path.write_text(
        'max_tokens = 0\n[hooks]\npre_tool_use = "echo hi"\n'
        '[[hooks.post_tool_use]]\nmatcher = "edit_file"\n'
        '[[hooks.post_tool_use]]\ncommand = "true"\ntimeout_secs = -1\n'
        '[[hooks.post_tool_use]]\ncommand = "true"\nmatcher = "run_command(("\n'
        '[[hooks.stop]]\ncommand = "true"\nmatcher = "edit_file"\n'
        '[[hooks.on_lunch]]\ncommand = "true"\n'
        '[[hooks.session_start]]\ncomand = "true"\n'
    )
    with pytest.raises(SettingsError) as info:
        load_settings(project, config)
    assert str(info.value).splitlines() == [
        f"{path}: 8 problems:",
        "  - `max_tokens` must be a positive integer, got 0",
        "  - unknown setting `hooks.session_start[0].comand` (did you mean `hooks.session_start[0].command`?)",
        "  - `hooks.pre_tool_use` must be a list of tables, each with a `command` (`[[hooks.EVENT]]`), got 'echo hi'",
        "  - `hooks.post_tool_use[0].command` is missing: it must be a non-empty shell command",
        "  - `hooks.post_tool_use[1].timeout_secs` must be seconds above 0 and at most 3600, got -1",
        "  - `hooks.post_tool_use[2].matcher`: invalid permission rule 'run_command((': expected `tool` or "
        "`tool(pattern)`, for example `run_command(git status*)` or `edit_file(src/*)`",
        "  - unknown setting `hooks.stop[0].matcher` (a matcher only applies to pre_tool_use and post_tool_use)",
        "  - unknown setting `hooks.on_lunch` (known: session_start, user_prompt_submit, pre_tool_use, "
        "post_tool_use, stop)",
    ]


async def test_one_table_is_a_list_of_one_and_the_timeout_defaults(tmp_path: Path) -> None:
    (tmp_path / "settings.toml").write_text('[hooks.session_start]\ncommand = "echo started"\n')
    hook = runner(tmp_path, load_settings(tmp_path, tmp_path).hooks)
    [started] = hook.hooks["session_start"]
    assert started.timeout_secs == 30
    assert [o.stdout for o in (await hook.session_start()).outputs] == ["started\n"]


async def test_no_hooks_means_nothing_runs(tmp_path: Path) -> None:
    outcome = await runner(tmp_path, {}).run("pre_tool_use", call=prepared(tmp_path, "read_file", {"path": "x"}))
    assert outcome.outputs == [] and not outcome.blocked


@given(st.text(max_size=40))
def test_a_matcher_is_a_hook_or_a_settings_error_naming_it(matcher: str) -> None:
    try:
        settings = parse_settings_file({"hooks": {"pre_tool_use": [{"command": "true", "matcher": matcher}]}},
                                       Path("settings.toml"))
    except SettingsFileError as exc:
        assert all("hooks.pre_tool_use[0].matcher" in problem for problem in exc.problems), exc.problems
    else:
        assert len(hook_configs(settings.hooks)["pre_tool_use"]) == 1


async def test_matcher_and_policy_agree_on_dotted_and_absolute_paths(tmp_path: Path) -> None:
    """A guard hook sees the same normalised path as the permission policy, however it is spelled."""
    hooks = {"pre_tool_use": [{"command": "echo guarded >&2; exit 2", "matcher": "Edit(secret.txt)"}]}
    hook = runner(tmp_path, hooks)
    settings = Settings(permissions=PermissionSettings(default="allow", deny=["Edit(secret.txt)"]))
    policy = PermissionPolicy(settings, tmp_path)
    for spelling in ("secret.txt", "./src/../secret.txt", str(tmp_path / "secret.txt")):
        call = prepared(tmp_path, "edit_file", {"path": spelling})
        assert await hook.pre_tool_use(call) == "guarded", spelling
        assert policy.decide(call).kind == "deny", spelling
    other = prepared(tmp_path, "edit_file", {"path": "src/secret.txt"})
    assert await hook.pre_tool_use(other) is None
    assert policy.decide(other).kind == "allow"
