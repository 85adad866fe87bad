"""`sigit doctor` (`sigit.cli.main` in this process): every check with a status, exit 0 only when a model can
run now."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.testing.fake_hub import serve_fake_hub
from sigit.config.settings import default_model

from .in_process import run_sigit_main

CHECKS = ["python", "llama.cpp", "gpu", "ram", "cache", "disk", "hub", "settings", "dirs", "mcp server", "model hosts",
          "model"]


def doctor(tmp_path: Path, endpoint: str, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = {"SIGIT_CONFIG_DIR": str(tmp_path / "config"), "SIGIT_STATE_DIR": str(tmp_path / "state"),
           "HF_HUB_CACHE": str(tmp_path / "hub-cache"), "HF_ENDPOINT": endpoint,
           "QWEN_RUNTIME_TUNING_DIR": str(tmp_path / "tuning"), "HF_HUB_OFFLINE": None}
    proc = run_sigit_main(["doctor", "--json", *args], cwd=work, env=env, timeout=60)
    return proc, json.loads(proc.stdout)


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {check["name"]: check for check in report["checks"]}


def test_json_lists_every_check_and_the_next_step_when_no_model_is_cached(tmp_path: Path) -> None:
    with serve_fake_hub() as hub:
        proc, report = doctor(tmp_path, hub.url)
    assert proc.returncode == 1, proc.stderr
    assert [c["name"] for c in report["checks"]] == CHECKS
    assert all(c["status"] in ("ok", "info", "warn", "fail") and c["summary"] for c in report["checks"])
    checks = by_name(report)
    assert set(checks["python"]["details"]["packages"]) == {"sigit-agent", "onde-sdk", "qwen-runtime",
                                                            "llama-cpp-python"}  # the names pip installs
    assert "sigit-agent " in checks["python"]["summary"] and "onde-sdk " in checks["python"]["summary"]
    assert checks["hub"]["status"] == "ok" and checks["hub"]["details"]["endpoint"] == hub.url
    assert checks["model"]["status"] == "fail"
    assert report["ready"] is False and f"`qwen-runtime pull {default_model()}`" in report["next_step"]
    assert checks["llama.cpp"]["details"]["cpu_features"]  # llama_print_system_info, parsed
    assert isinstance(checks["gpu"]["details"]["gpu_offload"], bool)
    assert checks["dirs"]["details"]["state_dir"] == str(tmp_path / "state")
    assert "qwen3-1.7b" in checks["ram"]["details"]["fits"] + checks["ram"]["details"]["too_big"]
    mcp = checks["mcp server"]  # what `sigit mcp` offers: the task tool and the registry's plain tools
    assert mcp["status"] == "info" and mcp["details"]["tools"][0] == "run_task"
    assert {"read_file", "edit_file", "search_files", "run_command"} <= set(mcp["details"]["tools"])
    assert "write_todos" not in mcp["details"]["tools"] and mcp["details"]["sdk_version"]


def test_a_closed_hub_port_is_reported_and_changes_the_next_step(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc, report = doctor(tmp_path, f"http://127.0.0.1:{port}")
    assert proc.returncode == 1
    hub = by_name(report)["hub"]
    assert hub["status"] == "warn" and "connection refused" in hub["summary"]
    assert "HF_ENDPOINT" in report["next_step"] and "local .gguf" in report["next_step"]


def test_a_local_model_that_exists_is_ready(tmp_path: Path, tiny_gguf: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text(f'model = "{tiny_gguf}"\ngpu_layers = 0\n')
    with serve_fake_hub() as hub:
        proc, report = doctor(tmp_path, hub.url)
    assert proc.returncode == 0, report
    assert report["ready"] is True and report["next_step"] is None
    checks = by_name(report)
    assert checks["model"]["status"] == "ok"
    assert checks["gpu"]["details"]["gpu_layers"] == 0 and checks["gpu"]["details"]["from_settings"] is True


def test_a_settings_file_that_fails_to_parse_is_named(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / ".sigit").mkdir(parents=True)
    (work / ".sigit" / "settings.toml").write_text("model = [unclosed\n")
    with serve_fake_hub() as hub:
        proc, report = doctor(tmp_path, hub.url)
    assert proc.returncode == 1
    settings = by_name(report)["settings"]
    assert settings["status"] == "fail" and str(work / ".sigit" / "settings.toml") in settings["summary"]
    assert report["next_step"].startswith("fix the settings file")


def test_text_output_says_the_next_step(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = {"SIGIT_CONFIG_DIR": str(tmp_path / "config"), "HF_HUB_CACHE": str(tmp_path / "c"), "HF_HUB_OFFLINE": "1"}
    proc = run_sigit_main(["doctor"], cwd=work, env=env, timeout=60)
    assert proc.returncode == 1
    assert "not asked (HF_HUB_OFFLINE is set)" in proc.stdout
    assert "Next step: pass --model PATH.gguf to use a local .gguf file" in proc.stdout  # no network needed
    assert f"or unset HF_HUB_OFFLINE and run `qwen-runtime pull {default_model()}`" in proc.stdout


def test_a_local_model_shows_what_the_runtime_detects_and_the_window_it_gets(
    tmp_path: Path, tiny_hybrid_gguf: Path
) -> None:
    (tmp_path / "config").mkdir()
    settings = tmp_path / "config" / "settings.toml"
    settings.write_text(f'model = "{tiny_hybrid_gguf}"\ngpu_layers = 0\n')
    with serve_fake_hub() as hub:
        proc, report = doctor(tmp_path, hub.url)
    assert proc.returncode == 0, report
    model = by_name(report)["model"]
    detected = model["details"]["detected"]
    assert detected["template"] == "embedded (same as shipped qwen3.5)"
    assert detected["tool calls"] == "xml (from the template's markers)"
    assert detected["layers"].startswith("hybrid: 1 of 4 layers full attention")
    assert detected["context window"].startswith("32,768 tokens (KV cache")
    assert "context window 32,768 tokens" in model["summary"]
    ram = by_name(report)["ram"]
    assert ram["details"]["default_model"] == default_model()
    if ram["status"] == "ok":
        assert f"default for this memory: {default_model()}" in ram["summary"]
    settings.write_text(f'model = "{tiny_hybrid_gguf}"\ngpu_layers = 0\nn_ctx = 4096\n')
    with serve_fake_hub() as hub:
        _, pinned = doctor(tmp_path, hub.url)
    assert by_name(pinned)["model"]["details"]["detected"]["context window"] == "4,096 tokens (set by n_ctx)"


def test_a_gguf_without_a_chat_template_runs_with_a_warning_naming_the_fallback(tmp_path: Path) -> None:
    from qwen_runtime.testing.testmodel import write_test_gguf

    bare = write_test_gguf(tmp_path / "bare.gguf", chat_template="")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text(f'model = "{bare}"\ngpu_layers = 0\n')
    with serve_fake_hub() as hub:
        proc, report = doctor(tmp_path, hub.url)
    model = by_name(report)["model"]
    assert proc.returncode == 0 and report["ready"] is True  # it runs: the warning is a caveat
    assert model["status"] == "warn" and "has no chat template: falling back to qwen3" in model["summary"]
    assert model["details"]["detected"]["template"].startswith("none in the file: fallback qwen3")


def test_doctor_says_whether_the_local_model_was_tuned_here_and_how_to_tune_it(
    tmp_path: Path, tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses
    import time

    from qwen_runtime.speed.tuning import MachineId, ModelFile, TunedSettings, save_tuned

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text(f'model = "{tiny_gguf}"\ngpu_layers = 0\n')
    with serve_fake_hub() as hub:
        _, untuned = doctor(tmp_path, hub.url)
        tuning = by_name(untuned)["tuning"]
        assert tuning["status"] == "info" and tuning["details"]["tuned"] is False
        assert f"not tuned on this machine (defaults apply); run `qwen-runtime tune {tiny_gguf}`" in tuning["summary"]

        monkeypatch.setenv("QWEN_RUNTIME_TUNING_DIR", str(tmp_path / "tuning"))  # where the doctor looks
        record = TunedSettings(n_threads=1, n_threads_batch=2, n_batch=256, n_ubatch=256, draft="prompt-lookup",
                               max_draft=8, kv_cache_type="f16", verify_costs={1: 1.0, 9: 1.6},
                               machine=MachineId("Another CPU 9000", 64, 32), model=ModelFile.of(tiny_gguf),
                               tuned_at=time.time())
        save_tuned(record)
        _, elsewhere = doctor(tmp_path, hub.url)
        assert "tuned " in by_name(elsewhere)["tuning"]["summary"]
        assert "on another machine (Another CPU 9000, 64 CPUs (32 physical cores)), not this one" in \
            by_name(elsewhere)["tuning"]["summary"]

        save_tuned(dataclasses.replace(record, machine=MachineId.here()))
        proc, tuned = doctor(tmp_path, hub.url)
    assert proc.returncode == 0
    tuning = by_name(tuned)["tuning"]
    assert tuning["status"] == "ok" and tuning["details"]["tuned"] is True
    assert tuning["summary"] == f"tuned {record.when} on this machine: threads 1 decode / 2 batch, batch 256, " \
        "draft prompt-lookup (at most 8 tokens), KV cache f16"
    assert tuning["details"]["here"]["verify_costs"] == {"1": 1.0, "9": 1.6}
