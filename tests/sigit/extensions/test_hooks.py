"""Hooks run as real shell processes: blocking, matching, payload, timeouts, bad config."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from sigit.config.settings import PermissionSettings, Settings
from sigit.extensions.hooks import HookRunner, parse_hooks
from sigit.permissions.policy import PermissionPolicy
from sigit.tools import ToolContext, default_registry
from sigit.tools.subjects import PreparedCall

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
    started = time.monotonic()
    outcome = await hook.session_start()
    assert time.monotonic() - started < 5
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


async def test_bad_config_is_warned_not_fatal(tmp_path: Path) -> None:
    raw = {
        "pre_tool_use": "echo hi",
        "post_tool_use": [{"matcher": "edit_file"}, {"command": "true", "timeout_secs": -1}, 3],
        "stop": [{"command": "true", "matcher": "edit_file"}],
        "on_lunch": [{"command": "true"}],
        "session_start": [{"command": "true", "extra": 1}, {"command": "exit 0"}],
    }
    hook = runner(tmp_path, raw)
    text = "\n".join(hook.config_warnings)
    assert "hooks.pre_tool_use must be a list of tables" in text
    assert "hooks.post_tool_use[0] needs `command`" in text
    assert "hooks.post_tool_use[1].timeout_secs" in text
    assert "hooks.post_tool_use[2] must be a table" in text
    assert "matcher only applies" in text
    assert "unknown event `on_lunch`" in text
    assert "unknown keys extra" in text
    assert [h.command for h in hook.hooks["session_start"]] == ["exit 0"]
    assert not (await hook.session_start()).warnings


async def test_no_hooks_means_nothing_runs(tmp_path: Path) -> None:
    outcome = await runner(tmp_path, {}).run("pre_tool_use", call=prepared(tmp_path, "read_file", {"path": "x"}))
    assert outcome.outputs == [] and not outcome.blocked


@given(st.text(max_size=40))
def test_matcher_parsing_never_crashes(matcher: str) -> None:
    hooks, warnings = parse_hooks({"pre_tool_use": [{"command": "true", "matcher": matcher}]})
    assert len(hooks["pre_tool_use"]) + len(warnings) == 1


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
