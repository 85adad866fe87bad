"""Offline mode, tested the strong way: the real `sigit` (headless, ACP, the app in a terminal, doctor) in a
network namespace where only loopback exists, with every connection attempt and name lookup its process
makes recorded by CPython's audit hooks, so what is asserted is what sigit *tried*, not what got through.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pexpect
import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities, TextContentBlock
from qwen_runtime.testing.fake_hub import serve_fake_hub
from qwen_runtime.testing.server import ScriptedServer
from sigit.config.settings import Settings
from sigit.offline import is_loopback_url
from sigit.permissions import PermissionPolicy

from ..acp.conftest import RecordingClient

LAUNCHER = str(Path(__file__).with_name("netlog_sigit.py"))
FETCH = [{"tool_calls": [{"name": "read_website", "arguments": {"url": "https://docs.example.com/api"}}]},
         {"text": "OFFLINE-ANSWER: worked from the local files."}]
SETTINGS = """\
offline = true
[mcp.servers.remote]
type = "http"
url = "https://mcp.example.com/mcp"
[mcp.servers.nearby]
type = "http"
url = "http://127.0.0.1:9/mcp"
"""


@functools.cache
def namespaces() -> bool:
    """Whether this machine lets us make a network namespace (root, or unprivileged user namespaces)."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "-rn", "ip", "link", "set", "lo", "up"], capture_output=True).returncode == 0


def command(*args: str) -> list[str]:
    """`sigit ARGS` under the recording launcher, inside a loopback-only network namespace where one can
    be made (elsewhere the recording alone still shows every attempt)."""
    base = [sys.executable, LAUNCHER, *args]
    if not namespaces():
        return base
    return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *base]


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "SIGIT_PERMISSION_DEFAULT", "COLUMNS",
                                                              "LINES")}
    return env | {"SIGIT_CONFIG_DIR": str(tmp_path / "config"), "SIGIT_STATE_DIR": str(tmp_path / "state"),
                  "SIGIT_NETLOG": str(tmp_path / "net.jsonl"), "HF_HUB_CACHE": str(tmp_path / "hub"), **extra}


def attempts(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "net.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _local(entry: dict[str, Any]) -> bool:
    if entry.get("family") == 1:  # AF_UNIX
        return True
    address = ast.literal_eval(entry["address"])
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, bytes):
        host = host.decode()
    return host is None or is_loopback_url(f"http://[{host}]/" if ":" in str(host) else f"http://{host}/")


def remote_attempts(tmp_path: Path) -> list[dict[str, Any]]:
    """Every connection, datagram or name lookup that was not for this machine."""
    return [entry for entry in attempts(tmp_path) if not _local(entry)]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text(SETTINGS)
    path = tmp_path / "work"
    path.mkdir()
    (path / "notes.md").write_text("the local notes\n")
    return path


def scenario(tmp_path: Path, turns: list[dict[str, Any]]) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


