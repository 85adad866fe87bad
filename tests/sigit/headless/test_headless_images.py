"""`sigit -p` with images: `-i FILE` (repeatable) and `@path` mentions reach a model that can see (the tiny
vision model through real llama.cpp), are kept in the session by hash with a copy beside it, and a
model that cannot see, or a file that is no image, gets a clear error."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .test_headless_cli import run_sigit

pytestmark = pytest.mark.timeout(180)


def session_lines(config: Path, session_id: str) -> list[dict[str, object]]:
    text = (config / "sessions" / f"{session_id}.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()[1:]]


def test_images_from_flags_and_mentions_reach_the_model_and_the_session_keeps_them_by_hash(
    tmp_path: Path, tiny_vision_gguf: Path, make_png: Callable[..., Path]
) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    config.mkdir()
    # the random model writes until max_tokens: 64 show the images reached it as well as 8,192 (29 s) did
    (config / "settings.toml").write_text("max_tokens = 64\n")
    shutil.copy(make_png(128, 64, seed=1), work / "shot.png")
    other = make_png(64, 64, seed=2)
    proc = run_sigit(["-p", "what differs between @shot.png and the other one?", "--model", str(tiny_vision_gguf),
                      "-i", str(other), "--output-format", "json", "--max-turns", "1"], work, config, timeout=150)
    assert proc.returncode in (0, 1), proc.stderr
    result = json.loads(proc.stdout)
    assert "cannot see" not in result["result"]
    user = next(m for m in session_lines(config, result["session_id"]) if m["role"] == "user")
    refs = user["images"]
    assert isinstance(refs, list) and len(refs) == 2 and "base64" not in json.dumps(user)
    folder = config / "sessions" / f"{result['session_id']}.images"
    stored = {ref["file"]: (folder / ref["file"]).read_bytes() for ref in refs}
    assert sorted(stored.values()) == sorted([other.read_bytes(), (work / "shot.png").read_bytes()])


def test_a_text_only_model_refuses_an_image_with_the_reason(
    tmp_path: Path, tiny_gguf: Path, make_png: Callable[..., Path]
) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    proc = run_sigit(["-p", "look", "--model", str(tiny_gguf), "-i", str(make_png(32, 32))], work, config)
    assert proc.returncode == 1
    assert "cannot see images: it is a text-only model (qwen3)" in proc.stdout + proc.stderr


def test_a_missing_or_non_image_file_is_a_usage_error(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    (work / "notes.png").write_text("not a picture")
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": []}))
    missing = run_sigit(["-p", "look", "--model", f"scripted:{scenario}", "-i", "gone.png"], work, config)
    assert missing.returncode == 2 and "--image gone.png: no such file" in missing.stderr
    nobody = run_sigit(["-p", "look", "--model", f"scripted:{scenario}", "-i", "~no-such-user/a.png"], work, config)
    assert nobody.returncode == 2 and "--image ~no-such-user/a.png: no such file" in nobody.stderr
    fake = run_sigit(["-p", "look", "--model", f"scripted:{scenario}", "--image", "notes.png"], work, config)
    assert fake.returncode == 2 and "--image notes.png: not a PNG, JPEG, GIF, WebP or BMP image" in fake.stderr


def test_read_file_on_a_png_sends_the_picture_back_to_a_model_that_can_see(
    tmp_path: Path, make_png: Callable[..., Path]
) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    shutil.copy(make_png(64, 32, seed=4), work / "chart.png")
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "chart.png"}}]},
        {"text": "The chart is noise."},
    ]}))
    proc = run_sigit(["-p", "read chart.png", "--model", f"scripted:{scenario}", "--output-format", "json"],
                     work, config)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    tool = next(m for m in session_lines(config, result["session_id"]) if m["role"] == "tool")
    assert "chart.png is an image (64x32 PNG" in str(tool["content"])
    [ref] = tool["images"]  # type: ignore[misc]
    stored = config / "sessions" / f"{result['session_id']}.images" / ref["file"]
    assert stored.read_bytes() == (work / "chart.png").read_bytes()


def test_the_mmproj_setting_chooses_the_projector(
    tmp_path: Path, tiny_vision_gguf: Path, make_png: Callable[..., Path]
) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    config.mkdir()
    (config / "settings.toml").write_text('mmproj = "none"\n')
    proc = run_sigit(["-p", "look", "--model", str(tiny_vision_gguf), "-i", str(make_png(32, 32))], work, config)
    assert proc.returncode == 1
    assert "no projector (mmproj) is loaded; pass --mmproj FILE" in proc.stdout + proc.stderr
