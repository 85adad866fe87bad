"""The `qwen-runtime` command line, in-process through main() and once as a real program."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.cli import main
from qwen_runtime.models.registry import DEFAULT_MODEL, REGISTRY

VENV_BIN = Path(sys.executable).parent

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {"type": "function", "function": {"name": "list_dir", "description": "List a folder", "parameters": {}}},
]


def _scenario(tmp_path: Path, *turns: dict[str, object]) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"turns": list(turns)}))
    return f"scripted:{path}"


def _tools_file(tmp_path: Path, content: object = TOOLS) -> str:
    path = tmp_path / "tools.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def test_generate_streams_text_to_stdout_and_reasoning_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _scenario(tmp_path, {"text": "Paris.", "reasoning": "The capital of France."})
    assert main(["generate", "--model", model, "--prompt", "capital of France?"]) == 0
    out, err = capsys.readouterr()
    assert out == "Paris.\n"
    assert "The capital of France." in err and "\x1b[" not in err  # not a terminal: no colour codes


def test_generate_json_is_one_object_with_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _scenario(
        tmp_path,
        {"text": "Reading it.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]},
    )
    code = main(["generate", "-m", model, "-p", "show a.py", "--tools", _tools_file(tmp_path), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    reply = json.loads(out)
    assert reply["text"] == "Reading it."
    assert reply["finish_reason"] == "tool_calls"
    [call] = reply["tool_calls"]
    assert call["name"] == "read_file" and call["arguments"] == {"path": "a.py"} and call["id"]


def test_generate_builds_the_request_from_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from qwen_runtime.backends.scripted import ScriptedRuntime

    seen: list[ScriptedRuntime] = []
    original = ScriptedRuntime.from_file.__func__  # type: ignore[attr-defined]

    def spy(cls: type[ScriptedRuntime], /, path: str, **options: float) -> ScriptedRuntime:
        runtime: ScriptedRuntime = original(cls, path, **options)
        seen.append(runtime)
        return runtime

    monkeypatch.setattr(ScriptedRuntime, "from_file", classmethod(spy))
    model = _scenario(tmp_path, {"text": "ok"})
    argv = [
        "generate",
        "-m",
        model,
        "-p",
        "hi",
        "--system",
        "be brief",
        "--tools",
        _tools_file(tmp_path),
        "--tool-choice",
        "list_dir",
        "--no-think",
        "--max-tokens",
        "77",
        "--seed",
        "5",
        "--temperature",
        "0.1",
        "--n-ctx",
        "2048",
        "--json",
    ]
    assert main(argv) == 0
    [request] = seen[0].requests
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[0].content == "be brief"
    assert [t.name for t in request.tools] == ["read_file", "list_dir"]
    assert request.tool_choice == "list_dir" and request.enable_thinking is False
    assert (request.sampling.max_tokens, request.sampling.seed, request.sampling.temperature) == (77, 5, 0.1)


@pytest.mark.parametrize(
    ("tools", "choice", "message"),
    [
        (TOOLS, "write_file", "'write_file' is not one of the offered tools: read_file, list_dir"),
        (None, "read_file", "pass --tools"),
        (None, "required", "needs tools"),
        ("{not json", "auto", "is not valid JSON"),
        ({"name": "x"}, "auto", "must hold a JSON list"),
        ([{"description": "nameless"}], "auto", "item 0: tool definition without a name"),
        ([TOOLS[0], TOOLS[0]], "auto", "defines read_file more than once"),
    ],
)
def test_bad_tool_flags_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tools: object, choice: str, message: str
) -> None:
    argv = ["generate", "-m", _scenario(tmp_path, {"text": "x"}), "-p", "hi", "--tool-choice", choice]
    if tools is not None:
        argv += ["--tools", _tools_file(tmp_path, tools)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err


def test_unreadable_tools_file_names_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.json"
    model = _scenario(tmp_path, {"text": "x"})
    assert main(["generate", "-m", model, "-p", "hi", "--tools", str(missing)]) == 2
    assert f"cannot read tools file {missing}: No such file or directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["generate", "--prompt", "hi", "--max-tokens", "0"], "expected a number above 0"),
        (["generate", "--prompt", "hi", "--temperature", "hot"], "expected a number"),
        (["generate", "--model", "x"], "--prompt"),
        (["generate", "--model", "ollama:qwen", "--prompt", "hi"], "unknown kind 'ollama'"),
        (["pull", "openai:http://localhost:1/v1"], "pull takes a registry key"),
        (["frobnicate"], "invalid choice"),
        ([], "COMMAND"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_runtime_errors_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "-m", str(tmp_path / "missing.gguf"), "-p", "hi"]) == 1
    assert "GGUF file not found" in capsys.readouterr().err
    # the script holds one turn; nothing else goes wrong until the model is asked
    empty = _scenario(tmp_path)
    assert main(["generate", "-m", empty, "-p", "hi"]) == 1
    assert "script has 0" in capsys.readouterr().err


def test_models_lists_every_model_and_its_cache_state(
    hub_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = hub_cache / "models--bartowski--Qwen_Qwen3-4B-GGUF" / "snapshots" / ("a" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "Qwen_Qwen3-4B-Q4_K_M.gguf").write_bytes(b"GGUF")
    assert main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line for line in lines[1 : 1 + len(REGISTRY)]}
    assert set(rows) == {e.key for e in REGISTRY}
    assert "5.3 GiB" in rows["qwen3.5-9b"] and "17.3 GiB" in rows["qwen3-coder-30b-a3b"]
    assert f"default model: {DEFAULT_MODEL};" in lines[-1]
    size_at, fits_at, template_at = (lines[0].index(name) for name in ("SIZE", "FITS", "TEMPLATE"))
    assert rows["qwen3.6-35b-a3b"][size_at:].startswith("~20.5 GiB")  # an estimated size says so
    assert rows["qwen3.5-0.8b"][fits_at:].split()[0] == "yes"  # 2 GiB needed: fits any test machine
    assert rows["qwen3-coder-next"][fits_at:].split()[0] in ("yes", "no")
    assert rows["qwen3.8-27b"][template_at:].split()[0] == "qwen3.8"
    assert "4.8 GiB" in rows["qwen3-8b"] and "not cached" in rows["qwen3-8b"]
    assert str(snapshot / "Qwen_Qwen3-4B-Q4_K_M.gguf") in rows["qwen3-4b"]
    tools_at = lines[0].index("TOOLS")
    assert rows["qwen2.5-coder-3b"][tools_at:].split()[0] == "no"
    assert rows["qwen3-8b"][tools_at:].split()[0] == "yes"
    images_at = lines[0].index("IMAGES")  # what seeing costs on top of the weights
    assert rows["qwen3.5-0.8b"][images_at:].startswith("+191.7 MiB ")
    assert rows["qwen3-8b"][images_at:].split()[0] == "no"


def test_pull_downloads_and_prints_the_path(fake_hub: Any, capsys: pytest.CaptureFixture[str]) -> None:
    fake_hub.add("someone/Tiny-GGUF", "tiny.gguf", b"GGUF-data")
    assert main(["pull", "hf:someone/Tiny-GGUF/tiny.gguf"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.read_bytes() == b"GGUF-data"


def test_pull_offline_uncached_exits_1_with_the_reason(
    hub_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["pull", "qwen3-1.7b"]) == 1
    err = capsys.readouterr().err
    assert "bartowski/Qwen_Qwen3-1.7B-GGUF/Qwen_Qwen3-1.7B-Q4_K_M.gguf" in err and str(hub_cache) in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "make-test-model" in capsys.readouterr().out


def test_real_program_help_and_generate(tmp_path: Path) -> None:
    program = str(VENV_BIN / "qwen-runtime")
    shown = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "generate" in shown.stdout
    model = _scenario(tmp_path, {"text": "done", "tool_calls": [{"name": "list_dir", "arguments": {}}]})
    ran = subprocess.run(
        [program, "generate", "--model", model, "--prompt", "hi", "--tools", _tools_file(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    reply = json.loads(ran.stdout)
    assert reply["text"] == "done" and reply["tool_calls"][0]["name"] == "list_dir"


def test_importing_the_cli_stays_light() -> None:
    code = (
        "import sys, qwen_runtime.cli\n"
        "heavy = ('torch', 'transformers', 'llama_cpp', 'huggingface_hub', 'numpy')\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_make_test_model_then_generate_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tiny.gguf"
    assert main(["make-test-model", str(out), "--seed", "3"]) == 0
    assert Path(capsys.readouterr().out.strip()) == out and out.read_bytes()[:4] == b"GGUF"
    argv = [
        "generate",
        "-m",
        str(out),
        "-p",
        "hi",
        "--no-think",
        "--max-tokens",
        "8",
        "--seed",
        "1",
        "--n-ctx",
        "512",
        "--json",
    ]
    assert main(argv) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["finish_reason"] in ("stop", "length")
    assert 0 < reply["usage"]["completion_tokens"] <= 8


def test_make_test_model_into_an_unwritable_place_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["make-test-model", str(blocker / "tiny.gguf")]) == 1
    assert "qwen-runtime: error:" in capsys.readouterr().err


def test_plain_output_shows_tool_calls_on_their_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _scenario(tmp_path, {"text": "Listing.", "tool_calls": [{"name": "list_dir", "arguments": {}}]})
    assert main(["generate", "-m", model, "-p", "ls", "--tools", _tools_file(tmp_path)]) == 0
    assert capsys.readouterr().out == "Listing.\n[tool call list_dir {}]\n"


def test_generate_drafts_by_default_and_says_so_with_verbose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from qwen_runtime.backends import _generation
    from qwen_runtime.speed.draft_control import DraftController

    # the controller measures on a scripted machine where batches cost little: on the real clock a loaded
    # machine can make drafting lose, and the controller then rightly drafts almost nothing
    def controller(self: _generation.LocalRuntime) -> DraftController:
        return DraftController(self.max_draft, cost_model=lambda n: 1 + 0.05 * (n - 1))

    monkeypatch.setattr(_generation.LocalRuntime, "draft_controller", controller)
    model = tmp_path / "tiny.gguf"
    assert main(["make-test-model", str(model)]) == 0
    capsys.readouterr()
    file = "def add(a, b):\n    return a + b\n" * 8
    base = ["generate", "-m", str(model), "-p", f"Repeat:\n{file}", "--no-think", "--temperature", "0",
            "--max-tokens", "120", "--n-ctx", "1024", "--json"]
    assert main([*base, "--verbose"]) == 0
    drafted = capsys.readouterr()
    assert main([*base, "--draft", "none"]) == 0
    plain = json.loads(capsys.readouterr().out)
    usage = json.loads(drafted.out)["usage"]
    assert usage["drafted_tokens"] >= usage["accepted_draft_tokens"] > 0
    assert plain["usage"]["drafted_tokens"] == 0
    assert json.loads(drafted.out)["text"] == plain["text"]
    assert "draft: prompt-lookup" in drafted.err and "threads" in drafted.err
    # and, after the reply, one line on what the draft length controller chose and why
    line = re.search(r"draft: length (\d+) chosen most, verifying 1 \+ (\d+) costs (\d+\.\d\d) steps, "
                     r"acceptance (\d+)%", drafted.err)
    assert line is not None, drafted.err
    assert int(line[1]) == usage["draft_length"] and int(line[2]) == (usage["draft_length"] or 12)
    assert float(line[3]) == pytest.approx(usage["draft_verify_cost"], abs=0.01)
    assert int(line[4]) == pytest.approx(100 * usage["draft_acceptance"], abs=1)


def test_a_draft_that_is_no_source_and_no_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "-p", "hi", "--draft", "prompt-lookahead"]) == 2
    assert "--draft 'prompt-lookahead'" in capsys.readouterr().err
