"""The fifth audit (issue 49, family 9) in the app's other surfaces: Textual writes a `Text`'s characters
to the terminal as they are, ESC included, so every place that shows repository or model text must escape
it. A cloned repository's commit subject (the Repo tab), a model's command line in the "Always (project)"
answer of a permission question, and an untrusted project's deny rule (the Status tab) reach the screen
with their escapes shown as text, never as an OSC 52 clipboard write or a title change."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sigit.frontends.tui.screens import PermissionScreen

from .conftest import MakeApp
from .helpers import SIZE, idle, ready, send, wait_screen
from .test_repo_tab import repo_body
from .test_untrusted_text import DANGEROUS, screen_output

CLIP = "\x1b]52;c;ZWNobyBwd25lZA==\x1b\\"
TITLE = "\x1b]0;owned\x07"


async def test_the_repo_tab_shows_a_planted_commit_subject_without_its_escapes(
    make_app: MakeApp, workdir: Path
) -> None:
    git = "git -c user.name=t -c user.email=t@example.com -c commit.gpgSign=false -c core.hooksPath=/dev/null"
    (workdir / "msg").write_text(f"fix {CLIP} clip {TITLE} title\n")
    subprocess.run(f"git init -q -b trunk && {git} commit -q --allow-empty -F msg && rm msg", shell=True,
                   cwd=workdir, check=True)
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.show_tab("repo")
        await repo_body(app, pilot)
        await pilot.pause()
        written = screen_output(app)
    assert "clip" in written and "\\x1b]52;c;" in written
    for sequence in DANGEROUS:
        assert sequence not in written, repr(sequence)


async def test_a_permission_question_shows_a_commands_escapes_as_text(make_app: MakeApp) -> None:
    command = f"{CLIP}{TITLE} --now"
    app, _ = make_app([{"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}, "Stopped."])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "run it")
        await wait_screen(app, pilot, PermissionScreen)
        await pilot.pause()
        written = screen_output(app)
        await pilot.press("n")
        await idle(app, pilot)
    assert "Always (project)" in written and "\\x1b]52;c;" in written
    for sequence in DANGEROUS:
        assert sequence not in written, repr(sequence)


async def test_the_status_tab_shows_an_untrusted_projects_rule_without_its_escapes(
    make_app: MakeApp, workdir: Path
) -> None:
    (workdir / ".sigit").mkdir()
    rule = f"run_command(rm {CLIP}{TITLE})"
    escaped = rule.replace("\\", "\\\\").replace("\x1b", "\\u001b").replace("\x07", "\\u0007")  # TOML's escapes
    (workdir / ".sigit" / "settings.toml").write_text(f'[permissions.rules]\ndeny = ["{escaped}"]\n')
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.show_tab("status")
        for _ in range(200):
            await pilot.pause(0.01)
            written = screen_output(app)
            if "Deny rules" in written:
                break
    assert "Deny rules" in written and "\\x1b]52;c;" in written, written[-2000:]
    for sequence in DANGEROUS:
        assert sequence not in written, repr(sequence)