def test_headless_offline_refuses_web_and_remote_mcp_and_tries_no_network(tmp_path: Path, work: Path) -> None:
    proc = subprocess.run(
        command("-p", "read the API docs", "--model", scenario(tmp_path, FETCH), "--output-format", "json"),
        cwd=work, env=environment(tmp_path), capture_output=True, text=True, timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["result"] == "OFFLINE-ANSWER: worked from the local files."
    assert [d["tool_name"] for d in result["permission_denials"]] == ["read_website"]
    assert "offline mode is on" in proc.stderr  # the refusal, with its reason, in the progress
    assert "MCP server remote (https://mcp.example.com/mcp) not started" in proc.stderr
    assert "nearby" not in proc.stderr.split("not started")[0]  # a loopback server may start (it fails: port 9)
    assert remote_attempts(tmp_path) == []
    assert any(e["event"] == "socket.connect" for e in attempts(tmp_path))  # the recording works: it saw :9


def test_the_flag_does_what_the_setting_does(tmp_path: Path, work: Path) -> None:
    (tmp_path / "config" / "settings.toml").write_text(SETTINGS.replace("offline = true\n", ""))
    proc = subprocess.run(
        command("-p", "read the API docs", "--offline", "--model", scenario(tmp_path, FETCH),
                "--output-format", "json"),
        cwd=work, env=environment(tmp_path), capture_output=True, text=True, timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    assert [d["tool_name"] for d in json.loads(proc.stdout)["permission_denials"]] == ["read_website"]
    assert "MCP server remote (https://mcp.example.com/mcp) not started" in proc.stderr
    assert remote_attempts(tmp_path) == []


def test_offline_downloads_nothing_even_with_download(tmp_path: Path, work: Path) -> None:
    with serve_fake_hub() as hub:  # a hub that would answer: outside the namespace, at a loopback address
        proc = subprocess.run(
            [sys.executable, LAUNCHER, "-p", "hi", "--offline", "--download"], cwd=work,
            env=environment(tmp_path, HF_ENDPOINT=hub.url), capture_output=True, text=True, timeout=60,
        )
        assert hub.requests == []
    assert proc.returncode == 1
    assert "offline mode is on" in proc.stderr and "cannot be downloaded" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert [e for e in attempts(tmp_path) if e["event"] == "socket.connect"] == []


def test_the_model_endpoint_is_the_one_connection_allowed(tmp_path: Path, work: Path) -> None:
    with ScriptedServer(FETCH) as server:  # a served model on 127.0.0.1 (this test's namespace)
        proc = subprocess.run(
            [sys.executable, LAUNCHER, "-p", "read the API docs", "--model", f"openai:{server.base_url}#qwen",
             "--output-format", "json"],
            cwd=work, env=environment(tmp_path), capture_output=True, text=True, timeout=90,
        )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "OFFLINE-ANSWER: worked from the local files."
    port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    connects = [ast.literal_eval(e["address"]) for e in attempts(tmp_path) if e["event"] == "socket.connect"]
    assert (("127.0.0.1", port) in connects) and remote_attempts(tmp_path) == []


def test_doctor_offline_asks_no_hub(tmp_path: Path, work: Path) -> None:
    (tmp_path / "config" / "settings.toml").write_text("")
    proc = subprocess.run(command("doctor", "--offline", "--json"), cwd=work, env=environment(tmp_path),
                          capture_output=True, text=True, timeout=60)
    hub = next(c for c in json.loads(proc.stdout)["checks"] if c["name"] == "hub")
    assert hub["details"]["reachable"] is None
    assert attempts(tmp_path) == []


def test_acp_offline_over_stdio(tmp_path: Path, work: Path) -> None:
    async def scenario_run() -> tuple[RecordingClient, Any]:
        client = RecordingClient()
        argv = command("acp", "--model", scenario(tmp_path, FETCH))
        transport = {"stderr": None, "shutdown_timeout": 30.0}  # as tests/sigit/acp/conftest.py's TRANSPORT
        async with acp.spawn_agent_process(client.as_client(), argv[0], *argv[1:], env=environment(tmp_path),
                                           transport_kwargs=transport) as (conn, _process):
            caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=False, write_text_file=False))
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
            session = await conn.new_session(cwd=str(work), mcp_servers=[])
            response = await conn.prompt(session_id=session.session_id,
                                         prompt=[TextContentBlock(type="text", text="read the API docs")])
            return client, response

    client, response = asyncio.run(asyncio.wait_for(scenario_run(), 90))
    assert response.stop_reason == "end_turn"
    assert "OFFLINE-ANSWER" in client.text()
    assert client.permissions == []  # refused by the policy: nobody is asked to allow a fetch
    failed = [u for u in client.of("tool_call_update") if getattr(u, "status", None) == "failed"]
    assert failed and "offline mode is on" in json.dumps([u.model_dump(mode="json") for u in failed])
    assert remote_attempts(tmp_path) == []


def test_the_app_in_a_terminal_offline(tmp_path: Path, work: Path) -> None:
    env = environment(tmp_path, TERM="xterm-256color")
    argv = command("--model", scenario(tmp_path, FETCH), "--cwd", str(work))
    child = pexpect.spawn(argv[0], argv[1:], env=env, dimensions=(40, 140), timeout=30, encoding="utf-8")
    try:
        child.expect("mode default")
        child.send("read the API docs")
        child.send("\r")
        child.expect("OFFLINE-ANSWER")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert remote_attempts(tmp_path) == []


def test_policy_refuses_any_declared_url_offline_even_in_bypass(tmp_path: Path) -> None:
    from sigit.tools import default_registry
    from sigit.tools.base import ToolContext

    registry = default_registry()
    context = ToolContext(cwd=tmp_path)
    call = registry.prepare("read_website", {"url": "http://127.0.0.1:8000/"}, context)
    assert not isinstance(call, str) and hasattr(call, "subjects")
    settings = Settings.model_validate({"offline": True, "permissions": {"allow": ["read_website"]}})
    decision = PermissionPolicy(settings, tmp_path, "bypass").decide(call)  # type: ignore[arg-type]
    assert decision.kind == "deny" and "offline mode is on" in decision.reason
    online = PermissionPolicy(Settings.model_validate({"permissions": {"allow": ["read_website"]}}), tmp_path, "bypass")
    assert online.decide(call).kind != "deny"  # type: ignore[arg-type]


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:9/mcp", True), ("http://127.8.9.1/", True), ("http://[::1]:80/", True),
    ("http://localhost:3000/mcp", True), ("http://api.localhost/", True), ("https://mcp.example.com/mcp", False),
    ("http://10.0.0.5/", False), ("http://[::ffff:8.8.8.8]/", False), ("http://localhost.evil.com/", False),
    ("not a url", False), ("http://[bad/", False),
])
def test_what_counts_as_this_machine(url: str, local: bool) -> None:
    assert is_loopback_url(url) is local


def test_an_untrusted_project_can_turn_offline_on_but_never_off(tmp_path: Path) -> None:
    from sigit.config.settings import load_settings

    config, work = tmp_path / "config", tmp_path / "work"
    (work / ".sigit").mkdir(parents=True)
    config.mkdir()
    (work / ".sigit" / "settings.toml").write_text("offline = true\n")
    assert load_settings(work, config, trusted=False).offline is True
    (config / "settings.toml").write_text("offline = true\n")
    (work / ".sigit" / "settings.toml").write_text("offline = false\n")
    assert load_settings(work, config, trusted=False).offline is True
