"""The issue's "done when": `qwen-runtime generate --model <tiny> --tools F --tool-choice required --json`
returns schema-valid tool calls for every seed, through the real command and real llama.cpp."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import validate

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
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    cli = str(Path(sys.executable).with_name("qwen-runtime"))
    proc = subprocess.run(
        [cli, "generate", "--model", str(tiny_gguf), "--prompt", "list the files", "--tools", str(tools),
         "--tool-choice", "required", "--no-think", "--max-tokens", "96", "--seed", str(seed),
         "--n-ctx", "2048", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert reply["tool_calls"], reply
    for call in reply["tool_calls"]:
        assert call["id"]
        validate(call["arguments"], SCHEMAS[call["name"]])


@pytest.mark.slow
def test_make_hf_test_model_then_generate_through_transformers(tmp_path: Path) -> None:
    """`make-test-model --format hf DIR` writes a folder that `generate --model transformers:DIR` runs."""
    cli = str(Path(sys.executable).with_name("qwen-runtime"))
    folder = tmp_path / "tiny-hf"
    made = subprocess.run([cli, "make-test-model", str(folder), "--format", "hf"], capture_output=True, text=True,
                          timeout=180)
    assert made.returncode == 0, made.stderr
    assert (folder / "config.json").is_file() and any(folder.glob("*.safetensors"))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    proc = subprocess.run(
        [cli, "generate", "--model", f"transformers:{folder}", "--prompt", "hi", "--tools", str(tools),
         "--tool-choice", "run_command", "--no-think", "--max-tokens", "96", "--seed", "2", "--json"],
        capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert [c["name"] for c in reply["tool_calls"]][:1] == ["run_command"]
    validate(reply["tool_calls"][0]["arguments"], SCHEMAS["run_command"])
