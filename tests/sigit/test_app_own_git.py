"""The git summary in the system prompt, built on every session open and model switch, runs nothing
that a command planted in the repository outside the session's sandbox.

The path a user takes: a session's command (scripted model, default sandbox) configures a new
repository; the next session opened there builds its system prompt, which runs `git status`.
"""

from __future__ import annotations

from pathlib import Path

from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.app import SessionHost
from sigit.options import HostOptions


async def plant_and_reopen(workdir: Path, tmp_path: Path, command: str) -> str:
    """Run `command` in a session, then open a new one in `workdir`: its system prompt."""
    runtime = ScriptedRuntime([{"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}, "done"])
    host = SessionHost(HostOptions(config_dir=tmp_path / "config", permission_mode="bypass"), runtime=runtime)
    first = await host.open(workdir)
    assert first.sandbox is not None and first.sandbox.active  # the default a user gets
    _ = [event async for event in first.prompt("set it up")]
    await first.close()
    second = await host.open(workdir)
    prompt = second.system_prompt
    await second.close()
    return prompt


async def test_an_fsmonitor_a_command_configured_does_not_run_when_the_prompt_is_built(
    workdir: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "fsmonitor-ran"
    prompt = await plant_and_reopen(
        workdir, tmp_path, f"git init -q && git config core.fsmonitor 'touch {marker}; false' && echo x > f")
    assert not marker.exists()
    assert "Git: repository" in prompt and "?? f" in prompt


async def test_a_clean_filter_a_command_configured_runs_only_in_the_sandbox_when_the_prompt_is_built(
    workdir: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "filter-ran"
    git = "git -c user.name=t -c user.email=t@example.com -c commit.gpgSign=false"
    prompt = await plant_and_reopen(workdir, tmp_path, (
        f"git init -q && git config filter.x.clean 'touch {marker}; cat' && echo '* filter=x' > .gitattributes "
        f"&& echo x > f && git add -A && {git} commit -q -m first && touch -d 2000-01-01 f"))
    assert not marker.exists()  # `git status` ran the filter, in the sandbox, which refused the write
    assert "Git: repository" in prompt and "no uncommitted changes" in prompt
