"""Issue 50's command-line findings, as a new user meets them: real `sigit` subprocesses, and what the model
was sent read back from the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.testing.server import ScriptedServer

SIGIT = str(Path(sys.executable).parent / "sigit")
DIFF = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print('hi')\n+print('hello')\n"

pytestmark = pytest.mark.slow


def sigit_env(config: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "SIGIT_CONFIG_DIR": str(config), "HF_HUB_OFFLINE": "1", **extra}
    for name in ("SIGIT_PERMISSION_DEFAULT", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_AGENT_SDK_VERSION"):
        env.pop(name, None)
    return env


def run_sigit(args: list[str], work: Path, config: Path, *, stdin: Any = subprocess.DEVNULL,
              text_in: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    if text_in is not None:
        stdin = None
    return subprocess.run([SIGIT, *args], cwd=work, env=sigit_env(config), stdin=stdin, input=text_in,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    return work, tmp_path / "config"


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of one chat request the server received."""
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


# ---------------------------------------------------------------- item 3: stdin follows a prompt


@pytest.mark.parametrize("mode", [[], ["--claude"]], ids=["sigit", "claude"])
def test_piped_input_follows_the_prompt(dirs: tuple[Path, Path], mode: list[str]) -> None:
    """`git diff | sigit -p "review this"`: the model gets the prompt, a blank line, then the diff."""
    work, config = dirs
    with ScriptedServer(["Looks fine."]) as server:
        proc = run_sigit(["-p", "review this", *mode, "--model", f"openai:{server.base_url}#scripted-qwen"],
                         work, config, text_in=DIFF)
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Looks fine."
    assert last_user_text(bodies[0]) == f"review this\n\n{DIFF}"


@pytest.mark.parametrize("mode", [[], ["--claude"]], ids=["sigit", "claude"])
def test_prompt_alone_when_stdin_is_a_terminal_or_empty(dirs: tuple[Path, Path], mode: list[str]) -> None:
    work, config = dirs
    primary, secondary = os.openpty()  # a terminal on stdin: nothing is read from it
    try:
        with ScriptedServer(["one", "two"]) as server:
            model = ["--model", f"openai:{server.base_url}#scripted-qwen"]
            on_tty = run_sigit(["-p", "review this", *mode, *model], work, config, stdin=secondary, timeout=30)
            empty = run_sigit(["-p", "review this", *mode, *model], work, config, text_in="")
            bodies = server.requests
    finally:
        os.close(primary)
        os.close(secondary)
    assert on_tty.returncode == 0, on_tty.stderr
    assert empty.returncode == 0, empty.stderr
    assert [last_user_text(b) for b in bodies] == ["review this", "review this"]


