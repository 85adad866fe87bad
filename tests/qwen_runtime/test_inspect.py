"""A Qwen model we have never seen keeps working: `qwen-runtime inspect` shows what is detected, a
template we do not ship still gets its call format from its markers, and a GGUF without a template
gets a warning naming the fallback. `inspect` runs the command's `main` in this process; `generate`
starts the real command, whose warning reaches stderr through a fresh process's logging."""

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
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.cli import main
from qwen_runtime.models.templates import load_template
from qwen_runtime.testing.testmodel import write_test_gguf
from qwen_runtime.types import ChatRequest, Sampling, ToolSpec, UserMessage

CLI = str(Path(sys.executable).with_name("qwen-runtime"))
SCHEMA = {"type": "object", "properties": {"path": {"type": "string", "maxLength": 30},
                                           "start_line": {"type": "integer"}},
          "required": ["path"], "additionalProperties": False}
TOOLS = (ToolSpec("read_file", "Read a file", SCHEMA),)


def unshipped(name: str) -> str:
    """A shipped template edited the way a fine-tune edits one: its instructions and macro renamed,
    its call markers (`<tool_call>`, `<function=`, `<parameter=`, `<think>`) kept."""
    text = load_template(name)
    edited = (text.replace("You have access to the following functions", "These tools are available")
              .replace("If you choose to call a function ONLY reply", "To use a tool, reply only")
              .replace("render_content", "render_parts"))
    assert edited != text and all(m in edited for m in ("<tool_call>", "<function=", "<parameter="))
    return edited


