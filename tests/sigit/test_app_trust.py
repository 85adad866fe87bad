"""SessionHost.open decides folder trust through one seam (`ask_trust`) that every frontend provides."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.app import SessionHost
from sigit.config.settings import SettingsError
from sigit.config.trust import ProjectRequests
from sigit.options import HostOptions


@pytest.fixture
def workdir(workdir: Path) -> Path:
    (workdir / ".sigit").mkdir()
    return workdir


class Asker:
    def __init__(self, answer: bool, marker: Path) -> None:
        self.answer = answer
        self.marker = marker
        self.asked: list[tuple[Path, tuple[str, ...], bool]] = []

    async def __call__(self, root: Path, requests: ProjectRequests) -> bool:
        self.asked.append((root, requests.lines, self.marker.exists()))
        return self.answer


def host(tmp_path: Path) -> SessionHost:
    return SessionHost(HostOptions(config_dir=tmp_path / "config"), runtime=ScriptedRuntime([]))


def hooked(workdir: Path, marker: Path) -> None:
    (workdir / ".sigit" / "settings.toml").write_text(f'[[hooks.session_start]]\ncommand = "touch {marker}"\n')


async def test_asked_once_before_anything_runs_and_the_yes_is_kept(workdir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hooked(workdir, marker)
    ask = Asker(True, marker)
    sessions = host(tmp_path)
    first = await sessions.open(workdir, ask_trust=ask)
    assert first.trusted and marker.exists()
    assert ask.asked == [(workdir.resolve(), (f"runs `touch {marker}` at session_start",), False)]
    switched = await sessions.switch_model(first, "scripted-b")  # the decision travels, no new question
    again = await sessions.open(workdir, ask_trust=ask)
    assert switched.trusted and again.trusted and len(ask.asked) == 1
    for session in (switched, again):
        await session.close()


async def test_a_no_opens_without_the_folder_parts_and_asks_next_time(workdir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hooked(workdir, marker)
    ask = Asker(False, marker)
    sessions = host(tmp_path)
    opened = await sessions.open(workdir, ask_trust=ask)
    assert not opened.trusted and not marker.exists() and opened.settings.hooks == {}
    switched = await sessions.switch_model(opened, "scripted-b")
    assert not switched.trusted and not marker.exists() and len(ask.asked) == 1
    await sessions.open(workdir, ask_trust=ask)
    assert len(ask.asked) == 2 and not marker.exists()


async def test_nobody_to_ask_means_untrusted(workdir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hooked(workdir, marker)
    opened = await host(tmp_path).open(workdir)
    assert not opened.trusted and not marker.exists()


async def test_a_bad_project_file_is_an_error_before_any_question(workdir: Path, tmp_path: Path) -> None:
    (workdir / ".sigit" / "settings.toml").write_text("model = 3\n")
    ask = Asker(True, tmp_path / "ran")
    with pytest.raises(SettingsError, match="`model` must be a non-empty string"):
        await host(tmp_path).open(workdir, ask_trust=ask)
    assert ask.asked == []


async def test_what_applies_is_what_the_user_was_shown(workdir: Path, tmp_path: Path) -> None:
    # the file changes while the question is open: the user said yes to `echo hello`, not to this
    shown, swapped = tmp_path / "shown", tmp_path / "swapped"
    hooked(workdir, shown)

    async def swap_then_yes(root: Path, requests: ProjectRequests) -> bool:
        hooked(workdir, swapped)
        return True

    session = await host(tmp_path).open(workdir, ask_trust=swap_then_yes)
    assert not session.trusted and not swapped.exists() and not shown.exists()
    assert any("changed after they were trusted" in n for n in session._pending_notices)
    await session.close()


async def test_a_model_switch_does_not_apply_project_files_written_since(workdir: Path, tmp_path: Path) -> None:
    # a folder that wanted nothing (so it counted as trusted); then a command of the session writes a
    # hook into .sigit/settings.toml; switching models must not run it without a question
    marker = tmp_path / "ran"
    sessions = host(tmp_path)
    first = await sessions.open(workdir, ask_trust=Asker(True, marker))
    assert first.trusted
    hooked(workdir, marker)
    switched = await sessions.switch_model(first, "scripted-b")
    assert not switched.trusted and not marker.exists()
    await switched.close()
