"""Issue 50's command-line findings, as a new user meets them: real `sigit` subprocesses, and what the model
was sent read back from the scripted OpenAI-compatible server."""

from __future__ import annotations

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
