"""`sigit eval` as a user runs it: a real subprocess against the scripted OpenAI-compatible server on
127.0.0.1 and on the tiny GGUF through real llama.cpp, and the errors a user's mistakes get."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from qwen_runtime.testing.server import ScriptedServer
from sigit.eval import (
    EvalOptions,
    EvalSetting,
    ResultsFile,
    builtin_pack_names,
    load_all,
    load_tasks,
    markdown,
    packs_root,
    run_eval,
    summarize,
)
from sigit.frontends.eval_cli import run_eval_cli

from .conftest import MINI_PACK, SOLVES

SIGIT = str(Path(sys.executable).parent / "sigit")


def sigit_eval(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(cwd / "config"), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([SIGIT, "eval", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_against_an_openai_server_json_report_and_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer(SOLVES["fix-add"]) as server:
        model = f"openai:{server.base_url}#scripted-qwen"
        proc = sigit_eval(
            [
                str(MINI_PACK),
                "--task",
                "fix-*",
                "--model",
                model,
                "--temperature",
                "0.2",
                "--json",
                "--report",
                "report.md",
                "--results",
                "r.jsonl",
            ],
            tmp_path,
        )
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    [result] = out["results"]
    assert result["task_id"] == "fix-add" and result["outcome"] == "solved" and result["temperature"] == 0.2
    assert out["totals"][0]["pass_at_1"] == {"value": 1.0, "low": pytest.approx(0.2065, abs=1e-3), "high": 1.0}
    assert bodies[0]["temperature"] == 0.2 and bodies[-1]["messages"][-1]["role"] == "tool"
    assert "✓ fix-add" in proc.stderr  # a line per finished attempt above the progress bar
    report = (tmp_path / "report.md").read_text()
    assert "| fix-add | 0 |" in report and "temperature 0.2" in report and "seed 0" in report
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["run", "task"]

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "config"))
    again = [str(MINI_PACK), "--task", "fix-*", "--model", model, "--temperature", "0.2", "--results", "r.jsonl"]
    assert run_eval_cli(again) == 2 and "pass --resume" in capsys.readouterr().err
    # another temperature would merge two settings into one row: refused, naming what differs
    hotter = [*again[:-3], "0.7", "--results", "r.jsonl", "--resume"]
    assert run_eval_cli(hotter) == 2
    assert "temperature was 0.2, now 0.7" in capsys.readouterr().err
    assert run_eval_cli([*again, "--resume", "--quiet"]) == 0  # nothing left to run: the closed server is not asked
    out = capsys.readouterr().out
    assert "fix-add" in out and "solved" in out and "1/1" in out


@pytest.mark.slow
async def test_a_smoke_task_through_real_llama_cpp(
    tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path on a real model (the tiny Qwen 3.5-shaped one): the built-in pack by name, the model
    loaded once, a session on it, a reply, the check, the report."""
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "config"))
    tasks = load_all(["smoke"], ["fix-paginate"])
    store = ResultsFile(tmp_path / "r.jsonl")
    setting = EvalSetting("tiny", model=str(tiny_hybrid_gguf), max_tokens=8, n_ctx=8192)
    [result] = await run_eval([setting], tasks, store, EvalOptions(work_dir=tmp_path, max_turns=2))
    assert result.outcome != "solved" and result.completion_tokens > 0 and result.turns >= 1
    assert result.agent_peak_rss_mb is not None and result.agent_peak_rss_mb > 0 and result.seed == 0
    report = markdown(summarize(["tiny"], [result]), [result], store.runs[-1], 1)
    assert "| tiny | 0/1 | 0% (0%-79%) |" in report and "max_tokens 8" in report and "n_ctx 8192" in report
    assert "caps on every task: max_turns 2" in report


def test_the_built_in_packs_load_by_name() -> None:
    """In a checkout (the editable install imports from it) the packs are its eval_packs/ folder;
    tests/test_dist_install.py proves an installed wheel finds its own copy."""
    assert packs_root() == Path(__file__).resolve().parents[3] / "packages" / "sigit" / "eval_packs"
    assert builtin_pack_names() == ["smoke", "standard"]
    smoke = load_tasks("smoke")
    assert len(smoke) == 10 and len({t.family for t in smoke}) == 9
    assert all(t.check_files and t.solution and t.repo for t in smoke)
    assert {t.language for t in load_tasks("standard")} == {"python", "javascript", "shell"}


def test_list_and_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_eval_cli([str(MINI_PACK), "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["count-todos\tshell\tshell", "fix-add\tfix-test\tpython"]
    assert run_eval_cli(["no-such-pack"]) == 2
    assert "no pack 'no-such-pack'" in capsys.readouterr().err
    assert run_eval_cli([str(MINI_PACK), "--task", "zzz*"]) == 2
    assert "no task id matches zzz*" in capsys.readouterr().err
    assert run_eval_cli([str(MINI_PACK), "--compare", "a:--frobnicate"]) == 2
    assert "unknown flags --frobnicate" in capsys.readouterr().err
    assert run_eval_cli([str(MINI_PACK), "--compare=--no-think"]) == 2
    assert "write NAME:FLAGS" in capsys.readouterr().err
    assert run_eval_cli([str(MINI_PACK), "--compare", "a:", "--compare", "a:--no-think"]) == 2
    assert "names must differ" in capsys.readouterr().err
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "config"))
    assert run_eval_cli([str(MINI_PACK), "--model", str(tmp_path / "missing.gguf"), "--quiet"]) in (1, 2)
    assert "missing.gguf" in capsys.readouterr().err
    assert not (tmp_path / "sigit-eval.jsonl").exists()  # nothing ran, nothing written: no --resume needed


def test_compare_flags_stack_on_the_eval_flags() -> None:
    from sigit.frontends.eval_cli import build_parser, settings_from

    args = build_parser().parse_args(
        [
            "--model",
            "m.gguf",
            "--temperature",
            "0.5",
            "--compare",
            "base:",
            "--compare",
            "nothink:--no-think --max-tokens 64",
            "--compare",
            "other:--model other.gguf --seed -1",
        ]
    )
    base, nothink, other = settings_from(args)
    assert (base.name, base.model, base.thinking, base.temperature, base.seed) == ("base", "m.gguf", None, 0.5, 0)
    assert (nothink.model, nothink.thinking, nothink.max_tokens) == ("m.gguf", False, 64)
    assert (other.model, other.seed, other.flags) == ("other.gguf", None, ("--model", "other.gguf", "--seed", "-1"))
