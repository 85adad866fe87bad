"""`qwen-runtime tune` on real llama.cpp and the tiny test model: the record it writes, the next load taking
it (explicit arguments winning), and the records a load must not take (another file at the path, a
renamed file, another machine, a damaged or edited record)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.cli import main
from qwen_runtime.speed.cpus import cpu_budget
from qwen_runtime.speed.draft_control import DraftController
from qwen_runtime.speed.drafting import describe
from qwen_runtime.speed.tuning import (
    MachineId,
    ModelFile,
    TunedSettings,
    record_path,
    save_tuned,
    tuned_settings,
    tuning_status,
)
from qwen_runtime.testing.testmodel import write_test_gguf

QWEN_RUNTIME = str(Path(sys.executable).parent / "qwen-runtime")


@pytest.fixture
def model(tmp_path: Path, tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny model at a path of this test's own, with a tuning folder of its own."""
    monkeypatch.setenv("QWEN_RUNTIME_TUNING_DIR", str(tmp_path / "tuning"))
    copy = tmp_path / "models" / "tiny.gguf"
    copy.parent.mkdir()
    shutil.copyfile(tiny_gguf, copy)
    return copy


def record_for(path: Path, **chosen: object) -> TunedSettings:
    """A record as `tune` writes it, with the chosen values given (distinct from every default)."""
    values: dict[str, object] = {"n_threads": 1, "n_threads_batch": 1, "n_batch": 64, "n_ubatch": 32,
                                 "draft": "none", "max_draft": 3, "kv_cache_type": "f16"}
    values.update(chosen)
    return TunedSettings(**values, verify_costs={1: 1.0, 2: 1.1, 4: 1.3}, machine=MachineId.here(),  # type: ignore[arg-type]
                         model=ModelFile.of(path), tuned_at=time.time(), measured={"decode_tok_s": {"1": 50.0}})


