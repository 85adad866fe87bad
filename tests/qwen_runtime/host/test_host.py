"""The model host with real processes and sockets: two client processes share one load and get the
tokens an in-process model gives; the host leaves when idle; a killed host is replaced by an
in-process load with a notice; the socket and its folder are the user's alone; keep-alive 0 starts none."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.host.client import HostedRuntime, running_hosts
from qwen_runtime.host.loading import load_runtime
from qwen_runtime.host.places import HostPlaceError, peer_uid, private_dir, same_user
from qwen_runtime.runtime import CancelToken
from qwen_runtime.types import (
    ChatRequest,
    Completion,
    Finished,
    Sampling,
    ToolSpec,
    UserMessage,
)

from .conftest import alive, host_pids

N_CTX = 1024
READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}},
                                              "required": ["path"]})


def request(text: str = "hello there", max_tokens: int = 24) -> ChatRequest:
    return ChatRequest((UserMessage(text),), tools=(READ,), sampling=Sampling(temperature=0.0, max_tokens=max_tokens,
                                                                               seed=7))


CLIENT = """
import json, sys
from qwen_runtime.host.loading import load_runtime
from qwen_runtime.types import ChatRequest, Sampling, ToolSpec, UserMessage
spec = json.loads(sys.argv[1])
rt = load_runtime(spec["path"], keep_alive=spec["keep_alive"], n_ctx=spec["n_ctx"], host_notice=print)
req = ChatRequest((UserMessage(spec["text"]),), tools=(ToolSpec(**spec["tool"]),),
                  sampling=Sampling(temperature=0.0, max_tokens=spec["max_tokens"], seed=7))
c = rt.complete(req)
status = rt.status() if hasattr(rt, "status") else None
print(json.dumps({"hosted": type(rt).__name__, "text": c.text, "reasoning": c.reasoning,
                  "calls": [[t.name, t.arguments] for t in c.tool_calls], "finish": c.finish_reason,
                  "cached": c.usage.cached_prompt_tokens, "status": status}))
