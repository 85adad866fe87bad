"""The Repo tab shows the branch, status and commits, running git in the session's sandbox."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sigit.frontends.tui.app import SigitApp
from textual.pilot import Pilot
from textual.widgets import Static

from .conftest import MakeApp
from .helpers import SIZE, ready


async def repo_body(app: SigitApp, pilot: Pilot[int]) -> str:
    for _ in range(500):
        await pilot.pause(0.01)
        body = app.query("#repo-body")
        text = str(body.first(Static).render()) if body else ""
        if "Recent commits" in text:
            return text
    raise AssertionError("the Repo tab never showed the repository")


async def test_the_repo_tab_shows_the_repository_without_running_its_filters_outside_the_sandbox(
    make_app: MakeApp, workdir: Path, tmp_path: Path
) -> None:
    # a repository a command configured: git status runs its clean filter on a file whose time changed
    marker = tmp_path / "filter-ran"
    git = "git -c user.name=t -c user.email=t@example.com -c commit.gpgSign=false"
    subprocess.run(
        f"git init -q -b trunk && git config filter.x.clean 'touch {marker}; cat' && echo '* filter=x' > .gitattributes"
        f" && echo x > f && git add -A && {git} commit -q -m 'first commit' && touch -d 2000-01-01 f",
        shell=True, cwd=workdir, check=True)
    marker.unlink(missing_ok=True)  # the commit above ran it, unconfined: the setup, not siGit
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        app.show_tab("repo")
        text = await repo_body(app, pilot)
    assert "Branch: trunk" in text and "first commit" in text and "clean" in text
    assert not marker.exists()