def test_tune_measures_writes_a_record_and_the_next_load_and_generate_take_it(model: Path) -> None:
    env = {**os.environ}
    ran = subprocess.run([QWEN_RUNTIME, "tune", str(model), "--quick"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr
    for step in ("decode threads", "batch threads", "n_batch", "verify 1+k tokens", "draft source", "max draft",
                 "KV cache"):
        assert step in ran.stdout
    assert "chosen for tiny.gguf" in ran.stdout and "wrote " in ran.stderr
    # the tiny model's 16-wide heads cannot take a q8_0 cache: said, with llama.cpp's reason, and f16 kept
    assert "does not divide n_embd_head_k=16" in ran.stdout
    record = tuned_settings(model)
    assert record is not None and record.on_this_machine and record.kv_cache_type == "f16"
    assert record.verify_costs[1] == 1.0 and set(record.verify_costs) == {1, 2, 3, 5, 9, 13}
    assert {"1", str(cpu_budget().logical)} <= set(record.measured["decode_tok_s"])  # 1..N threads tried
    assert record.draft in ("none", "prompt-lookup") and record.summary() in ran.stdout

    # the record read back by the command's `main` in this process: a second and third Python start would
    # check nothing the real `tune` above did not
    shown_out = io.StringIO()
    with contextlib.redirect_stdout(shown_out):
        assert main(["tune", "--show", str(model)]) == 0
    shown = shown_out.getvalue()
    assert "tuned " in shown and "on this machine" in shown
    assert record.summary() in shown

    generated_err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(generated_err):
        code = main(["generate", "-m", str(model), "-p", "hi", "--no-think", "--max-tokens", "4", "--n-ctx", "256",
                     "-v"])
    assert code == 0, generated_err.getvalue()
    assert f"tuned settings for tiny.gguf (measured {record.when}): {record.summary()}" in generated_err.getvalue()


def test_a_load_takes_every_tuned_value_it_is_not_given(model: Path, caplog: pytest.LogCaptureFixture) -> None:
    record = record_for(model)
    save_tuned(record)
    with caplog.at_level(logging.INFO, logger="qwen_runtime"):
        rt = LlamaCppRuntime(str(model), n_ctx=256)
    try:
        assert rt.tuning == record
        assert (rt.n_batch, rt.n_ubatch, rt.max_draft, rt.kv_cache_type) == (64, 32, 3, "f16")
        assert int(rt._llm.n_batch) == 64 and rt.draft_source is None  # tuned "none" over prompt lookup
        assert (rt.n_threads, rt.n_threads_batch) == (1, 1)
        assert rt.threads is None  # tuned threads are the explicit choice: they do not follow the load
    finally:
        rt.close()
    assert "tuned settings for tiny.gguf" in caplog.text and "given here instead" not in caplog.text


def test_explicit_arguments_win_over_the_tuned_values(model: Path, caplog: pytest.LogCaptureFixture) -> None:
    save_tuned(record_for(model))
    with caplog.at_level(logging.INFO, logger="qwen_runtime"):
        rt = LlamaCppRuntime(str(model), n_ctx=256, n_batch=128, draft="prompt-lookup", max_draft=5)
    try:
        assert (rt.n_batch, rt.max_draft, describe(rt.draft_source)) == (128, 5, "prompt-lookup")
        assert rt.n_ubatch == 32  # not given: still the tuned one
    finally:
        rt.close()
    assert "given here instead: n_batch, draft, max draft" in caplog.text
    untuned = LlamaCppRuntime(str(model), n_ctx=256, tuned=False)
    try:
        assert untuned.tuning is None and untuned.n_batch == 2048 and describe(untuned.draft_source) == "prompt-lookup"
    finally:
        untuned.close()


def test_the_measured_verify_costs_are_where_the_draft_controller_starts(model: Path) -> None:
    save_tuned(dataclasses.replace(record_for(model), draft="prompt-lookup"))
    rt = LlamaCppRuntime(str(model), n_ctx=256)
    try:
        controller = rt.draft_controller()
        assert isinstance(controller, DraftController) and controller.cost.priors == {1: 1.0, 2: 1.1, 4: 1.3}
        assert controller.cost.ratio(4) == pytest.approx(1.3, abs=0.05)  # nothing measured yet: the record's
    finally:
        rt.close()
    given = LlamaCppRuntime(str(model), n_ctx=256, verify_costs={1: 1.0, 5: 4.0})
    try:
        assert given.verify_costs == {1: 1.0, 5: 4.0}  # an explicit mapping wins over the record's
    finally:
        given.close()


def test_tuned_threads_stay_within_qwen_runtime_threads(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_tuned(record_for(model, n_threads=64, n_threads_batch=64))
    monkeypatch.setenv("QWEN_RUNTIME_THREADS", "1")
    rt = LlamaCppRuntime(str(model), n_ctx=256)
    try:
        assert (rt.n_threads, rt.n_threads_batch) == (1, 1)
    finally:
        rt.close()


def test_a_replaced_or_renamed_model_file_does_not_take_the_record(model: Path) -> None:
    old = record_for(model)
    save_tuned(old)
    write_test_gguf(model, seed=7)  # another file at the same path
    assert tuned_settings(model) is None
    rt = LlamaCppRuntime(str(model), n_ctx=256)
    try:
        assert rt.tuning is None and rt.n_batch == 2048
    finally:
        rt.close()
    assert tuning_status(model).stale == old and tuning_status(model).here is None
    save_tuned(record_for(model))
    renamed = model.with_name("renamed.gguf")
    model.rename(renamed)
    assert tuned_settings(renamed) is None


def test_a_record_from_another_machine_is_not_applied_but_is_shown(model: Path) -> None:
    other = dataclasses.replace(record_for(model), machine=MachineId("Another CPU 9000", 64, 32))
    save_tuned(other)
    assert tuned_settings(model) is None
    status = tuning_status(model)
    assert status.here is None and status.elsewhere == (other,)


@pytest.mark.parametrize(("content", "reason"), [
    (b"{not json", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "is not a table"),
    (b"{}", "format None"),
])
def test_a_damaged_record_is_ignored_with_a_warning(
    model: Path, caplog: pytest.LogCaptureFixture, content: bytes, reason: str
) -> None:
    where = record_path(model)
    where.parent.mkdir(parents=True)
    where.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="qwen_runtime"):
        rt = LlamaCppRuntime(str(model), n_ctx=256)
    try:
        assert rt.tuning is None and rt.n_batch == 2048
    finally:
        rt.close()
    assert f"ignoring the tuned settings in {where}" in caplog.text and reason in caplog.text
    assert tuning_status(model).problems and reason in tuning_status(model).problems[0]


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("draft", "/tmp/evil.gguf", "chosen.draft '/tmp/evil.gguf' is not one of"),  # a model to load: never
    ("kv_cache_type", "q2_k", "chosen.kv_cache_type 'q2_k'"),
    ("n_threads", -3, "n_threads -3 is not a whole number"),
    ("n_batch", "512", "n_batch '512' is not a whole number"),
    ("max_draft", True, "max_draft True is not a whole number"),
])
def test_an_edited_record_is_ignored_with_a_warning_naming_the_field(
    model: Path, caplog: pytest.LogCaptureFixture, field: str, value: object, reason: str
) -> None:
    where = save_tuned(record_for(model))
    data = json.loads(where.read_text())
    data["chosen"][field] = value
    where.write_text(json.dumps(data))
    with caplog.at_level(logging.WARNING, logger="qwen_runtime"):
        assert tuned_settings(model) is None
    assert reason in caplog.text


