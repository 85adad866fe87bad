"""Ctrl+O opens the first run's picker (size, fit, tools, the local-file row); a model not downloaded is
confirmed first, naming its size; a load that fails says so once; and "does it fit" has one answer in the
picker, `sigit doctor` and `qwen-runtime models`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qwen_runtime.cli import main as qwen_runtime_main
from qwen_runtime.models import registry
from qwen_runtime.models.registry import REGISTRY, get_model
from qwen_runtime.testing.fake_hub import serve_fake_hub
from sigit.frontends.doctor import diagnose
from sigit.frontends.tui.app import create_app
from sigit.frontends.tui.screens import ConfirmScreen, LocalModelScreen, ModelPicker, picker_rows
from textual.widgets import OptionList, Static

from .conftest import MakeApp
from .helpers import SIZE, notices, ready, wait_screen

GIB = 1024**3
BIG = get_model("qwen3-coder-30b-a3b")  # 17.3 GiB: too big for 16 GiB
SMALL = get_model("qwen3-1.7b")
ESTIMATED = next(entry for entry in REGISTRY if not entry.size_exact)


@pytest.fixture
def memory_16_gib(monkeypatch: pytest.MonkeyPatch) -> int:
    """This machine has 16 GiB, for every "does it fit" question."""
    monkeypatch.setattr(registry, "memory_bytes", lambda: 16 * GIB)
    return 16 * GIB


def rows_of(picker: ModelPicker) -> dict[str, str]:
    options = picker.query_one(OptionList)
    return {str(options.get_option_at_index(i).id): str(options.get_option_at_index(i).prompt)
            for i in range(options.option_count)}


async def test_ctrl_o_asks_before_downloading_naming_the_size(
    make_app: MakeApp, hub_cache: Path, memory_16_gib: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_fake_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        app, _ = make_app([])
        async with app.run_test(size=SIZE) as pilot:
            await ready(app, pilot)
            await pilot.press("ctrl+o")
            await wait_screen(app, pilot, ModelPicker)
            picker = app.screen
            assert isinstance(picker, ModelPicker)
            rows = rows_of(picker)
            assert BIG.size_display in rows[BIG.key] and "too big for RAM" in rows[BIG.key]
            assert SMALL.size_display in rows[SMALL.key] and "fits in RAM" in rows[SMALL.key]
            assert ESTIMATED.size_display.startswith("~") and ESTIMATED.size_display in rows[ESTIMATED.key]
            assert rows["local-gguf-file"].strip() == "Use a .gguf file on this machine…"
            options = picker.query_one(OptionList)
            options.highlighted = list(rows).index(BIG.key)
            await pilot.press("enter")
            await wait_screen(app, pilot, ConfirmScreen)
            question = str(app.screen.query_one("#confirm-question", Static).render())
            assert f"Download {BIG.name} ({BIG.size_display})?" in question
            assert "too big" in " ".join(str(s.render()) for s in app.screen.query(Static))
            await pilot.press("n")
            await wait_screen(app, pilot, ModelPicker)  # back to the list, nothing started
            await pilot.press("escape")
            await pilot.pause()
            assert app.model_name != BIG.key and "Switching" not in notices(app)
        assert hub.requests == []


async def test_the_local_file_row_opens_a_file_and_a_failed_load_is_said_once(
    workdir: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"turns": []}))
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model at all")
    app = create_app(workdir, config_dir=tmp_path / "config", model=f"scripted:{scenario}")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+o")
        await wait_screen(app, pilot, ModelPicker)
        options = app.screen.query_one(OptionList)
        options.highlighted = options.option_count - 1  # the local-file row
        await pilot.press("enter")
        await wait_screen(app, pilot, LocalModelScreen)
        app.screen.query_one("#gguf-path").value = str(broken)  # type: ignore[attr-defined]
        await pilot.press("enter")
        for _ in range(1000):
            if "still using" in notices(app):
                break
            await pilot.pause(0.01)
        text = notices(app)
        assert str(broken) in text and "still using" in text, text
        assert text.lower().count("could not load model") == 1, text


def test_doctor_the_picker_and_qwen_runtime_models_give_one_answer(
    memory_16_gib: int, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # doctor's --offline sets it: restored after the test
    picker = {row.key: row.fits for row in picker_rows()[0]}
    ram = next(check for check in diagnose(workdir, offline=True).checks if check.name == "ram")
    doctor = {key: key in ram.details["fits"] for key in ram.details["fits"] + ram.details["too_big"]}
    assert qwen_runtime_main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    fits_at = lines[0].index("FITS")
    listed = {line.split()[0]: line[fits_at:].split()[0] == "yes" for line in lines[1 : 1 + len(REGISTRY)]}
    assert picker == doctor == listed
    assert picker[SMALL.key] is True and picker[BIG.key] is False  # both answers occur