"""


def client_process(model: Path, *, keep_alive: float = 60.0, text: str = "hello there") -> dict[str, Any]:
    """One generation from a process of its own, as `sigit -p` would make it."""
    spec = {"path": str(model), "keep_alive": keep_alive, "n_ctx": N_CTX, "text": text, "max_tokens": 24,
            "tool": {"name": READ.name, "description": READ.description, "parameters": READ.parameters}}
    done = subprocess.run([sys.executable, "-c", CLIENT, json.dumps(spec)], capture_output=True, text=True,
                          timeout=180, env=os.environ.copy())
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def in_process(model: Path, text: str = "hello there") -> Completion:
    runtime = LlamaCppRuntime(str(model), n_ctx=N_CTX)
    try:
        return runtime.complete(request(text))
    finally:
        runtime.close()


def wait_until_gone(pid: int, timeout: float = 60.0) -> bool:
    """Poll until `pid` has exited (True) or `timeout` passed (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_two_client_processes_share_one_load_and_match_in_process_tokens(tiny_gguf: Path, host_dirs: Path) -> None:
    first = client_process(tiny_gguf)
    second = client_process(tiny_gguf)
    assert first["hosted"] == second["hosted"] == "HostedRuntime"
    assert first["status"]["pid"] == second["status"]["pid"]  # the same host answered both
    assert second["status"]["loads"] == 1 and second["status"]["generations"] == 2
    assert second["cached"] > 0  # the host's KV cache kept the prompt the first process evaluated
    local = in_process(tiny_gguf)
    for hosted in (first, second):
        assert hosted["text"] == local.text and hosted["reasoning"] == local.reasoning
        assert hosted["calls"] == [[c.name, c.arguments] for c in local.tool_calls]
        assert hosted["finish"] == local.finish_reason
    [listed] = running_hosts()
    assert listed.pid == first["status"]["pid"] and listed.model == str(tiny_gguf)


def test_host_exits_when_idle_past_keep_alive(tiny_gguf: Path, host_dirs: Path) -> None:
    runtime = load_runtime(str(tiny_gguf), keep_alive=1.0, n_ctx=N_CTX)
    assert isinstance(runtime, HostedRuntime)
    assert runtime.complete(request(max_tokens=4)).finish_reason in ("stop", "length")
    pid = runtime.host_pid
    assert wait_until_gone(pid), "the host outlived its keep-alive"
    assert not list(host_dirs.glob("*.sock")) and not list(host_dirs.glob("*.json"))


def test_killed_host_falls_back_in_process_with_a_notice(tiny_gguf: Path, host_dirs: Path) -> None:
    notices: list[str] = []
    runtime = load_runtime(str(tiny_gguf), keep_alive=60.0, n_ctx=N_CTX, host_notice=notices.append)
    assert isinstance(runtime, HostedRuntime) and not notices
    os.kill(runtime.host_pid, 9)
    assert wait_until_gone(runtime.host_pid)
    answer = runtime.complete(request())
    assert len(notices) == 1 and "model host stopped" in notices[0] and "in this process" in notices[0]
    assert answer.text == in_process(tiny_gguf).text
    runtime.close()


def test_a_folder_open_to_others_is_refused_and_the_model_loads_here(tiny_gguf: Path, host_dirs: Path) -> None:
    host_dirs.mkdir(mode=0o755)
    os.chmod(host_dirs, 0o755)
    notices: list[str] = []
    runtime = load_runtime(str(tiny_gguf), keep_alive=60.0, n_ctx=N_CTX, host_notice=notices.append)
    assert isinstance(runtime, LlamaCppRuntime)
    assert len(notices) == 1 and "open to other users" in notices[0]
    assert runtime.complete(request()).text == in_process(tiny_gguf).text
    runtime.close()
    assert not list(host_dirs.glob("*.sock"))


def test_socket_is_0600_in_a_0700_folder(tiny_gguf: Path, host_dirs: Path) -> None:
    runtime = load_runtime(str(tiny_gguf), keep_alive=60.0, n_ctx=N_CTX)
    assert isinstance(runtime, HostedRuntime)
    assert stat.S_IMODE(os.stat(host_dirs).st_mode) == 0o700
    assert stat.S_ISSOCK(os.stat(runtime.socket_file).st_mode)
    assert stat.S_IMODE(os.stat(runtime.socket_file).st_mode) == 0o600
    log = Path(os.environ["XDG_STATE_HOME"]) / "qwen-runtime" / "hosts" / f"{runtime.socket_file.stem}.log"
    assert "serving on" in log.read_text()


def test_peer_credentials_name_this_user_and_refuse_another() -> None:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with a, b:
        assert peer_uid(a) == os.getuid()
        assert same_user(a)
        assert not same_user(a, uid=os.getuid() + 1)  # what the host checks each connection against


def test_private_dir_refuses_someone_elses_or_open_folders(tmp_path: Path) -> None:
    made = private_dir(tmp_path / "new")
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o700
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    os.chmod(open_folder, 0o711)
    with pytest.raises(HostPlaceError, match="open to other users"):
        private_dir(open_folder)
    (tmp_path / "link").symlink_to(made)
    with pytest.raises(OSError):
        private_dir(tmp_path / "link")


def test_keep_alive_zero_starts_no_host(tiny_gguf: Path, host_dirs: Path) -> None:
    runtime = load_runtime(str(tiny_gguf), keep_alive=0, n_ctx=N_CTX)
    try:
        assert isinstance(runtime, LlamaCppRuntime)
    finally:
        runtime.close()
    assert not host_dirs.exists() or not list(host_dirs.iterdir())
    assert running_hosts() == []


def test_cancel_reaches_the_host(tiny_gguf: Path, host_dirs: Path) -> None:
    runtime = load_runtime(str(tiny_gguf), keep_alive=60.0, n_ctx=N_CTX)
    assert isinstance(runtime, HostedRuntime)
    cancel = CancelToken()
    events = []
    # the window's worth of tokens: the reply cannot end by itself before the cancel reaches the host, and
    # only the host's own generation loop says "cancelled" (the client passes its Finished through)
    for event in runtime.stream(request(max_tokens=N_CTX - 64), cancel):
        events.append(event)
        if len(events) == 1:
            cancel.cancel()
    assert isinstance(events[-1], Finished) and events[-1].reason == "cancelled", events[-1]
    # the host is free again: the next request is answered in full
    assert runtime.complete(request(max_tokens=4)).finish_reason in ("stop", "length")
    assert host_pids(host_dirs) == [runtime.host_pid]


def test_a_hosted_model_carries_its_load_warnings(tmp_path: Path, host_dirs: Path) -> None:
    """A model file without a chat template is warned about through the host as in-process."""
    from qwen_runtime.testing.testmodel import write_test_gguf

    bare = write_test_gguf(tmp_path / "bare.gguf", chat_template="")
    runtime = load_runtime(str(bare), keep_alive=60.0, n_ctx=N_CTX)
    try:
        assert isinstance(runtime, HostedRuntime)
        assert any("has no chat template" in w for w in runtime.load_warnings), runtime.load_warnings
    finally:
        runtime.close()