def test_dry_run_writes_nothing_and_reset_forgets(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", str(model), "--quick", "--dry-run"]) == 0
    out = capsys.readouterr()
    assert "chosen for tiny.gguf" in out.out and "dry run: nothing written" in out.err
    assert tuned_settings(model) is None and not record_path(model).exists()
    assert main(["tune", "--show", str(model)]) == 0
    assert f"not tuned on this machine; run `qwen-runtime tune {model}`" in capsys.readouterr().out
    where = save_tuned(record_for(model))
    assert main(["tune", "--reset", str(model)]) == 0
    assert str(where) in capsys.readouterr().out and not where.exists()
    assert main(["tune", "--reset", str(model)]) == 0
    assert "has no tuned settings on this machine" in capsys.readouterr().out


def test_tune_refuses_what_it_cannot_measure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", str(tmp_path / "missing.gguf")]) == 2
    assert "no such GGUF file" in capsys.readouterr().err
    assert main(["tune", "scripted:x.json"]) == 2
    assert "tune takes a .gguf file or a registry key" in capsys.readouterr().err
    assert main(["tune", str(tmp_path), "--show", "--reset"]) == 2


def test_tune_on_a_hybrid_with_an_mtp_head_tries_every_draft_source_within_its_rollback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qwen_runtime.backends.llamacpp.calibration import calibrate
    from qwen_runtime.backends.llamacpp.runtime import HYBRID_MAX_DRAFT

    monkeypatch.setenv("QWEN_RUNTIME_TUNING_DIR", str(tmp_path / "tuning"))
    hybrid = write_test_gguf(tmp_path / "tiny-qwen35-mtp.gguf", arch="qwen35", mtp=True)
    result = calibrate(hybrid, quick=True)
    record = result.settings
    sources = {row.option for row in result.rows if row.step == "draft source"}
    assert sources == {"none", "prompt-lookup", "mtp"}
    assert set(record.measured["draft_tok_s"]) == sources and record.draft in sources
    # a hybrid drops rejected drafts by recurrent-state snapshot: no draft longer than it keeps
    assert max(record.verify_costs) == HYBRID_MAX_DRAFT + 1 and record.max_draft <= HYBRID_MAX_DRAFT
    assert [row.chosen for row in result.rows if row.step == "draft source"].count(True) == 1
    # the chunk measured is the graph's (n_ubatch); a llama_decode still takes llama-server's 2,048 tokens
    assert record.n_batch == 2048 and record.n_ubatch <= 512
