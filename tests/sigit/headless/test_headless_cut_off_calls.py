"""`sigit -p` (`sigit.cli.main` in this process) with a scripted model whose reply hits max_tokens inside a call:
nothing is written, and the JSON output reports the cut-off call."""

from __future__ import annotations

import json
from pathlib import Path

from .test_headless_cli import run_sigit

CUT_WRITE = {
    "raw": "Writing the report.\n<tool_call>\n<function=create_file>\n<parameter=path>\nreport.md\n</parameter>\n"
    "<parameter=content>\n# Report\n\nThe first section of a long rep",
    "finish_reason": "length",
}


def scenario(tmp_path: Path, *turns: object) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"turns": list(turns)}))
    return f"scripted:{path}"


def test_json_result_reports_the_cut_off_call_and_nothing_is_written(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    model = scenario(tmp_path, CUT_WRITE, {"text": "The file is too long for one call; I'll write it in parts."})
    proc = run_sigit(
        ["-p", "write report.md", "--model", model, "--permission-mode", "accept-edits", "--output-format", "json"],
        work,
        config,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (work / "report.md").exists()
    result = json.loads(proc.stdout)
    assert result["subtype"] == "success" and result["stop_reason"] == "end_turn"
    [cut] = result["cut_off_tool_calls"]
    assert cut["tool_name"] == "create_file" and cut["tool_use_id"]
    assert "cut off at the token limit" in cut["message"]
    assert "cut off at the token limit" in proc.stderr  # the progress line shows the failed call


def test_stream_json_shows_a_failed_tool_result_and_the_stop_at_max_tokens(tmp_path: Path) -> None:
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    proc = run_sigit(
        [
            "-p",
            "write report.md",
            "--model",
            scenario(tmp_path, CUT_WRITE),
            "--permission-mode",
            "accept-edits",
            "--max-turns",
            "1",
            "--output-format",
            "stream-json",
            "--quiet",
        ],
        work,
        config,
    )
    assert not (work / "report.md").exists()
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    results = [b for line in lines if line["type"] == "user" for b in line["message"]["content"]]
    assert [(b["is_error"], "cut off at the token limit" in b["content"]) for b in results] == [(True, True)]
    final = lines[-1]
    assert final["type"] == "result" and final["stop_reason"] == "max_tokens"
    assert [c["tool_name"] for c in final["cut_off_tool_calls"]] == ["create_file"]
    assert final["cut_off_tool_calls"][0]["tool_use_id"] == results[0]["tool_use_id"]
