"""The issue's "done when": `qwen-runtime generate --model <tiny> --tools F --tool-choice required --json`
returns schema-valid tool calls for every seed, through the real command and real llama.cpp."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from jsonschema import validate
from qwen_runtime.cli import main as cli_main

TOOLS = [
    {"name": "read_file", "description": "Read a file",
     "parameters": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 30},
                                                      "start_line": {"type": "integer"}},
                    "required": ["path"], "additionalProperties": False}},
    {"type": "function", "function": {"name": "run_command", "description": "Run a shell command",
     "parameters": {"type": "object", "properties": {"command": {"type": "string", "maxLength": 30}},
                    "required": ["command"], "additionalProperties": False}}},
]
SCHEMAS = {"read_file": TOOLS[0]["parameters"], "run_command": TOOLS[1]["function"]["parameters"]}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_required_tool_choice_gives_schema_valid_calls_for_every_seed(
    seed: int, tiny_gguf: Path, tmp_path: Path
) -> None:
    """Seed 0 through the installed command, the others through its `main` in this process (a Python
    start for each seed checks nothing the first one did not)."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    argv = ["generate", "--model", str(tiny_gguf), "--prompt", "list the files", "--tools", str(tools),
            "--tool-choice", "required", "--no-think", "--max-tokens", "96", "--seed", str(seed), "--n-ctx", "2048",
            "--json"]
    if seed == 0:
        cli = str(Path(sys.executable).with_name("qwen-runtime"))
        proc = subprocess.run([cli, *argv], capture_output=True, text=True, timeout=120)
        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    else:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(argv)
        stdout, stderr = out.getvalue(), err.getvalue()
    assert code == 0, stderr
    reply = json.loads(stdout)
    assert reply["tool_calls"], reply
    for call in reply["tool_calls"]:
        assert call["id"]
        validate(call["arguments"], SCHEMAS[call["name"]])


@pytest.mark.slow
def test_make_hf_test_model_then_generate_through_transformers(tmp_path: Path) -> None:
    """`make-test-model --format hf DIR` writes a folder that `generate --model transformers:DIR` runs
    (both commands in this process: the seed tests above start the installed command once; two more Python
    starts importing torch cost ~15 s of CPU and test nothing more)."""
    folder = tmp_path / "tiny-hf"
    made = io.StringIO()
    with contextlib.redirect_stdout(made):
        assert cli_main(["make-test-model", str(folder), "--format", "hf"]) == 0
    assert (folder / "config.json").is_file() and any(folder.glob("*.safetensors"))
    assert str(folder) in made.getvalue()
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    out = io.StringIO()
    import torch

    threads = torch.get_num_threads()  # the backend sets torch's process-wide thread count
    try:
        with contextlib.redirect_stdout(out):
            code = cli_main(["generate", "--model", f"transformers:{folder}", "--prompt", "hi", "--tools",
                             str(tools), "--tool-choice", "run_command", "--no-think", "--max-tokens", "96",
                             "--seed", "2", "--json"])
    finally:
        torch.set_num_threads(threads)
    assert code == 0, out.getvalue()
    reply = json.loads(out.getvalue())
    assert [c["name"] for c in reply["tool_calls"]][:1] == ["run_command"]
    validate(reply["tool_calls"][0]["arguments"], SCHEMAS["run_command"])


# ---------------------------------------------------------------- the XML tool-call format
# Qwen3-Coder's, Qwen 3.5's, 3.6's and 3.8's templates on the same tiny dense model, and the tiny hybrid Qwen 3.5
# (its own template): the format comes from the template, so these runs constrain and parse
# `<function=...>` calls instead of JSON.

XML_TOOLS = [
    *TOOLS,
    {"name": "set_mode", "description": "Switch modes",
     "parameters": {"type": "object", "properties": {"mode": {"enum": ["fast", "slow"]}, "level": {"type": "integer"},
                                                      "dry_run": {"type": "boolean"},
                                                      "tags": {"type": "array", "items": {"enum": ["a", "b"]},
                                                               "maxItems": 2}},
                    "required": ["mode", "dry_run"], "additionalProperties": False}},
]
XML_SCHEMAS = {**SCHEMAS, "set_mode": XML_TOOLS[2]["parameters"]}


XML_MODELS = ["qwen3-coder", "qwen3.5", "qwen3.6", "qwen3.8", "qwen35-hybrid"]


def xml_model(name: str, request: pytest.FixtureRequest) -> Path:
    if name == "qwen35-hybrid":
        hybrid: Path = request.getfixturevalue("tiny_hybrid_gguf")
        return hybrid
    build: Callable[[str], Path] = request.getfixturevalue("xml_template_gguf")
    return build(name)


def _generate(model: Path, tools: Path, *flags: str) -> dict[str, object]:
    """`qwen-runtime generate ... --json`, run in this process: the same command code, without paying a
    Python start for each of the 120 seeds (the seed tests above run the installed command itself)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["generate", "--model", str(model), "--prompt", "list the files", "--tools", str(tools),
                         "--tool-choice", "required", "--n-ctx", "2048", "--json", *flags])
    assert code == 0, out.getvalue()
    reply: dict[str, object] = json.loads(out.getvalue())
    return reply


@pytest.mark.slow
@pytest.mark.parametrize("template", XML_MODELS)
def test_xml_template_models_give_schema_valid_calls_for_12_seeds(
    template: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(XML_TOOLS))
    model = xml_model(template, request)
    for seed in range(12):
        reply = _generate(model, tools, "--no-think", "--max-tokens", "128", "--seed", str(seed))
        calls = reply["tool_calls"]
        assert isinstance(calls, list) and calls, (seed, reply)
        for call in calls:
            validate(call["arguments"], XML_SCHEMAS[call["name"]])


@pytest.mark.slow
@pytest.mark.parametrize("template", XML_MODELS)
def test_xml_template_models_reach_a_call_with_thinking_on_for_12_seeds(
    template: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """No thinking budget given: `required` closes the think block after max_tokens // 4 and calls."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(XML_TOOLS))
    model = xml_model(template, request)
    for seed in range(12):
        reply = _generate(model, tools, "--max-tokens", "200", "--seed", str(seed))
        calls = reply["tool_calls"]
        assert isinstance(calls, list) and calls, (seed, reply)
        validate(calls[0]["arguments"], XML_SCHEMAS[calls[0]["name"]])
        usage = reply["usage"]
        assert isinstance(usage, dict)
        if not str(reply["text"]).strip():  # the call opened the reply: thinking stopped at the budget
            assert usage["reasoning_tokens"] <= 200 // 4 + 4
        else:  # the model wrote its call inside the think block (read from there); the budget never cuts a
            assert usage["reasoning_tokens"] < usage["completion_tokens"]  # call, and the turn went on after it