def test_an_open_pipe_that_sends_nothing_does_not_hang_the_run(dirs: tuple[Path, Path]) -> None:
    """A caller that leaves stdin open and writes nothing (a subprocess with stdin=PIPE) gets its answer
    after a short wait, with one line saying stdin was not read."""
    work, config = dirs
    with ScriptedServer(["answer"]) as server:
        started = time.monotonic()
        proc = subprocess.Popen([SIGIT, "-p", "review this", "--model", f"openai:{server.base_url}#scripted-qwen"],
                                cwd=work, env=sigit_env(config), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            out, err = _wait_with_stdin_open(proc)  # stdin stays open until the run is over
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
        bodies = server.requests
    assert proc.returncode == 0, err
    assert out.strip() == "answer" and time.monotonic() - started < 30
    assert "nothing came on stdin" in err
    assert last_user_text(bodies[0]) == "review this"


def _wait_with_stdin_open(proc: subprocess.Popen[str]) -> tuple[str, str]:
    assert proc.stdout is not None and proc.stderr is not None
    proc.wait(timeout=60)
    return proc.stdout.read(), proc.stderr.read()


def test_p_without_a_prompt_still_reads_the_prompt_from_stdin(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    with ScriptedServer(["explained"]) as server:
        proc = run_sigit(["-p", "--model", f"openai:{server.base_url}#scripted-qwen"], work, config,
                         text_in="explain app.py")
        bodies = server.requests
    assert proc.returncode == 0, proc.stderr
    assert last_user_text(bodies[0]) == "explain app.py"


# ---------------------------------------------------------------- item 8: ACP's stdin, flags, help, doctor


@pytest.mark.parametrize("stdin", ["devnull", "closed", "empty pipe"])
def test_acp_with_stdin_at_its_end_exits_at_once_without_a_traceback(dirs: tuple[Path, Path], stdin: str) -> None:
    work, config = dirs
    options: dict[str, Any] = {"stdin": subprocess.DEVNULL}
    if stdin == "closed":  # `sigit acp <&-`
        options["preexec_fn"] = lambda: os.close(0)
    elif stdin == "empty pipe":
        options = {"input": ""}
    started = time.monotonic()
    proc = subprocess.run([SIGIT, "acp", "--model", "scripted:/nonexistent.json"], cwd=work, env=sigit_env(config),
                          capture_output=True, text=True, timeout=30, **options)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr
    assert len(proc.stderr.splitlines()) <= 1 and proc.stdout == ""
    assert time.monotonic() - started < 20


CONTRADICTIONS = [
    (["acp", "-p", "hi"], "-p"),
    (["--acp", "-p", "hi"], "-p"),
    (["acp", "--resume", "abc"], "--resume"),
    (["acp", "--output-format", "json"], "--output-format"),
    (["-p", "hi", "--fork-session"], "--fork-session"),
    (["-p", "hi", "--resume", "abc", "--continue"], "--continue"),
    (["init", "-p", "hi"], "-p"),
]


@pytest.mark.parametrize(("argv", "flag"), CONTRADICTIONS, ids=[" ".join(argv) for argv, _ in CONTRADICTIONS])
def test_contradictory_flags_are_refused_with_one_line(dirs: tuple[Path, Path], argv: list[str], flag: str) -> None:
    work, config = dirs
    proc = run_sigit([*argv, "--model", "scripted:/nonexistent.json"], work, config, timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    [line] = proc.stderr.splitlines()  # one line: why, and what to do
    assert line.startswith("sigit: ") and flag in line


def test_claude_mode_has_its_own_help(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    proc = run_sigit(["--claude", "--help"], work, config, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "not implemented" not in proc.stderr + proc.stdout
    for flag in ("--input-format", "--allowedTools", "--permission-prompt-tool", "--system-prompt", "--cwd"):
        assert flag in proc.stdout
    assert proc.stdout.startswith("usage: sigit --claude")


def test_acp_mcp_and_eval_each_have_their_own_help(dirs: tuple[Path, Path]) -> None:
    work, config = dirs
    acp = run_sigit(["acp", "--help"], work, config, timeout=30)
    assert acp.returncode == 0, acp.stderr
    assert acp.stdout.startswith("usage: sigit acp") and "Agent Client Protocol" in acp.stdout
    assert "--model" in acp.stdout and "--permission-mode" in acp.stdout and "--offline" in acp.stdout
    for headless_only in ("--print", "--output-format", "--resume", "--image", "--claude"):
        assert headless_only not in acp.stdout
    mcp = run_sigit(["mcp", "--help"], work, config, timeout=30)
    assert mcp.stdout.startswith("usage: sigit mcp") and "--port" in mcp.stdout
    evals = run_sigit(["eval", "--help"], work, config, timeout=30)
    assert evals.stdout.startswith("usage: sigit eval") and "--repeat" in evals.stdout


def test_doctor_checks_the_model_named_by_model(dirs: tuple[Path, Path], tmp_path: Path, tiny_gguf: Path) -> None:
    work, config = dirs
    env = {"QWEN_RUNTIME_TUNING_DIR": str(tmp_path / "tuning"), "HF_HUB_CACHE": str(tmp_path / "hub-cache")}
    proc = subprocess.run([SIGIT, "doctor", "--json", "--model", str(tiny_gguf)], cwd=work,
                          env=sigit_env(config, **env), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    report = json.loads(proc.stdout)
    model = next(c for c in report["checks"] if c["name"] == "model")
    assert model["details"]["model"] == str(tiny_gguf) and model["details"]["from_flag"] is True
    assert report["ready"] is True
    missing = subprocess.run([SIGIT, "doctor", "--model", str(tmp_path / "nope.gguf")], cwd=work,
                             env=sigit_env(config, **env), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=60)
    assert missing.returncode == 1, missing.stderr
    assert "nope.gguf: no such file" in missing.stdout and "pass --model an existing .gguf file" in missing.stdout


# ---------------------------------------------------------------- item 10: offline with no model


@pytest.mark.parametrize("mode", [[], ["--claude"]], ids=["sigit", "claude"])
@pytest.mark.parametrize("offline", ["--offline", "HF_HUB_OFFLINE"])
def test_the_refusal_without_a_model_names_a_local_file_first_and_once(
    dirs: tuple[Path, Path], tmp_path: Path, mode: list[str], offline: str
) -> None:
    """No model cached and no network: the fix that works now (a .gguf already on disk) comes before the
    ones that need the network, and the refusal is printed once."""
    work, config = dirs
    env = sigit_env(config, HF_HUB_CACHE=str(tmp_path / "empty-cache"), HF_ENDPOINT="http://127.0.0.1:9")
    if offline == "--offline":
        env.pop("HF_HUB_OFFLINE", None)
    args = ["-p", "hi", *mode, *(["--offline"] if offline == "--offline" else [])]
    proc = subprocess.run([SIGIT, *args], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    refusals = [line for line in proc.stderr.splitlines() if "downloaded" in line]
    assert len(refusals) == 1, proc.stderr
    [refusal] = refusals
    assert "--model PATH.gguf" in refusal
    network_fix = "without --offline" if offline == "--offline" else "qwen-runtime pull"
    assert refusal.index("--model PATH.gguf") < refusal.index(network_fix)
    if offline == "HF_HUB_OFFLINE":
        assert "unset HF_HUB_OFFLINE" in refusal
    assert "not implemented" not in proc.stderr  # Claude mode takes --offline too


# ---------------------------------------------------------------- item 12: --n-ctx and an over-long prompt


@pytest.mark.parametrize("mode", [[], ["--claude"]], ids=["sigit", "claude"])
@pytest.mark.parametrize("value", ["0", "-5", "abc", "32k"])
def test_n_ctx_takes_a_positive_whole_number(dirs: tuple[Path, Path], mode: list[str], value: str) -> None:
    work, config = dirs
    proc = run_sigit(["-p", "hi", *mode, f"--n-ctx={value}", "--model", "scripted:/nonexistent.json"], work,
                     config, timeout=30)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.splitlines()
    assert "--n-ctx" in line and "positive whole number" in line and repr(value) in line


@pytest.mark.parametrize("mode", [[], ["--claude"]], ids=["sigit", "claude"])
def test_n_ctx_sets_the_context_window_of_a_local_model(dirs: tuple[Path, Path], tiny_gguf: Path,
                                                        mode: list[str]) -> None:
    """The tiny model's system prompt and tools alone are over 2,048 tokens: the window the flag asked for."""
    work, config = dirs
    proc = run_sigit(["-p", "hi", *mode, "--n-ctx", "2048", "--model", str(tiny_gguf)], work, config,
                     timeout=240)
    assert proc.returncode == 1, proc.stderr
    assert "the context window is 2,048 tokens" in proc.stderr, proc.stderr


@pytest.mark.parametrize("mode", [[], ["--claude"]], ids=["sigit", "claude"])
def test_a_prompt_over_the_context_window_is_refused_with_its_size(dirs: tuple[Path, Path], tiny_gguf: Path,
                                                                   mode: list[str]) -> None:
    """A prompt over the window, in a new session: its size against the window and what to do, never
    "compact it" and then "Nothing to compact yet"."""
    work, config = dirs
    long_text = "the quick brown fox reads the file. " * 3000  # ~44k tokens of the tiny model's vocabulary
    proc = run_sigit(["-p", "summarise this", *mode, "--model", str(tiny_gguf), "--output-format", "json"], work,
                     config, text_in=long_text, timeout=240)
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["is_error"] and "Traceback" not in proc.stderr
    reason = result["result"]
    assert "the prompt is " in reason and "the context window is 32,768 tokens" in reason, reason
    prompt_tokens = int(reason.split("the prompt is ")[1].split(" tokens")[0].replace(",", ""))
    assert prompt_tokens > 32_768
    assert "--n-ctx" in reason and "shorter prompt" in reason
    assert "compact" not in (proc.stderr + proc.stdout).lower()