def inspect(model: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """`qwen-runtime inspect MODEL FLAGS` (its `main`, here): the exit code and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["inspect", str(model), *flags])
    return subprocess.CompletedProcess(["qwen-runtime", "inspect", str(model), *flags], code, out.getvalue(),
                                       err.getvalue())


def test_inspect_shows_what_is_detected_in_a_hybrid_model(tiny_hybrid_gguf: Path) -> None:
    proc = inspect(tiny_hybrid_gguf)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for expected in ("architecture     qwen35", "hybrid: 1 of 4 layers full attention",
                     "embedded (same as shipped qwen3.5)", "xml (from the template's markers)",
                     "thinking         yes", "trained context  32,768 tokens", "MTP layers       0",
                     "needed for images", "context window   32,768 tokens (KV cache"):
        assert expected in out, out
    data = json.loads(inspect(tiny_hybrid_gguf, "--json", "--n-ctx", "4096").stdout)
    assert (data["architecture"], data["hybrid"], data["n_ctx"], data["n_ctx_reason"]) == (
        "qwen35", True, 4096, "set by n_ctx")


def test_inspect_of_a_moe_model_and_of_a_file_that_is_not_a_gguf(tmp_path: Path) -> None:
    moe = write_test_gguf(tmp_path / "moe.gguf", arch="qwen35moe")
    out = inspect(moe).stdout
    assert "qwen35moe, 4 experts" in out and "same as shipped qwen3.6" in out and "preserve_thinking" in out
    bad = tmp_path / "notes.gguf"
    bad.write_text("not a model")
    proc = inspect(bad)
    assert proc.returncode == 1 and "not a readable GGUF file" in proc.stderr
    missing = inspect(tmp_path / "nowhere.gguf")
    assert missing.returncode == 2 and "no such GGUF file" in missing.stderr


def test_a_gguf_without_a_chat_template_gets_a_warning_naming_the_fallback(tmp_path: Path) -> None:
    bare = write_test_gguf(tmp_path / "bare.gguf", chat_template="")
    proc = inspect(bare)
    assert proc.returncode == 0
    assert "none in the file: fallback qwen3" in proc.stdout
    assert "has no chat template: falling back to qwen3" in proc.stderr
    run = subprocess.run([CLI, "generate", "--model", str(bare), "--prompt", "hi", "--no-think",
                          "--max-tokens", "4", "--n-ctx", "1024"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "has no chat template: falling back to qwen3" in run.stderr


def test_what_the_fallback_template_decides_is_marked_assumed_and_the_warning_names_the_fix(tmp_path: Path) -> None:
    bare = write_test_gguf(tmp_path / "bare.gguf", chat_template="")
    proc = inspect(bare)
    assert "tool calls       json (assumed: from the fallback qwen3 template)" in proc.stdout
    assert "thinking         yes (assumed: from the fallback qwen3 template)" in proc.stdout
    assert "--chat-template FILE" in proc.stderr
    data = json.loads(inspect(bare, "--json").stdout)
    assert data["thinking_assumed"] is True and data["warnings"]


def test_a_supplied_chat_template_replaces_the_missing_one_in_inspect_and_in_generation(tmp_path: Path) -> None:
    bare = write_test_gguf(tmp_path / "bare.gguf", chat_template="")
    jinja = tmp_path / "qwen.jinja"
    jinja.write_text(load_template("qwen3.5"))
    proc = inspect(bare, "--chat-template", str(jinja))
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert f"supplied: {jinja}" in proc.stdout and "xml (from the template's markers)" in proc.stdout
    config = tmp_path / "tokenizer_config.json"  # what a Hugging Face repository ships it in
    config.write_text(json.dumps({"chat_template": [{"name": "default", "template": load_template("qwen3.5")}]}))
    assert "supplied:" in inspect(bare, "--chat-template", str(config)).stdout
    rt = LlamaCppRuntime(str(bare), n_ctx=1024, draft="none", chat_template_file=str(jinja))
    try:
        assert rt.load_warnings == ()
        assert "<function=example_function_name>" in rt.prompt_text(ChatRequest((UserMessage("hi"),), TOOLS))
    finally:
        rt.close()


@pytest.mark.parametrize(("content", "name", "error"), [
    (None, "absent.jinja", "no such chat template file"),
    ("", "empty.jinja", "is empty"),
    ("{% for m in messages %}", "broken.jinja", "does not parse (line 1)"),
    ("{not json", "tokenizer_config.json", "is not valid JSON"),
    ('{"bos_token": "<s>"}', "config.json", "holds no `chat_template` string"),
])
def test_a_chat_template_file_that_cannot_serve_is_named_before_anything_loads(
    tmp_path: Path, content: str | None, name: str, error: str
) -> None:
    bare = write_test_gguf(tmp_path / "bare.gguf", chat_template="")
    file = tmp_path / name
    if content is not None:
        file.write_text(content)
    proc = inspect(bare, "--chat-template", str(file))
    assert proc.returncode != 0 and error in proc.stderr and str(file) in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def unshipped_gguf(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    folder = tmp_path_factory.mktemp("unshipped")

    def build(name: str) -> Path:
        return write_test_gguf(folder / f"{name}.gguf", chat_template=unshipped(name))

    return build


@pytest.mark.slow
@pytest.mark.parametrize("name", ["qwen3.6", "qwen3-coder"])
def test_a_template_we_do_not_ship_calls_tools_through_format_detection(
    name: str, unshipped_gguf: Callable[[str], Path]
) -> None:
    """A renamed copy of Qwen 3.6's template, and an edited Qwen3-Coder one: XML calls, 12 seeds each,
    thinking on and off (Qwen3-Coder's template has no think block)."""
    model = unshipped_gguf(name)
    out = inspect(model).stdout
    assert "embedded (not one we ship" in out and "xml (from the template's markers)" in out
    rt = LlamaCppRuntime(str(model), n_ctx=2048, draft="none")
    try:
        for thinking in (False, True):
            for seed in range(12):
                request = ChatRequest((UserMessage("list the files"),), TOOLS, tool_choice="required",
                                      enable_thinking=thinking, sampling=Sampling(max_tokens=160, seed=seed))
                done = rt.complete(request)
                assert done.tool_calls, (thinking, seed, done.text)
                validate(done.tool_calls[0].arguments, SCHEMA)
        prompt = rt.prompt_text(ChatRequest((UserMessage("hi"),), TOOLS))
        assert "<function=example_function_name>" in prompt and "These tools are available" in prompt
    finally:
        rt.close()
