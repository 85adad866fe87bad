"""`sigit -p` starts loading its model before importing the rest of siGit (sigit/early_load.py).

What a user would notice if it went wrong: a model loaded twice (twice the memory, twice the wait), the
wrong model (a project's model in a folder nobody trusted), or an error worded differently than before.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sigit.app import SessionHost
from sigit.config.paths import project_settings_path
from sigit.config.settings import SettingsError
from sigit.early_load import EarlyLoad
from sigit.errors import ModelError
from sigit.options import HostOptions

SIGIT = str(Path(sys.executable).parent / "sigit")


class FakeRuntime:
    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.name, self.options, self.closed = name, options, False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[FakeRuntime]:
    """Every model load, early or the host's own, as a fake runtime (no backend imported)."""
    loaded: list[FakeRuntime] = []

    def load(name: str, **options: Any) -> FakeRuntime:
        if name.endswith("broken.gguf"):
            from onde import ModelBuild

            raise ModelBuild(f"{name}: not a GGUF file")
        loaded.append(FakeRuntime(name, options))
        return loaded[-1]

    monkeypatch.setattr("sigit.early_load.load_runtime", load)
    monkeypatch.setattr("sigit.early_load.import_backend", lambda name: None)
    monkeypatch.setattr("sigit.app.load_runtime", load)
    return loaded


def test_the_host_takes_the_early_load_of_the_model_it_would_load(tmp_path: Path, loads: list[FakeRuntime]) -> None:
    options = HostOptions(model="/models/a.gguf", config_dir=tmp_path / "config", prefill=False)
    early = EarlyLoad.start(options, tmp_path)
    host = SessionHost(options, early=early)
    settings = host.settings(tmp_path)
    runtime = host.runtime(host.model_name(settings), settings)
    assert [r.name for r in loads] == ["/models/a.gguf"]  # loaded once
    assert runtime is loads[0] and not loads[0].closed


def test_an_early_load_of_another_model_or_other_options_is_closed_before_the_host_loads(
    tmp_path: Path, loads: list[FakeRuntime]
) -> None:
    early = EarlyLoad.start(HostOptions(model="/models/a.gguf", config_dir=tmp_path), tmp_path)
    host = SessionHost(HostOptions(model="/models/b.gguf", config_dir=tmp_path), early=early)
    settings = host.settings(tmp_path)
    runtime = host.runtime(host.model_name(settings), settings)
    assert [(r.name, r.closed) for r in loads] == [("/models/a.gguf", True), ("/models/b.gguf", False)]
    assert runtime is loads[1]

    loads.clear()  # same model, another draft source: other load options, so not the same runtime
    early = EarlyLoad.start(HostOptions(model="/models/a.gguf", config_dir=tmp_path), tmp_path)
    host = SessionHost(HostOptions(model="/models/a.gguf", config_dir=tmp_path, draft="none"), early=early)
    runtime = host.runtime("/models/a.gguf", settings)
    assert [(r.options.get("draft"), r.closed) for r in loads] == [(None, True), ("none", False)]


def test_a_failed_early_load_leaves_the_error_to_the_hosts_own_load(tmp_path: Path, loads: list[FakeRuntime]) -> None:
    options = HostOptions(model="/models/broken.gguf", config_dir=tmp_path)
    host = SessionHost(options, early=EarlyLoad.start(options, tmp_path))
    with pytest.raises(ModelError, match=r"could not load model /models/broken.gguf: .*not a GGUF file"):
        host.runtime("/models/broken.gguf", host.settings(tmp_path))


def test_a_bad_settings_file_starts_nothing_and_the_open_reports_it(tmp_path: Path, loads: list[FakeRuntime]) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text("model = [\n")
    early = EarlyLoad.start(HostOptions(config_dir=config), tmp_path)
    assert early.name is None and not loads
    with pytest.raises(SettingsError):
        SessionHost(HostOptions(config_dir=config), early=early).settings(tmp_path)


def test_an_untrusted_folder_does_not_choose_the_early_loads_model(tmp_path: Path, loads: list[FakeRuntime]) -> None:
    """A repository's settings name a model (and a hook: it wants trust). Nobody trusted it, so headless
    loads the user's model, early as later; with --trust, the project's."""
    config, work = tmp_path / "config", tmp_path / "work"
    config.mkdir()
    (config / "settings.toml").write_text('model = "/models/users.gguf"\n')
    path = project_settings_path(work)
    path.parent.mkdir(parents=True)
    path.write_text('model = "/models/project.gguf"\n[[hooks.session_start]]\ncommand = "true"\n')
    users = EarlyLoad.start(HostOptions(config_dir=config), work)
    project = EarlyLoad.start(HostOptions(config_dir=config, trust=True), work)
    assert (users.name, project.name) == ("/models/users.gguf", "/models/project.gguf")
    for early in (users, project):  # not taken: closed, and no load left running (into the next test's fakes)
        early.discard(wait=True)
    assert sorted(r.name for r in loads) == ["/models/project.gguf", "/models/users.gguf"]
    assert all(r.closed for r in loads)


def test_sigit_p_loads_the_model_once_and_early(tmp_path: Path, tiny_gguf: Path) -> None:
    """A real `sigit -p` on the tiny GGUF: the load starts before the session exists, the session uses it,
    and llama.cpp opens the model once."""
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    config.mkdir()
    (config / "settings.toml").write_text("max_tokens = 8\n")
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(config), "SIGIT_CACHE_DIR": str(tmp_path / "cache"),
           "HF_HUB_OFFLINE": "1", "SIGIT_LOG": "info"}
    proc = subprocess.run([SIGIT, "-p", "say hi", "--model", str(tiny_gguf), "--output-format", "json",
                           "--max-turns", "1", "--verbose"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert f"loading model {tiny_gguf} early" in proc.stderr
    assert "the early load is used" in proc.stderr
    assert proc.stderr.count("context window:") == 1  # one llama.cpp model, one context
    assert "and the process ends" in proc.stderr  # not freed object by object just before the exit
    assert json.loads(proc.stdout.splitlines()[-1])["usage"]["output_tokens"] > 0


def test_a_one_shot_run_leaves_its_model_to_the_process_end_and_others_free_it(
    tmp_path: Path, loads: list[FakeRuntime]
) -> None:
    """`sigit` ends its process after `-p` (os._exit): freeing llama.cpp's vocabulary and KV cache first
    only delays the exit. Called in-process (`main()`, an embedder) the model is freed as before."""
    from sigit.cli import _parse
    from sigit.frontends.host_args import headless_host_options

    args = _parse(["-p", "x", "--cwd", str(tmp_path), "--model", "/models/a.gguf"])
    assert not isinstance(args, int)
    for process_ends, closed in ((False, True), (True, False)):
        loads.clear()
        args.process_ends = process_ends
        host = SessionHost(dataclasses.replace(headless_host_options(args), config_dir=tmp_path))
        settings = host.settings(tmp_path)
        host._reserve("/models/a.gguf")
        host.runtime("/models/a.gguf", settings)
        host.release("/models/a.gguf")
        assert [r.closed for r in loads] == [closed]
