"""Issue 49 family 3: the protected places are one list, each with its reason, judged on real paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime.speed import tuning
from sigit.config.protected import ProtectedPlaces, tuning_dir


@pytest.fixture
def places(tmp_path: Path) -> ProtectedPlaces:
    env = {"SIGIT_CACHE_DIR": str(tmp_path / "cache"), "SIGIT_STATE_DIR": str(tmp_path / "state"),
           "QWEN_RUNTIME_TUNING_DIR": str(tmp_path / "tuning")}
    return ProtectedPlaces.default(tmp_path / "config", env)


@pytest.mark.parametrize("inside", ["config/settings.toml", "config/trusted_folders.json", "config/sessions/x.json",
                                    "cache/prompt-cache/k.bin", "state/sigit.log", "tuning/r.json", "config"])
def test_siGits_own_folders_are_never_written(tmp_path: Path, places: ProtectedPlaces, inside: str) -> None:
    reason = places.refusal(tmp_path / inside, writing=True)
    assert reason is not None and "protected place" in reason
    assert places.refusal(tmp_path / inside, writing=False) is None  # siGit's tools may read its settings
    assert places.refusal(tmp_path / "work" / inside, writing=True) is None


def test_the_mcp_token_is_not_read_either(tmp_path: Path, places: ProtectedPlaces) -> None:
    reason = places.refusal(tmp_path / "state" / "mcp-token", writing=False)
    assert reason is not None and "bearer token" in reason


def test_a_place_reached_through_a_link_is_judged_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "dotfiles" / "sigit").mkdir(parents=True)
    (tmp_path / "config").symlink_to(tmp_path / "dotfiles" / "sigit")
    places = ProtectedPlaces.default(tmp_path / "config", {})
    assert places.refusal(tmp_path / "dotfiles" / "sigit" / "settings.toml", writing=True) is not None


def test_more_places_can_be_added(tmp_path: Path, places: ProtectedPlaces) -> None:
    places.add(tmp_path / "answers", "no_read", "the case's answers")
    reason = places.refusal(tmp_path / "answers" / "expected.txt", writing=False)
    assert reason is not None and "the case's answers" in reason
    assert tmp_path / "answers" in places.no_write_dirs()
    assert tmp_path / "state" / "mcp-token" not in places.no_write_dirs()  # inside the state folder, listed once


def test_the_tuning_folder_is_the_runtimes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for env in ({"QWEN_RUNTIME_TUNING_DIR": str(tmp_path / "t")}, {"XDG_CACHE_HOME": str(tmp_path / "x")}, {}):
        for key in ("QWEN_RUNTIME_TUNING_DIR", "XDG_CACHE_HOME"):
            monkeypatch.delenv(key, raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        assert tuning_dir(env) == tuning.tuning_dir()


async def test_the_file_tools_refuse_a_no_read_place(tmp_path: Path, places: ProtectedPlaces) -> None:
    from sigit.tools import ToolContext, default_registry

    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "mcp-token").write_text("secret-token\n")
    ctx = ToolContext(cwd=tmp_path / "state", places=places)
    calls = (("read_file", {"path": "mcp-token"}), ("search_files", {"pattern": "secret", "path": "mcp-token"}),
             ("create_file", {"path": "mcp-token", "content": "x", "overwrite": True}))
    for name, args in calls:
        result = await default_registry().invoke(name, args, ctx)
        assert result.is_error and "protected place" in result.text and "secret-token" not in result.text, result.text
    assert (tmp_path / "state" / "mcp-token").read_text() == "secret-token\n"


async def test_a_search_of_the_folder_above_never_shows_a_no_read_places_lines(
    tmp_path: Path, places: ProtectedPlaces
) -> None:
    """ripgrep walks the whole folder it is given; the lines of a no-read place below it are dropped."""
    from sigit.tools import ToolContext, default_registry

    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "mcp-token").write_text("secret-token\n")
    (tmp_path / "state" / "notes.txt").write_text("secret-plan\n")
    ctx = ToolContext(cwd=tmp_path, places=places)
    result = await default_registry().invoke("search_files", {"pattern": "secret", "path": "state"}, ctx)
    assert "secret-plan" in result.text and "secret-token" not in result.text, result.text
