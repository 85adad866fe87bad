"""The app's first start with no model cached: a picker, and nothing downloaded before a choice.

A real app (Pilot) with no runtime injected, an empty hub cache and a local fake hub that serves the
tiny test model under a registry model's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.models.registry import get_model
from qwen_runtime.testing.fake_hub import serve_fake_hub
from sigit.config.settings import default_model
from sigit.frontends.tui.app import create_app
from sigit.frontends.tui.screens import ConfirmScreen, ModelPicker
from textual.widgets import OptionList

from .helpers import SIZE, notices, wait_screen

CHOICE = get_model("qwen3-1.7b")


async def test_picker_shows_first_and_downloads_only_the_chosen_model(
    workdir: Path, tmp_path: Path, tiny_gguf: Path, hub_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    with serve_fake_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        hub.add(CHOICE.repo_id, CHOICE.filename, tiny_gguf.read_bytes())
        app = create_app(workdir, config_dir=config)
        progress: list[tuple[str, int, int | None]] = []
        show_download = app.show_download

        def record(model: str, done: int, total: int | None) -> None:
            progress.append((model, done, total))
            show_download(model, done, total)

        app.show_download = record  # type: ignore[method-assign]  # what the status bar is told
        async with app.run_test(size=SIZE) as pilot:
            await wait_screen(app, pilot, ModelPicker)
            rows = app.screen.query_one(OptionList)
            shown = "\n".join(str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count))
            default = get_model(default_model())
            assert default.name in shown and default.size_display in shown and "tools" in shown and "RAM" in shown
            assert hub.requests == []  # the picker is up: nothing asked of the hub yet
            rows.highlighted = [rows.get_option_at_index(i).id for i in range(rows.option_count)].index(CHOICE.key)
            await pilot.press("enter")
            await wait_screen(app, pilot, ConfirmScreen)  # "Download Qwen 3 1.7B (1.0 GiB)?"
            assert hub.requests == []
            await pilot.press("y")
            for _ in range(2000):
                if app.agent_session is not None:
                    break
                await pilot.pause(0.01)
            assert app.agent_session is not None, notices(app)
            assert app.model_name == CHOICE.key
            # the pick is saved after the session opens (a thread writes it): leaving the app sooner cancels
            # the write, which a loaded machine made happen (the file was missing at the end)
            for _ in range(1000):
                if (config / "settings.toml").exists():
                    break
                await pilot.pause(0.01)
        requests = list(hub.requests)
    assert ("GET", f"/{CHOICE.repo_id}/resolve/main/{CHOICE.filename}") in requests
    size = tiny_gguf.stat().st_size
    assert progress and progress[-1] == (CHOICE.key, size, size)  # the download's progress reached the app
    model_files = [path for _, path in requests if "/resolve/" in path]
    assert model_files and all(path.endswith(f"/{CHOICE.filename}") for path in model_files)  # only the chosen one
    assert f'model = "{CHOICE.key}"' in (config / "settings.toml").read_text()


async def test_escape_downloads_nothing_and_says_how_to(
    workdir: Path, tmp_path: Path, hub_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_fake_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        app = create_app(workdir, config_dir=tmp_path / "config")
        async with app.run_test(size=SIZE) as pilot:
            await wait_screen(app, pilot, ModelPicker)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, ModelPicker)
            assert f"qwen-runtime pull {default_model()}" in notices(app)
            assert app.agent_session is None
        assert hub.requests == []
    assert not (tmp_path / "config" / "settings.toml").exists()
