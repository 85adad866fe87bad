"""Issue 35 item 1 over ACP (a real client, the server in this process, a scripted model): a command that plants
`core.fsmonitor` in a new nested repository leaves nothing that the user's own `git status` runs, and the
editor's tool call shows what was removed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from acp import text_block

from .conftest import RecordingClient, running_agent, write_scenario


async def test_a_planted_fsmonitor_is_gone_before_the_users_git_status(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    marker = tmp_path / "RAN"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    command = f"git init -q sub && git -C sub config core.fsmonitor 'touch {marker}; true'"
    scenario = write_scenario(
        tmp_path / "s.json",
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]},
            {"text": "Done."},
        ],
    )
    client = RecordingClient("allow_once")
    async with running_agent(client, scenario, config_dir) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("make a repo")])
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for place in (project, project / "sub"):
        subprocess.run(["git", "status"], cwd=place, env=env, capture_output=True, check=False, timeout=30)
    assert not marker.exists()
    final = client.of("tool_call_update")[-1]
    shown = " ".join(getattr(getattr(c, "content", None), "text", "") for c in final.content)
    assert "siGit removed core.fsmonitor from sub/.git/config" in shown, final
